/**
 * `sfuSquare`: the SFU interpolator's truncated squarer.
 *
 * @module
 */

/**
 * The truncated squarer of the Tesla SFU interpolator (sfu_tesla_model.md §1): for a 17-bit `x`,
 * `(Σ_{i<17, bit i of x} (x >> (18 − i))) >> 1`, about `x² / 2^19`, with every partial product
 * truncated before the sum. Exact 32-bit integer arithmetic: each partial is below 2^16 and there
 * are at most 17 of them, so the sum stays below 2^21.
 *
 * @param x unsigned 17-bit operand (bits above 16 are ignored)
 * @returns the truncated square, an integer in [0, 2^15]
 * @example
 * ```ts
 * import { sfuSquare } from "./sfu_square.ts";
 * // x = 2^16: the only set bit is 16, partial = 2^16 >> 2 = 2^14, then >> 1.
 * if (sfuSquare(0x10000) !== 0x2000) throw new Error();
 * if (sfuSquare(1) !== 0) throw new Error();
 * ```
 */
export function sfuSquare(x: number): number {
  return (_squares ??= _squareTable())[x & 0x1ffff] as number;
}

/**
 * The squarer's definition, bit-serial: the partial products summed one by one. `sfuSquare`
 * reads the same values from a table built with this function on first use (2^17 entries, all
 * below 2^16); tests compare the two on every input.
 *
 * @param x unsigned 17-bit operand (bits above 16 are ignored)
 * @returns the truncated square
 * @example
 * ```ts
 * import { sfuSquare, sfuSquareSerial } from "./sfu_square.ts";
 * if (sfuSquareSerial(0x1abcd) !== sfuSquare(0x1abcd)) throw new Error();
 * ```
 */
export function sfuSquareSerial(x: number): number {
  const v = x & 0x1ffff;
  let sum = 0;
  for (let i = 0; i < 17; i++) {
    if ((v >>> i) & 1) sum += v >>> (18 - i);
  }
  return sum >>> 1;
}

/** Every value of the squarer, by 17-bit operand (built on first use, about 2 ms). */
let _squares: Uint16Array | undefined;

function _squareTable(): Uint16Array {
  const t = new Uint16Array(0x20000);
  for (let x = 0; x < 0x20000; x++) t[x] = sfuSquareSerial(x);
  return t;
}
