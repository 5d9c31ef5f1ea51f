/**
 * vLLM's custom all-reduce (`csrc/custom_all_reduce.cuh`, identical in vLLM c3124680 and 9aaf83e;
 * spec `parallel_and_vllm.md` §A2.1 [V]).
 *
 * @module
 */
import type { VllmCustomPlan } from "./all_reduce_plan.ts";
import { _checkPartials, _foldFp32, _rotation } from "./_fold.ts";

/** BF16 elements per 16-byte pack (`packed_t<T>::P = array_t<T, 16 / sizeof(T)>`). */
const _PACK = 8;

/**
 * The custom all-reduce of BF16 partials: every element is `packed_reduce`, an FP32 left fold
 * (`A = array_t<float, 8>`, one `add.rn.f32` per rank) rounded once to BF16 by
 * `__float2bfloat16`; all ranks get the same bits.
 * - `vllm-custom-1stage` (`cross_device_reduce_1stage`): ranks 0, 1, ..., n-1 for every element
 *   ("we don't reorder the address so the accumulation order is the same for all ranks").
 * - `vllm-custom-2stage` (`cross_device_reduce_2stage`): rank r reduces partition r with
 *   `ptrs[i] = rank (r + i) % n`, i.e. ranks r, r+1, ..., r-1, then the partitions are
 *   all-gathered by copy; the partition of an element is {@link vllmTwoStageOwner}.
 * The grid (`blocks = min(36, ceil(packs / 512))`, 512 threads) does not change the arithmetic:
 * one thread reduces each pack.
 *
 * Evidence: derived from source only (no multi-GPU measurement exists).
 *
 * @param partials per-rank BF16 partials (rank r at index r), one length, a multiple of 8
 * @param plan the implementation and world size
 * @returns the reduced BF16 tensor (identical on every rank)
 * @throws {TypeError} when a partial is not a `Uint16Array`
 * @throws {RangeError} when the partials do not match the world size, or the element count is not
 *   a multiple of 8 (the kernel throws "custom allreduce currently requires input length to be
 *   multiple of 8"; vLLM's `should_custom_ar` needs bytes % 16 == 0)
 * @example
 * ```ts
 * import { vllmCustomAllReduce } from "./vllm_custom_all_reduce.ts";
 * // 1 + 2^-8 + 2^-8 + 0: the FP32 sum 1 + 2^-7 is a BF16 value, rounded once.
 * const x = [0x3f80, 0x3b80, 0x3b80, 0].map((v) => new Uint16Array(8).fill(v));
 * const out = vllmCustomAllReduce(x, { kind: "vllm-custom-1stage", worldSize: 4 });
 * if (out[0] !== 0x3f81) throw new Error();
 * ```
 */
export function vllmCustomAllReduce(
  partials: readonly Uint16Array[],
  plan: VllmCustomPlan,
): Uint16Array {
  const n = plan.worldSize;
  const count = _checkPartials(partials, n);
  if (count % _PACK !== 0) {
    throw new RangeError(
      `Cannot all-reduce with '${plan.kind}': ${count} elements is not a multiple of ${_PACK} ` +
        "(16-byte packs)",
    );
  }
  const orders = _rotations(n);
  const out = new Uint16Array(count);
  const twoStage = plan.kind === "vllm-custom-2stage";
  for (let e = 0; e < count; e++) {
    const owner = twoStage ? vllmTwoStageOwner(e, { count, worldSize: n }) : 0;
    out[e] = _foldFp32(partials, e, orders[owner] as number[]);
  }
  return out;
}

/**
 * The rank whose stage-1 loop reduces an element in the two-stage custom all-reduce: with `size`
 * packs of 8 elements, `part = size / n` (integer division); rank r covers packs
 * `[r * part, (r + 1) * part)` and the last rank also the remainder (`end = size` for
 * `rank == n - 1`). So pack p belongs to `min(p / part, n - 1)`, and to rank n-1 when
 * `part == 0`.
 *
 * @param element element index
 * @param options `count` (elements, a multiple of 8) and `worldSize`
 * @returns the owning rank, whose fold starts the order `owner, owner + 1, ...`
 * @example
 * ```ts
 * import { vllmTwoStageOwner } from "./vllm_custom_all_reduce.ts";
 * // 40 elements = 5 packs over 4 ranks: part = 1, the last rank takes packs 3 and 4.
 * if (vllmTwoStageOwner(39, { count: 40, worldSize: 4 }) !== 3) throw new Error();
 * if (vllmTwoStageOwner(8, { count: 40, worldSize: 4 }) !== 1) throw new Error();
 * ```
 */
export function vllmTwoStageOwner(
  element: number,
  options: { readonly count: number; readonly worldSize: number },
): number {
  const n = options.worldSize;
  const part = Math.floor(options.count / _PACK / n);
  if (part === 0) return n - 1;
  return Math.min(Math.floor(Math.floor(element / _PACK) / part), n - 1);
}

function _rotations(n: number): number[][] {
  return Array.from({ length: n }, (_, r) => _rotation(r, n));
}
