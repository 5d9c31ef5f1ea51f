/**
 * `allReduce`: the one entry from a plan to the reduced tensor (spec `parallel_and_vllm.md` §A2).
 *
 * @module
 */
import { type AllReducePlan, parseAllReducePlan } from "./all_reduce_plan.ts";
import { ncclRingAllReduce } from "./nccl_ring_all_reduce.ts";
import { ncclTreeAllReduce } from "./nccl_tree_all_reduce.ts";
import { torchSymmMemTwoShot } from "./torch_symm_mem_two_shot.ts";
import { vllmCustomAllReduce } from "./vllm_custom_all_reduce.ts";

/**
 * Sums the ranks' BF16 partials as the named implementation does, bit for bit: the partials are
 * what each rank's row-parallel GEMM wrote (already rounded to BF16, rank 0's including any
 * bias), the result is the tensor every rank holds afterwards. The plan is validated first by
 * {@link parseAllReducePlan}. Unmodelled implementations (NVLS/multimem, FlashInfer, NCCL
 * symmetric kernels, ...) are refused by throwing: ask {@link allReduceUnsupported} first and
 * report NOT_VERIFIED.
 *
 * Evidence: every implementation is derived from source only (no multi-GPU measurement exists).
 *
 * @param partials per-rank BF16 partials, rank r (the tensor-parallel rank) at index r
 * @param plan the implementation and its parameters
 * @returns the reduced BF16 tensor
 * @throws {TypeError} when the plan or a partial has the wrong type
 * @throws {RangeError} when the plan is invalid or unmodelled (the message carries the reason),
 *   or the partials do not fit it
 * @example
 * ```ts
 * import { allReduce } from "./all_reduce.ts";
 * const x = [0x3f80, 0x3b80, 0x3b80, 0].map((v) => new Uint16Array(8).fill(v));
 * // FP32 accumulation rounds once; BF16 per add loses both 2^-8 terms to ties-to-even.
 * if (allReduce(x, { kind: "vllm-custom-1stage", worldSize: 4 })[0] !== 0x3f81) throw new Error();
 * if (allReduce(x, { kind: "torch-symm-mem-two-shot", worldSize: 4 })[0] !== 0x3f80) throw new Error();
 * ```
 */
export function allReduce(partials: readonly Uint16Array[], plan: AllReducePlan): Uint16Array {
  const p = parseAllReducePlan(plan);
  switch (p.kind) {
    case "vllm-custom-1stage":
    case "vllm-custom-2stage":
      return vllmCustomAllReduce(partials, p);
    case "torch-symm-mem-two-shot":
      return torchSymmMemTwoShot(partials, p);
    case "nccl-ring":
      return ncclRingAllReduce(partials, p);
    case "nccl-tree":
      return ncclTreeAllReduce(partials, p);
  }
}
