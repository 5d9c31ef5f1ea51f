/**
 * Round-trip check of one stored pattern through `decode()` and back, against the field-by-field
 * reference; shared by the CI tests and the slow exhaustive sweeps.
 *
 * @module
 */
import {
  convert,
  decode,
  decodedToNumber,
  type FloatFormat,
  packInfinity,
  packZero,
  roundPack,
} from "../../src/numerics/mod.ts";
import { compareDyadic, dyadic, dyadicToNumber } from "./_dyadic.ts";
import { refDecode } from "./_exact_reference.ts";
import type { Mismatches } from "./_mismatches.ts";
import { hex } from "./_ref_convert.ts";
import { refFormat } from "./_ref_formats.ts";

const MODES = ["rne", "rz", "ru", "rd"] as const;

/**
 * Checks one pattern: the decoded value against the reference, then every way back to the
 * pattern (roundPack in each direction and overflow rule, FTZ, DAZ, packZero, packInfinity,
 * convert to the same format; a NaN must stay a NaN).
 *
 * @param f format of the pattern
 * @param bits the pattern (padding bits zero)
 * @param m mismatch log to record into
 */
export function checkRoundTrip(f: FloatFormat, bits: number, m: Mismatches): void {
  const ref = refDecode(refFormat(f.name), bits);
  const d = decode(f, bits);
  const at = () => `${f.name} ${hex(bits, f.storageBits)}`;
  if (ref.kind === "nan" || ref.kind === "inf") {
    m.check(d.kind === ref.kind && d.sign === ref.sign, () => `${at()}: decoded ${d.kind}`);
    if (ref.kind === "inf") {
      m.check(packInfinity(f, ref.sign) === bits, () => `${at()}: packInfinity differs`);
      for (const mode of MODES) {
        m.check(convert(f, f, bits, { mode }) === bits, () => `${at()}: convert ${mode}`);
      }
    } else {
      const back = convert(f, f, bits);
      m.check(back === f.canonicalNan, () => `${at()}: NaN converted to ${back}`);
      m.check(decode(f, back).kind === "nan", () => `${at()}: NaN class lost`);
    }
    return;
  }
  if (ref.mag.num === 0n) {
    m.check(d.kind === "zero" && d.sign === ref.sign, () => `${at()}: decoded ${d.kind}`);
    m.check(packZero(f, ref.sign) === bits, () => `${at()}: packZero differs`);
    for (const mode of MODES) {
      const r = roundPack(f, { sign: ref.sign, significand: 0, exponent: 0 }, { mode });
      m.check(r === bits, () => `${at()}: roundPack ${mode} of zero gave ${r}`);
    }
    m.check(Object.is(decodedToNumber(d), ref.sign ? -0 : 0), () => `${at()}: zero sign lost`);
    return;
  }
  if (d.kind !== "finite") {
    m.check(false, () => `${at()}: decoded ${d.kind}, expected finite`);
    return;
  }
  const hidden = 2 ** f.fracBits;
  const sigOk = ref.sub
    ? d.significand >= 1 && d.significand < hidden && d.exponent === f.emin - f.fracBits
    : d.significand >= hidden && d.significand < 2 * hidden;
  m.check(
    d.sign === ref.sign && d.subnormal === ref.sub && sigOk &&
      compareDyadic(dyadic(d.significand, d.exponent), ref.mag) === 0,
    () => `${at()}: decoded ${JSON.stringify(d)}`,
  );
  const x = dyadicToNumber(ref.mag);
  m.check(decodedToNumber(d) === (ref.sign ? -x : x), () => `${at()}: decodedToNumber`);
  for (const mode of MODES) {
    const r = roundPack(f, d, { mode });
    m.check(r === bits, () => `${at()}: roundPack ${mode} gave ${hex(r, f.storageBits)}`);
    m.check(convert(f, f, bits, { mode }) === bits, () => `${at()}: convert ${mode}`);
  }
  for (const overflow of ["saturate", "infinity"] as const) {
    m.check(roundPack(f, d, { overflow }) === bits, () => `${at()}: overflow ${overflow}`);
  }
  const flushed = ref.sub ? packZero(f, ref.sign) : bits;
  m.check(roundPack(f, d, { ftz: true }) === flushed, () => `${at()}: ftz`);
  const daz = decode(f, bits, { daz: true });
  m.check(
    ref.sub ? daz.kind === "zero" && daz.sign === ref.sign : daz.kind === "finite",
    () => `${at()}: daz gave ${daz.kind}`,
  );
}
