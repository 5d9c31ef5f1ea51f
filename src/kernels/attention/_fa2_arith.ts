/**
 * The FP32 instructions one FA2 build compiles its softmax to, as functions on bit patterns.
 *
 * @module
 */
import { addF32, divF32, ex2ApproxF32, fmaF32, isNanF32, type Mufu, mulF32 } from "../math/mod.ts";
import type { Fa2Build } from "./fa2_build.ts";

/** FP32 operations of one build (patterns in, pattern out). */
export interface _Fa2Arith {
  /** FADD (FTZ in the fast-math build). */
  readonly add: (a: number, b: number) => number;
  /** FMUL. */
  readonly mul: (a: number, b: number) => number;
  /** FFMA a*b + c, one rounding. */
  readonly fma: (a: number, b: number, c: number) => number;
  /** `exp2f` as the build lowers it. */
  readonly ex2: (x: number) => number;
  /** `S * scaleLog2 - maxScaled` as the build compiles it. */
  readonly exp2Arg: (s: number, scaleLog2: number, maxScaled: number) => number;
  /** `1.f / x` as the build compiles it. */
  readonly recip: (x: number) => number;
  /** `row_sum * scale + p` as the build compiles it. */
  readonly rescaleAdd: (sum: number, scale: number, p: number) => number;
}

/**
 * Builds the instruction set of an FA2 build around a MUFU model.
 *
 * @param build the build description
 * @param mufu MUFU model (`ex2`, `rcp` are the `.ftz` instructions)
 * @returns the operations
 * @example
 * ```ts
 * import { _fa2Arith } from "./_fa2_arith.ts";
 * import { FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * const id = (x: number) => x;
 * const a = _fa2Arith(FA2_PYTORCH_BUNDLED, { ex2: id, rcp: id, rsqrt: id });
 * if (a.recip(0x40000000) !== 0x3f000000) throw new Error(); // IEEE 1/2
 * ```
 */
export function _fa2Arith(build: Fa2Build, mufu: Mufu): _Fa2Arith {
  const o = { ftz: build.ftz };
  const add = (a: number, b: number) => addF32(a, b, o);
  const mul = (a: number, b: number) => mulF32(a, b, o);
  const fma = (a: number, b: number, c: number) => fmaF32([a, b, c], o);
  const ex2 = build.exp2 === "mufu-ftz"
    ? (x: number) => mufu.ex2(x)
    : (x: number) => ex2ApproxF32(mufu, x);
  // Negating an fp32 pattern (sign flip) is exact; the FFMA/FADD sees -max_scaled.
  const exp2Arg = build.exp2Argument === "ffma"
    ? (s: number, k: number, m: number) => fma(s, k, (m ^ 0x80000000) >>> 0)
    : (s: number, k: number, m: number) => add(mul(s, k), (m ^ 0x80000000) >>> 0);
  const recip = build.reciprocal === "mufu-rcp"
    ? (x: number) => mufu.rcp(x)
    : (x: number) => divF32(0x3f800000, x);
  const rescaleAdd = build.rowSumRescale === "ffma"
    ? (s: number, k: number, p: number) => fma(s, k, p)
    : (s: number, k: number, p: number) => add(mul(s, k), p);
  return Object.freeze({ add, mul, fma, ex2, exp2Arg, recip, rescaleAdd });
}

/**
 * True when an FP32 pattern is +0 or -0.
 *
 * @param bits FP32 pattern
 * @returns whether the value is zero
 * @example
 * ```ts
 * import { _isZeroF32 } from "./_fa2_arith.ts";
 * if (!_isZeroF32(0x80000000) || _isZeroF32(1)) throw new Error();
 * ```
 */
export function _isZeroF32(bits: number): boolean {
  return (bits & 0x7fffffff) === 0;
}

/** `isNanF32`, re-exported for the epilogue. */
export { isNanF32 as _isNanF32 };
