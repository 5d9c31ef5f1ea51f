/**
 * NCCL ring all-reduce on BF16 (NCCL v2.27.3-1 `src/device/all_reduce.h` `runRing`; spec
 * `parallel_and_vllm.md` §A2.3 [V]).
 *
 * @module
 */
import type { NcclRingPlan } from "./all_reduce_plan.ts";
import { ncclCoveringParts } from "./nccl_cbd.ts";
import { _checkPartials, _foldBf16 } from "./_fold.ts";

/** BF16 elements per 16 bytes: the tail loop aligns its chunk to `16 / sizeof(T)`. */
const _ALIGN = 8;

/**
 * The ring all-reduce. Per channel (its part from {@link ncclChannelParts}), the buffer is walked
 * in loops of `nranks * chunkCount` elements, the last loop with `chunkCount =
 * alignUp(divUp(rem, nranks), 8)`; loop-relative element e lies in chunk `floor(e / chunkCount)`.
 * The rank at ring position p sends chunk p-1 first, then receives, adds its own value
 * (`reduceCopyPacks`: source 0 is the local input, `FuncSum<bf16>` = `__hadd2`) and forwards;
 * the rank at position c finishes chunk c. So chunk c's value is the BF16 left fold over the
 * ranks at positions c+1, c+2, ..., c (mod n), rounded after every hop, computed once and copied
 * to every rank. Slices and protocol packing only split the transfers; they do not change which
 * chunk an element belongs to nor the per-element adds (LL/LL128 share `FuncSum`: [I] in the
 * spec).
 *
 * Evidence: derived from source only (no multi-GPU measurement exists).
 *
 * @param partials per-rank BF16 partials (rank r at index r), one length
 * @param plan world size, protocol, cbd and one ring per channel
 * @returns the reduced BF16 tensor (identical on every rank)
 * @throws {TypeError} when a partial is not a `Uint16Array`
 * @throws {RangeError} when the partials do not match the world size or the cbd's element total
 * @example
 * ```ts
 * import { ncclRingAllReduce } from "./nccl_ring_all_reduce.ts";
 * import { ncclSingleChannelCbd } from "./nccl_cbd.ts";
 * const x = [0x3f80, 0x3b80, 0x3b80, 0].map((v) => new Uint16Array([v]));
 * const cbd = ncclSingleChannelCbd(1, { chunkBytes: 512, protocol: "simple" });
 * const plan = { kind: "nccl-ring", worldSize: 4, protocol: "simple", cbd, rings: [[0, 1, 2, 3]] } as const;
 * // Element 0 is chunk 0: folded from position 1 (ranks 1, 2, 3, then 0): 2^-7, then 1 + 2^-7.
 * if (ncclRingAllReduce(x, plan)[0] !== 0x3f81) throw new Error();
 * ```
 */
export function ncclRingAllReduce(
  partials: readonly Uint16Array[],
  plan: NcclRingPlan,
): Uint16Array {
  const n = plan.worldSize;
  const count = _checkPartials(partials, n);
  const parts = ncclCoveringParts({ ...plan, nChannels: plan.rings.length }, count);
  const out = new Uint16Array(count);
  parts.forEach((part, k) => {
    const orders = _chunkOrders(plan.rings[k] as readonly number[]);
    const loop = n * part.chunkCount;
    for (let start = 0; start < part.count; start += loop) {
      const rem = part.count - start;
      const chunk = rem < loop ? Math.ceil(Math.ceil(rem / n) / _ALIGN) * _ALIGN : part.chunkCount;
      const end = Math.min(loop, rem);
      for (let e = 0; e < end; e++) {
        const g = part.offset + start + e;
        out[g] = _foldBf16(partials, g, orders[Math.floor(e / chunk)] as number[]);
      }
    }
  });
  return out;
}

/** For each chunk c, the ranks at ring positions c+1, c+2, ..., c. */
function _chunkOrders(ring: readonly number[]): number[][] {
  const n = ring.length;
  return Array.from(
    { length: n },
    (_, c) => Array.from({ length: n }, (_, i) => ring[(c + 1 + i) % n] as number),
  );
}
