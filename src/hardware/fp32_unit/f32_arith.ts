/**
 * `f32Arith`: the FP32 add, multiply and FMA bound to one rounding mode and FTZ setting, for hot
 * loops (an attention softmax calls them per score, a reduction per element) that should not
 * build an options object or an operand array per call.
 *
 * @module
 */
import { _addDirected, _addRn, _addRnFtz } from "./add_f32.ts";
import type { F32OpOptions } from "./f32_options.ts";
import { _fmaRowRn, _mulRowRn } from "./f32_rows.ts";
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
  /**
   * `acc[j] = fma(a, x[j], acc[j])` for every j of `acc`, in place (`fma`'s bits); `x` at least as
   * long as `acc` (else a RangeError).
   */
  readonly fmaRow: (a: number, x: Uint32Array, acc: Uint32Array) => void;
  /**
   * `out[j] = mul(x[j], b)` for every j of `out` (`mul`'s bits; `out` may be `x`); `x` at least as
   * long as `out` (else a RangeError).
   */
  readonly mulRow: (x: Uint32Array, b: number, out: Uint32Array) => void;
}

/**
 * Binds `addF32`, `mulF32` and `fmaF32` to one setting, with row forms of the FMA and the
 * multiply (one scalar against a row); the results are theirs, bit for bit.
 *
 * @param options rounding mode (default `"rne"`) and `ftz` (default false)
 * @returns the frozen operations
 * @example
 * ```ts
 * import { f32Arith } from "./f32_arith.ts";
 * const rn = f32Arith({ mode: "rne" });
 * if (rn.fma(0x3f800800, 0x3f800800, 0xbf800000) !== 0x3a000400) throw new Error();
 * if (rn.add(0x3f800000, 0x3f800000) !== 0x40000000) throw new Error(); // 1 + 1 = 2
 * const acc = new Uint32Array([0x3f800000, 0]); // O += 2 * [1, 3]
 * rn.fmaRow(0x40000000, new Uint32Array([0x3f800000, 0x40400000]), acc);
 * if (acc[0] !== 0x40400000 || acc[1] !== 0x40c00000) throw new Error(); // [3, 6]
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
  const mul = (a: number, b: number) => _mulF32(a, b, mode, ftz);
  const fma = (a: number, b: number, c: number) => _fmaF32(a, b, c, mode, ftz);
  // The row forms read the rows as float values (nearest-even only); other modes loop. A row
  // shorter than the one written would read past its end (NaN or 0, by path): refused.
  const fmaRow = mode === "rne"
    ? (a: number, x: Uint32Array, acc: Uint32Array) => _fmaRowRn(a, _rowOf(x, acc), acc, ftz)
    : (a: number, x: Uint32Array, acc: Uint32Array) => {
      _rowOf(x, acc);
      for (let j = 0; j < acc.length; j++) acc[j] = fma(a, x[j] as number, acc[j] as number);
    };
  const mulRow = mode === "rne"
    ? (x: Uint32Array, b: number, out: Uint32Array) => _mulRowRn(_rowOf(x, out), b, out, ftz)
    : (x: Uint32Array, b: number, out: Uint32Array) => {
      _rowOf(x, out);
      for (let j = 0; j < out.length; j++) out[j] = mul(x[j] as number, b);
    };
  return Object.freeze({ add, mul, fma, fmaRow, mulRow });
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

/** The row read, refused when shorter than the row written. */
function _rowOf(x: Uint32Array, written: Uint32Array): Uint32Array {
  if (x.length < written.length) {
    throw new RangeError(`FP32 row of ${x.length} elements read for ${written.length} written`);
  }
  return x;
}
