/**
 * `f32Arith`: the FP32 add, multiply and FMA bound to one rounding mode and FTZ setting, for hot
 * loops (an attention softmax calls them per score, a reduction per element) that should not
 * build an options object or an operand array per call.
 *
 * @module
 */
import { _addDirected, _addRn, _addRnFtz } from "./add_f32.ts";
import type { F32OpOptions } from "./f32_options.ts";
import { _fmaF32 } from "./fma_f32.ts";
import { _mulF32 } from "./mul_f32.ts";

/** FP32 operations on bit patterns with a fixed mode and FTZ setting. */
export interface F32Arith {
  /** `add.f32` (one rounding). */
  readonly add: (a: number, b: number) => number;
  /** `mul.f32` (one rounding). */
  readonly mul: (a: number, b: number) => number;
  /** `fma.f32`: a·b + c with one rounding. */
  readonly fma: (a: number, b: number, c: number) => number;
}

/**
 * Binds `addF32`, `mulF32` and `fmaF32` to one setting; the results are theirs, bit for bit.
 *
 * @param options rounding mode (default `"rne"`) and `ftz` (default false)
 * @returns the frozen operations
 * @example
 * ```ts
 * import { f32Arith } from "./f32_arith.ts";
 * const rn = f32Arith({ mode: "rne" });
 * if (rn.fma(0x3f800800, 0x3f800800, 0xbf800000) !== 0x3a000400) throw new Error();
 * if (rn.add(0x3f800000, 0x3f800000) !== 0x40000000) throw new Error(); // 1 + 1 = 2
 * ```
 */
export function f32Arith(options: F32OpOptions = {}): F32Arith {
  const mode = options.mode ?? "rne";
  const ftz = options.ftz === true;
  // Each FADD form is bound to its own path, so no call tests the mode again.
  const add = mode !== "rne"
    ? (a: number, b: number) => _addDirected(a, b, mode, ftz)
    : ftz
    ? _addRnFtz
    : _addRn;
  return Object.freeze({
    add,
    mul: (a: number, b: number) => _mulF32(a, b, mode, ftz),
    fma: (a: number, b: number, c: number) => _fmaF32(a, b, c, mode, ftz),
  });
}

/**
 * The FP32 operations of code compiled without fast-math: `add.rn.f32`, `mul.rn.f32` and
 * `fma.rn.f32`, no `.ftz` (what a plain `a + b` in CUDA C++ becomes).
 *
 * @example
 * ```ts
 * import { F32_RN } from "./f32_arith.ts";
 * if (F32_RN.add(0x3f800000, 0x3f800000) !== 0x40000000) throw new Error(); // 1 + 1 = 2
 * if (F32_RN.mul(1, 0x3f800000) !== 1) throw new Error(); // a subnormal survives without FTZ
 * ```
 */
export const F32_RN: F32Arith = f32Arith();
