/**
 * The all-reduce implementations a tensor-parallel forward can run, as names: which ones this
 * emulator models and, for the others, why not (spec `parallel_and_vllm.md` §A2 and its 2026
 * addendum).
 *
 * @module
 */

/** Implementations {@link allReduce} models (each derived from source only). */
export const MODELLED_ALL_REDUCE_KINDS = [
  "vllm-custom-1stage",
  "vllm-custom-2stage",
  "torch-symm-mem-two-shot",
  "nccl-ring",
  "nccl-tree",
] as const;
Object.freeze(MODELLED_ALL_REDUCE_KINDS);

/** Implementations that are named so that a record can claim them, but are not modelled. */
export const UNMODELLED_ALL_REDUCE_KINDS = [
  "torch-symm-mem-multimem",
  "nccl-nvls",
  "nccl-nvls-tree",
  "nccl-collnet",
  "nccl-symm-mem",
  "flashinfer",
  "flashinfer-ar-rmsnorm",
  "quick-all-reduce",
] as const;
Object.freeze(UNMODELLED_ALL_REDUCE_KINDS);

/** One of {@link MODELLED_ALL_REDUCE_KINDS}. */
export type ModelledAllReduceKind = typeof MODELLED_ALL_REDUCE_KINDS[number];

/** One of {@link UNMODELLED_ALL_REDUCE_KINDS}. */
export type UnmodelledAllReduceKind = typeof UNMODELLED_ALL_REDUCE_KINDS[number];

/** Any all-reduce implementation name. */
export type AllReduceKind = ModelledAllReduceKind | UnmodelledAllReduceKind;

const _NVLS = "the NVSwitch adds the contributions (multimem.ld_reduce ... .acc::f32); its order " +
  "and intermediate rounding are not specified by the PTX ISA and only a GPU run can settle " +
  "them (spec §A2.2, §A2.3 NVLS, unknowns (ii) 1)";

const _REASONS: Readonly<Record<UnmodelledAllReduceKind, string>> = Object.freeze({
  "torch-symm-mem-multimem": `PyTorch symmetric-memory multimem all-reduce: ${_NVLS}`,
  "nccl-nvls": `NCCL NVLS all-reduce: ${_NVLS}`,
  "nccl-nvls-tree": `NCCL NVLS_TREE all-reduce: ${_NVLS}; NCCL 2.27 disables it on one node ` +
    "(spec §A2.3)",
  "nccl-collnet": "NCCL CollNet all-reduce (network-offloaded reduction) is not analysed in " +
    "the spec (§A2.3 pins NCCL_COLLNET_ENABLE=0)",
  "nccl-symm-mem": "NCCL 2.27 symmetric kernels (VLLM_USE_NCCL_SYMM_MEM=1, " +
    "src/device/symmetric/all_reduce.cuh) are not analysed (spec §A2.4)",
  "flashinfer": "the FlashInfer all-reduce backend (vLLM default after PR #52998) does not " +
    "provide a fixed reduction order: a record that used it can only be NOT_VERIFIED " +
    "(spec addendum 2026)",
  "flashinfer-ar-rmsnorm": "the fused all-reduce + RMSNorm pass (FlashInfer allreduce_fusion) " +
    "reduces in a run-to-run-varying order (vLLM issue #51290): not deterministic, so only " +
    "NOT_VERIFIED (spec §A2.4 and addendum 2026)",
  "quick-all-reduce": "vLLM quick all-reduce runs on ROCm MI300 only, not on NVIDIA GPUs " +
    "(spec §A2.4)",
});

/**
 * Tells whether an all-reduce implementation is modelled. A verifier asks before replaying a
 * record: a non-null answer is the reason to report NOT_VERIFIED instead. ({@link allReduce}
 * and {@link parseAllReducePlan} throw a `RangeError` carrying the same reason when handed an
 * unmodelled kind: that is misuse, the check belongs here.)
 *
 * @param kind implementation name
 * @returns null when modelled, else the reason it is not
 * @example
 * ```ts
 * import { allReduceUnsupported } from "./all_reduce_kinds.ts";
 * if (allReduceUnsupported("nccl-ring") !== null) throw new Error();
 * if (!allReduceUnsupported("nccl-nvls")!.includes("NVSwitch")) throw new Error();
 * ```
 */
export function allReduceUnsupported(kind: AllReduceKind): string | null {
  return (_REASONS as Readonly<Record<string, string>>)[kind] ?? null;
}

/**
 * Narrows a string to a modelled implementation name.
 *
 * @param kind any string
 * @returns whether it names a modelled implementation
 * @example
 * ```ts
 * import { isModelledAllReduceKind } from "./all_reduce_kinds.ts";
 * if (!isModelledAllReduceKind("nccl-tree") || isModelledAllReduceKind("nccl-nvls")) {
 *   throw new Error();
 * }
 * ```
 */
export function isModelledAllReduceKind(kind: string): kind is ModelledAllReduceKind {
  return (MODELLED_ALL_REDUCE_KINDS as readonly string[]).includes(kind);
}

/**
 * Narrows a string to an unmodelled (named but refused) implementation name.
 *
 * @param kind any string
 * @returns whether it names an unmodelled implementation
 * @example
 * ```ts
 * import { isUnmodelledAllReduceKind } from "./all_reduce_kinds.ts";
 * if (!isUnmodelledAllReduceKind("flashinfer")) throw new Error();
 * ```
 */
export function isUnmodelledAllReduceKind(kind: string): kind is UnmodelledAllReduceKind {
  return (UNMODELLED_ALL_REDUCE_KINDS as readonly string[]).includes(kind);
}
