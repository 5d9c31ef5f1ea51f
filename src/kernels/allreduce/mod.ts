/**
 * Tensor-parallel all-reduce orders as data (spec `parallel_and_vllm.md` §A2): a row-parallel
 * linear (o_proj, down_proj) leaves one BF16 partial per rank, and {@link allReduce} sums them in
 * the order and precision of the implementation a plan names: vLLM's custom all-reduce (FP32
 * accumulation, one rounding; one stage in rank order, two stages from the owning rank),
 * PyTorch's symmetric-memory two-shot (BF16 per add, rank order), NCCL ring and tree (BF16 per
 * hop, the element -> channel -> chunk -> ring position map of the work descriptor).
 * {@link vllmAllReducePath} recomputes which path vLLM takes for a message size;
 * {@link allReduceUnsupported} names the paths that cannot be replayed (NVLS/multimem,
 * FlashInfer, NCCL symmetric kernels) and why. Everything here is derived from source only: no
 * multi-GPU measurement exists yet.
 *
 * @example
 * ```ts
 * import { allReduce, allReduceUnsupported, vllmAllReducePath } from "./mod.ts";
 * const partials = [0x3f80, 0x3b80, 0x3b80, 0].map((v) => new Uint16Array(8).fill(v));
 * const choice = vllmAllReducePath({
 *   worldSize: 4, messageBytes: 16, deviceCapability: "8.0", fullyConnected: true, multicast: false,
 * });
 * if (choice.path !== "vllm-custom-1stage") throw new Error();
 * const out = allReduce(partials, { kind: "vllm-custom-1stage", worldSize: 4 });
 * if (out[0] !== 0x3f81) throw new Error(); // 1 + 2^-7: FP32 accumulation, one rounding
 * if (allReduceUnsupported("torch-symm-mem-multimem") === null) throw new Error();
 * ```
 * @module
 */
export { allReduce } from "./all_reduce.ts";
export {
  type Interconnect,
  type InterconnectFacts,
  interconnectFacts,
  INTERCONNECTS,
  isInterconnect,
} from "./interconnect.ts";
export {
  interconnectContradiction,
  interconnectsOf,
  type LinkedGpu,
  linksClause,
} from "./interconnect_contradiction.ts";
export {
  type AllReduceKind,
  allReduceUnsupported,
  isModelledAllReduceKind,
  isUnmodelledAllReduceKind,
  MODELLED_ALL_REDUCE_KINDS,
  type ModelledAllReduceKind,
  UNMODELLED_ALL_REDUCE_KINDS,
  type UnmodelledAllReduceKind,
} from "./all_reduce_kinds.ts";
export {
  type ClaimedAllReduce,
  claimedAllReduceUnsupported,
  type ClaimedNcclAllReduce,
  type ClaimedVllmDispatch,
  messageAllReducePlan,
  parseClaimedAllReduce,
  type PlainAllReduceKind,
  VLLM_DISPATCH,
} from "./claimed_all_reduce.ts";
export {
  type AllReducePlan,
  type NcclPlanBase,
  type NcclRingPlan,
  type NcclTree,
  type NcclTreePlan,
  parseAllReducePlan,
  type TorchSymmMemTwoShotPlan,
  type VllmCustomPlan,
} from "./all_reduce_plan.ts";
export {
  NCCL_GRAIN_BYTES,
  NCCL_SIMPLE_RING_CHUNK_BYTES,
  type NcclCbd,
  type NcclChannelPart,
  ncclChannelParts,
  type NcclProtocol,
  ncclSingleChannelCbd,
} from "./nccl_cbd.ts";
export { type NcclEnvFinding, ncclEnvFinding } from "./nccl_env.ts";
export { ncclRingAllReduce } from "./nccl_ring_all_reduce.ts";
export { ncclTreeAllReduce } from "./nccl_tree_all_reduce.ts";
export {
  TORCH_SYMM_MEM_SPECIALISED_WORLD_SIZES,
  torchSymmMemTwoShot,
} from "./torch_symm_mem_two_shot.ts";
export {
  allReducePathOf,
  VLLM_ALL_REDUCE_PATHS,
  type VllmAllReduceChoice,
  type VllmAllReducePath,
  vllmAllReducePath,
  type VllmAllReduceSetup,
} from "./vllm_all_reduce_path.ts";
export { vllmCustomAllReduce, vllmTwoStageOwner } from "./vllm_custom_all_reduce.ts";
