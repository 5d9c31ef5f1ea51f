/**
 * The hot nearest-even FADD (`F32_RN.add()`, the float64 sum rounded once more to FP32) bit for
 * bit against the exact reference of tests/numerics (BigInt dyadics, rounded by its own grid
 * search): fp32 specials, and seeded random pairs drawn close in exponent so that additions
 * cancel and carry.
 *
 * @module
 */
import { F32_RN } from "../../../src/hardware/fp32_unit/mod.ts";
import { FP32 } from "../../../src/numerics/mod.ts";
import { FP32_SPECIALS } from "../../numerics/_boundary_inputs.ts";
import { refDecode, refRound } from "../../numerics/_exact_reference.ts";
import { Mismatches } from "../../numerics/_mismatches.ts";
import { prng32 } from "../../numerics/_prng.ts";
import { hex } from "../../numerics/_ref_convert.ts";
import { refFormat } from "../../numerics/_ref_formats.ts";

const RF32 = refFormat("fp32");

/** Exact signed sum of two fp32 patterns, rounded once by the reference (RNE). */
function refAdd(x: number, y: number): number {
  const a = refDecode(RF32, x);
  const b = refDecode(RF32, y);
  if (a.kind === "nan" || b.kind === "nan") return FP32.canonicalNan;
  if (a.kind === "inf" || b.kind === "inf") {
    if (a.kind === "inf" && b.kind === "inf" && a.sign !== b.sign) return FP32.canonicalNan;
    return (a.kind === "inf" ? a.sign : (b as { sign: 0 | 1 }).sign) ? 0xff800000 : 0x7f800000;
  }
  const e = Math.min(a.mag.exp, b.mag.exp);
  const sa = (a.sign ? -a.mag.num : a.mag.num) << BigInt(a.mag.exp - e);
  const sb = (b.sign ? -b.mag.num : b.mag.num) << BigInt(b.mag.exp - e);
  const sum = sa + sb;
  // IEEE 754 §6.3: an exact zero sum is +0 in nearest-even unless both operands are -0.
  if (sum === 0n) return a.sign === 1 && b.sign === 1 ? 0x80000000 : 0;
  const sign = sum < 0n ? 1 : 0;
  return refRound(RF32, sign, { num: sign ? -sum : sum, exp: e });
}

Deno.test("`F32_RN.add()` equals the exactly rounded sum when operands are specials, near or random", () => {
  const m = new Mismatches();
  const next = prng32(0xadd);
  const pairs: [number, number][] = [];
  for (const x of FP32_SPECIALS) for (const y of FP32_SPECIALS) pairs.push([x, y]);
  for (let i = 0; i < 40_000; i++) {
    const x = next();
    // y: same sign or not, exponent within +-25 binades of x (clamped), random fraction.
    const ex = (x >>> 23) & 0xff;
    const ey = Math.min(254, Math.max(0, ex + (next() % 51) - 25));
    const y = ((next() & 0x807fffff) + ey * 2 ** 23) >>> 0;
    pairs.push([x, y], [x, next()]);
  }
  for (const [x, y] of pairs) {
    const want = refAdd(x, y);
    const got = F32_RN.add(x, y);
    m.check(
      got === want,
      () => `${hex(x, 32)} + ${hex(y, 32)}: got ${hex(got, 32)}, want ${hex(want, 32)}`,
    );
  }
  m.assertNone("F32_RN.add");
});
