/**
 * Compares one `convert()` input against the exact reference in every rounding direction, every
 * overflow rule, with flush-to-zero and with denormals-are-zero. One bisection of the reference
 * serves all of the combinations.
 *
 * @module
 */
import { convert, type FloatFormat } from "../../src/numerics/mod.ts";
import { refDecode, refNeighbours, refPick } from "./_exact_reference.ts";
import { hex, refConvert } from "./_ref_convert.ts";
import { indexPattern, refFormat } from "./_ref_formats.ts";
import type { Mismatches } from "./_mismatches.ts";

/** The four rounding directions. */
export const MODES = ["rne", "rz", "ru", "rd"] as const;
/** The three overflow rules. */
export const RULES = ["ieee", "saturate", "infinity"] as const;

/** Which option combinations {@link checkConversion} tries. */
export interface CheckScope {
  /** Every direction x every overflow rule, plus FTZ and DAZ per direction (else modes only). */
  readonly full: boolean;
}

/**
 * Checks `convert(from, to, bits, ...)` against the reference and records into `m`.
 *
 * @param from source format
 * @param to target format
 * @param bits source pattern
 * @param m mismatch log
 * @param scope how many option combinations to try
 */
export function checkConversion(
  from: FloatFormat,
  to: FloatFormat,
  bits: number,
  m: Mismatches,
  scope: CheckScope,
): void {
  const rf = refFormat(from.name);
  const rt = refFormat(to.name);
  const v = refDecode(rf, bits);
  const label = (opts: object, got: number, want: number) =>
    `${from.name} ${hex(bits, from.storageBits)} -> ${to.name} ${JSON.stringify(opts)}: ` +
    `got ${hex(got, to.storageBits)}, want ${hex(want, to.storageBits)}`;
  const one = (opts: Record<string, unknown>, want: number) => {
    const got = convert(from, to, bits, opts);
    m.check(got === want, () => label(opts, got, want));
  };
  const rules = scope.full ? RULES : (["ieee"] as const);
  if (v.kind !== "finite" || v.mag.num === 0n) {
    for (const mode of MODES) {
      for (const overflow of rules) {
        const opts = { mode, overflow };
        one(opts, refConvert(rf, rt, bits, { ...opts, canonicalNan: to.canonicalNan }));
      }
    }
    if (v.kind === "nan") one({ nan: 0x15 }, 0x15);
    return;
  }
  const nb = refNeighbours(rt, v.mag);
  for (const mode of MODES) {
    for (const overflow of rules) {
      one({ mode, overflow }, refPick(rt, v.sign, nb, { mode, overflow }));
    }
    if (!scope.full) continue;
    one({ mode, ftz: true }, refPick(rt, v.sign, nb, { mode, ftz: true }));
    one(
      { mode, daz: true },
      v.sub ? indexPattern(rt, v.sign, 0) : refPick(rt, v.sign, nb, { mode }),
    );
  }
}
