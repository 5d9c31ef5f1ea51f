/**
 * PyTorch symmetric-memory `two_shot_all_reduce_` on BF16, the kernel vLLM's
 * `SymmMemCommunicator` calls where multimem is not used (spec `parallel_and_vllm.md` §A2.2;
 * `CUDASymmetricMemoryOps.cu` and `CUDASymmetricMemory-inl.h`, commit not pinned).
 *
 * @module
 */
import type { TorchSymmMemTwoShotPlan } from "./all_reduce_plan.ts";
import { _checkPartials, _foldBf16, _rotation } from "./_fold.ts";

/**
 * World sizes `DISPATCH_WORLD_SIZES` specialises (8, 4, 2); any other size runs the kernel with
 * `k_world_size = -1`, whose `load_and_reduce` starts from a zeroed vector.
 */
export const TORCH_SYMM_MEM_SPECIALISED_WORLD_SIZES: readonly number[] = Object.freeze([2, 4, 8]);

/**
 * The two-shot all-reduce: each rank reduces its `numel_per_rank` slice with `load_and_reduce`
 * and copies it to every rank. `load_and_reduce` loads `vecs[remote_rank]` for all ranks, then
 * `acc = vecs[0]; acc = __hadd2(acc, vecs[r])` for r = 1..n-1: ranks 0, 1, ..., n-1 for every
 * element whoever reduces it, a BF16 rounding after every add. For a world size outside
 * {@link TORCH_SYMM_MEM_SPECIALISED_WORLD_SIZES} the unspecialised form `Vec acc{}; acc =
 * add(acc, x_r)` for r = 0..n-1 starts from +0, which differs only in the sign of an all-(-0)
 * sum. The slice split (`round_up(numel, elems * n) / n`) and grid do not change any element's
 * arithmetic.
 *
 * Evidence: derived from source only (no multi-GPU measurement exists).
 *
 * @param partials per-rank BF16 partials (rank r at index r), one length
 * @param plan the implementation and world size
 * @returns the reduced BF16 tensor (identical on every rank)
 * @throws {TypeError} when a partial is not a `Uint16Array`
 * @throws {RangeError} when the partials do not match the world size
 * @example
 * ```ts
 * import { torchSymmMemTwoShot } from "./torch_symm_mem_two_shot.ts";
 * // 1 + 2^-8 ties to 1 in BF16, and again: the per-add rounding loses both halves.
 * const x = [0x3f80, 0x3b80, 0x3b80, 0].map((v) => new Uint16Array([v]));
 * if (torchSymmMemTwoShot(x, { kind: "torch-symm-mem-two-shot", worldSize: 4 })[0] !== 0x3f80) {
 *   throw new Error();
 * }
 * ```
 */
export function torchSymmMemTwoShot(
  partials: readonly Uint16Array[],
  plan: TorchSymmMemTwoShotPlan,
): Uint16Array {
  const n = plan.worldSize;
  const count = _checkPartials(partials, n);
  const order = _rotation(0, n);
  const zeroInit = !TORCH_SYMM_MEM_SPECIALISED_WORLD_SIZES.includes(n);
  const out = new Uint16Array(count);
  for (let e = 0; e < count; e++) out[e] = _foldBf16(partials, e, order, zeroInit);
  return out;
}
