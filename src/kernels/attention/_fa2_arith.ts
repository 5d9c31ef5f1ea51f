/**
 * The FP32 instructions one FA2 build compiles its softmax, LSE and split-KV combine to, as
 * functions on bit patterns.
 *
 * @module
 */
import { divF32, f32Arith, isNanF32 } from "../../hardware/mod.ts";
import {
  cudaExpf,
  cudaLogf,
  ex2ApproxF32,
  fastExpf,
  lg2Approx,
  LN2_F32,
  type Mufu,
} from "../math/mod.ts";
import type { Fa2Build } from "./fa2_build.ts";

/** A MUFU model that may also carry MUFU.LG2 (the `Sfu` of `src/hardware/sfu` does). */
export type Fa2Mufu = Mufu & { readonly lg2?: ((bits: number) => number) | undefined };

/** FP32 operations of one build (patterns in, pattern out). */
export interface Fa2Arith {
  /** FADD (FTZ in the fast-math build). */
  readonly add: (a: number, b: number) => number;
  /** FMUL. */
  readonly mul: (a: number, b: number) => number;
  /** FFMA a*b + c, one rounding. */
  readonly fma: (a: number, b: number, c: number) => number;
  /** `acc[j] = fma(a, x[j], acc[j])` along a row, in place. */
  readonly fmaRow: (a: number, x: Uint32Array, acc: Uint32Array) => void;
  /** `out[j] = mul(x[j], b)` along a row. */
  readonly mulRow: (x: Uint32Array, b: number, out: Uint32Array) => void;
  /** `exp2f` as the build lowers it. */
  readonly ex2: (x: number) => number;
  /** `S * scaleLog2 - maxScaled` as the build compiles it. */
  readonly exp2Arg: (s: number, scaleLog2: number, maxScaled: number) => number;
  /** `1.f / x` as the build compiles it. */
  readonly recip: (x: number) => number;
  /** `row_sum * scale + p` as the build compiles it. */
  readonly rescaleAdd: (sum: number, scale: number, p: number) => number;
  /** `row_max * softmax_scale + __logf(sum)` as the build compiles it (needs MUFU.LG2). */
  readonly lse: (rowMax: number, softmaxScale: number, sum: number) => number;
  /** The combine's `expf`. */
  readonly combineExp: (x: number) => number;
  /** The combine's `logf(sum) + lseMax` (needs MUFU.LG2 for the fast build). */
  readonly combineLse: (sum: number, lseMax: number) => number;
}

/**
 * Builds the instruction set of an FA2 build around a MUFU model.
 *
 * @param build the build description
 * @param mufu MUFU model (`ex2`, `rcp` are the `.ftz` instructions; `lg2` when an LSE is needed)
 * @returns the operations; `lse` and the fast `combineLse` throw a `RangeError` without `lg2`
 * @throws {RangeError} when `combineLseAdd` is `ffma` with the libdevice combine (no such code)
 * @example
 * ```ts
 * import { _fa2Arith } from "./_fa2_arith.ts";
 * import { FA2_PYTORCH_BUNDLED } from "./fa2_build.ts";
 * const id = (x: number) => x;
 * const a = _fa2Arith(FA2_PYTORCH_BUNDLED, { ex2: id, rcp: id, rsqrt: id });
 * if (a.recip(0x40000000) !== 0x3f000000) throw new Error(); // IEEE 1/2
 * ```
 */
export function _fa2Arith(build: Fa2Build, mufu: Fa2Mufu): Fa2Arith {
  const ftz = build.ftz;
  const o = { ftz };
  const { add, mul, fma, fmaRow, mulRow } = f32Arith(o); // bound once: nothing allocated per call
  // The `.ftz` instructions flush a subnormal argument and result whatever MUFU model is given
  // (an IEEE model's own flag may be off): idempotent where the model flushes already.
  const ex2 = build.exp2 === "mufu-ftz"
    ? (x: number) => _flush(mufu.ex2(_flush(x)))
    : (x: number) => ex2ApproxF32(mufu, x);
  // Negating an fp32 pattern (sign flip) is exact; the FFMA/FADD sees -max_scaled.
  const exp2Arg = build.exp2Argument === "ffma"
    ? (s: number, k: number, m: number) => fma(s, k, (m ^ 0x80000000) >>> 0)
    : (s: number, k: number, m: number) => add(mul(s, k), (m ^ 0x80000000) >>> 0);
  const recip = build.reciprocal === "mufu-rcp"
    ? (x: number) => _flush(mufu.rcp(_flush(x)))
    : (x: number) => divF32(0x3f800000, x);
  const rescaleAdd = build.rowSumRescale === "ffma"
    ? (s: number, k: number, p: number) => fma(s, k, p)
    : (s: number, k: number, p: number) => add(mul(s, k), p);
  const lg2 = (x: number): number => {
    if (mufu.lg2 === undefined) {
      throw new RangeError("Cannot compute the FA2 LSE: the MUFU model has no 'lg2'");
    }
    return lg2Approx(x, { lg2: mufu.lg2, ftz });
  };
  const logf = (x: number) => mul(lg2(x), LN2_F32); // __logf = fl32(LG2(y) * ln2)
  const lse = build.lseFma === "max-scale"
    ? (m: number, k: number, s: number) => fma(m, k, logf(s))
    : (m: number, k: number, s: number) => fma(lg2(s), LN2_F32, mul(m, k));
  const fast = build.combineMath === "fast";
  if (!fast && build.combineLseAdd === "ffma") {
    throw new RangeError("Cannot build FA2 arithmetic: 'ffma' combineLseAdd needs the fast logf");
  }
  const combineExp = fast
    ? (x: number) => fastExpf(x, { mufu, ftz })
    : (x: number) => cudaExpf(x, mufu);
  const combineLse = build.combineLseAdd === "ffma"
    ? (s: number, m: number) => fma(lg2(s), LN2_F32, m)
    : fast
    ? (s: number, m: number) => add(logf(s), m)
    : (s: number, m: number) => add(cudaLogf(s), m);
  return Object.freeze({
    add,
    mul,
    fma,
    fmaRow,
    mulRow,
    ex2,
    exp2Arg,
    recip,
    rescaleAdd,
    lse,
    combineExp,
    combineLse,
  });
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

/** An FP32 pattern with a subnormal flushed to a zero of its sign (FTZ); others unchanged. */
function _flush(x: number): number {
  return (x & 0x7f800000) === 0 ? (x & 0x80000000) >>> 0 : x;
}
