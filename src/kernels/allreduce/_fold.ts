/**
 * The two accumulations the all-reduce kernels use per element, over the ranks' BF16 partials:
 * an FP32 left fold rounded once to BF16 (vLLM custom all-reduce), and a BF16 left fold rounded
 * after every add (PyTorch symmetric memory, NCCL). Private to the folder.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";
import { fp32ToBf16 } from "../../numerics/mod.ts";

/**
 * Widens a BF16 pattern to the FP32 pattern of the same value (exact: BF16 is the top half of
 * FP32), as `__bfloat162float` does.
 *
 * @param bits BF16 pattern
 * @returns FP32 pattern
 */
export function _widen(bits: number): number {
  return (bits << 16) >>> 0;
}

/**
 * `__hadd(a, b)` on BF16 for sm_80+ (`fma.rn.bf16` / `add.rn.bf16`): the exact sum rounded once
 * to BF16, nearest-even. Computed as the FP32 add (`add.rn.f32`, no FTZ) rounded to BF16: double
 * rounding is innocuous because FP32 keeps 24 >= 2 * 8 + 2 bits at every exponent, subnormals
 * included (both formats share the exponent range), and overflow agrees because the BF16
 * overflow threshold 2^128 - 2^119 is an FP32 value. NaN gives the BF16 NaN 0x7FFF.
 *
 * @param a BF16 pattern
 * @param b BF16 pattern
 * @returns BF16 pattern of `bf16(a + b)`
 */
export function _addBf16(a: number, b: number): number {
  return fp32ToBf16(F32_RN.add(_widen(a), _widen(b)));
}

/**
 * `acc = float(x[order[0]]); acc += float(x[order[k]]) ...; bf16(acc)`: FP32 adds (`add.rn.f32`,
 * vLLM builds without fast-math, so no FTZ) and one nearest-even rounding (`__float2bfloat16`).
 *
 * @param partials per-rank BF16 tensors
 * @param element element index
 * @param order ranks in fold order (at least one)
 * @returns BF16 pattern
 */
export function _foldFp32(
  partials: readonly Uint16Array[],
  element: number,
  order: readonly number[],
): number {
  let acc = _widen((partials[order[0] as number] as Uint16Array)[element] as number);
  for (let k = 1; k < order.length; k++) {
    const x = (partials[order[k] as number] as Uint16Array)[element] as number;
    acc = F32_RN.add(acc, _widen(x));
  }
  return fp32ToBf16(acc);
}

/**
 * `acc = x[order[0]]; acc = __hadd(acc, x[order[k]]) ...` in BF16 (one rounding per add); with
 * `zeroInit` the fold starts from +0 and adds `x[order[0]]` too (`Vec acc{}` in PyTorch's
 * unspecialised `load_and_reduce`).
 *
 * @param partials per-rank BF16 tensors
 * @param element element index
 * @param order ranks in fold order (at least one)
 * @param zeroInit start from +0 instead of the first term
 * @returns BF16 pattern
 */
export function _foldBf16(
  partials: readonly Uint16Array[],
  element: number,
  order: readonly number[],
  zeroInit = false,
): number {
  let acc = zeroInit ? 0 : (partials[order[0] as number] as Uint16Array)[element] as number;
  for (let k = zeroInit ? 0 : 1; k < order.length; k++) {
    acc = _addBf16(acc, (partials[order[k] as number] as Uint16Array)[element] as number);
  }
  return acc;
}

/**
 * Checks the per-rank partials: one `Uint16Array` per rank, all of one length.
 *
 * @param partials per-rank BF16 tensors
 * @param worldSize ranks the plan names
 * @returns the element count
 * @throws {TypeError} when a partial is not a `Uint16Array`
 * @throws {RangeError} when the rank count or the lengths disagree
 */
export function _checkPartials(partials: readonly Uint16Array[], worldSize: number): number {
  if (partials.length !== worldSize) {
    throw new RangeError(
      `Cannot all-reduce: ${partials.length} partials for a plan of worldSize ${worldSize}`,
    );
  }
  const count = partials[0]?.length ?? 0;
  partials.forEach((p, r) => {
    if (!(p instanceof Uint16Array)) {
      throw new TypeError(`Cannot all-reduce: partial ${r} is not a Uint16Array of BF16 patterns`);
    }
    if (p.length !== count) {
      throw new RangeError(
        `Cannot all-reduce: partial ${r} has ${p.length} elements, not ${count}`,
      );
    }
  });
  return count;
}

/**
 * The cyclic order `start, start + 1, ..., start - 1` over `n` ranks.
 *
 * @param start first rank
 * @param n ranks
 * @returns the ranks in order
 */
export function _rotation(start: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => (start + i) % n);
}
