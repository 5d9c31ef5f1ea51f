/**
 * Which all-reduce vLLM runs for a message: `CudaCommunicator.all_reduce` of vLLM c3124680
 * (main on the 0.11 release date; spec `parallel_and_vllm.md` §A2.0-§A2.2 [V]), so that a
 * verifier can recompute the path from recorded sizes and flags and FAIL a record that claims
 * another.
 *
 * @module
 */
import type { AllReduceKind } from "./all_reduce_kinds.ts";
import { allReduceUnsupported } from "./all_reduce_kinds.ts";

/** Paths of the dispatch, in the order vLLM tries them (quick all-reduce is ROCm-only). */
export const VLLM_ALL_REDUCE_PATHS = [
  "flashinfer",
  "nccl-symm-mem",
  "vllm-custom-1stage",
  "vllm-custom-2stage",
  "torch-symm-mem-multimem",
  "torch-symm-mem-two-shot",
  "nccl",
] as const;
Object.freeze(VLLM_ALL_REDUCE_PATHS);

/** One of {@link VLLM_ALL_REDUCE_PATHS}; `nccl` is any algorithm NCCL's tuner (or NCCL_ALGO) picks. */
export type VllmAllReducePath = typeof VLLM_ALL_REDUCE_PATHS[number];

/** What the dispatch reads: the message, the group, the device and the environment. */
export interface VllmAllReduceSetup {
  /** Tensor-parallel world size (at least 2). */
  readonly worldSize: number;
  /** `numel * 2` of the BF16 tensor as all-reduced: the padded token count times hidden size. */
  readonly messageBytes: number;
  /** `get_device_capability().as_version_str()`: "8.0" (A100), "9.0" (H100), "10.0" (B200). */
  readonly deviceCapability: string;
  /** `is_fully_connected` (all GPUs of the group NVLink-connected). */
  readonly fullyConnected: boolean;
  /** The symmetric-memory rendezvous returned a multicast pointer (NVSwitch). */
  readonly multicast: boolean;
  /**
   * The custom all-reduce communicator could start: not `--disable-custom-all-reduce`, library
   * present, one node, P2P test passed (default true).
   */
  readonly customAllReduce?: boolean;
  /** `VLLM_ALLREDUCE_USE_SYMM_MEM` (default true, `envs.py:1417-1418`). */
  readonly useTorchSymmMem?: boolean;
  /** `VLLM_USE_NCCL_SYMM_MEM` and the NCCL allocator compiled (default false, `envs.py:1477`). */
  readonly useNcclSymmMem?: boolean;
  /** `VLLM_CUSTOM_ALLREDUCE_ALGO`, forcing the custom all-reduce's stage count. */
  readonly customAllReduceAlgo?: "1stage" | "oneshot" | "2stage" | "twoshot";
  /** The tensor is weakly contiguous (default true). */
  readonly weaklyContiguous?: boolean;
  /**
   * The record says FlashInfer's all-reduce (later vLLM default, PR #52998) or the fused
   * all-reduce + RMSNorm pass ran (default false). Its size rule is not read: the path is
   * `flashinfer`, which is not deterministic.
   */
  readonly flashinferAllReduce?: boolean;
}

/** The dispatch's answer. */
export interface VllmAllReduceChoice {
  /** The path taken. */
  readonly path: VllmAllReducePath;
  /** The rule that chose it, with the numbers compared. */
  readonly rule: string;
  /**
   * Why `allReduce` cannot replay this path, or null; for `nccl` it is null but the plan's
   * algorithm, protocol, channels and rings/trees must come from the record.
   */
  readonly unmodelled: string | null;
}

const MIB = 1024 * 1024;
/** `CUSTOM_ALL_REDUCE_MAX_SIZES` (`all_reduce_utils.py:30-43`), capped at the default 8 MiB. */
const _CA_MAX: Readonly<Record<string, Readonly<Record<number, number>>>> = {
  "9.0": { 2: 64 * MIB, 4: 32 * MIB, 6: MIB / 2, 8: MIB / 4 },
  "10.0": { 2: 2 * MIB, 4: 2 * MIB, 6: MIB, 8: MIB },
};
/** `SYMM_MEM_ALL_REDUCE_MAX_SIZES` (`all_reduce_utils.py:45-58`). */
const _SYMM_MAX: Readonly<Record<string, Readonly<Record<number, number>>>> = {
  "9.0": { 2: 64 * MIB, 4: 32 * MIB, 6: 64 * MIB, 8: 64 * MIB },
  "10.0": { 2: 8 * MIB, 4: 32 * MIB, 6: 128 * MIB, 8: 128 * MIB },
};
/** `SymmMemCommunicator._WORLD_SIZES_MULTIMEM` (`symm_mem.py`). */
const _MULTIMEM: Readonly<Record<string, readonly number[]>> = { "9.0": [4, 6, 8], "10.0": [6, 8] };
/** `NCCL_SYMM_MEM_ALL_REDUCE_CONFIG` thresholds (bytes at or above which NCCL symm-mem runs). */
const _NCCL_SYMM: Readonly<Record<number, number>> = { 4: 2 * MIB, 8: MIB };

/**
 * Recomputes vLLM-0.11's all-reduce path for one call (CUDA): NCCL symmetric memory if enabled
 * and large enough; else the custom all-reduce if it started, `bytes % 16 == 0`, weakly
 * contiguous and `bytes < max_size` (8 MiB, or the smaller per-capability table when torch
 * symm-mem is active), one stage or two by `custom_all_reduce.cuh:576-600`; else torch
 * symmetric memory if active (BF16, sm_90/sm_100, world size in its table, multicast) and
 * `bytes % 4 == 0` and `bytes < max`, multimem or two-shot by world size; else NCCL.
 *
 * Evidence: derived from source only (no multi-GPU measurement exists).
 *
 * @param setup message, group, device and environment
 * @returns the path, the rule, and why it is not modelled (or null)
 * @throws {RangeError} when the world size or message bytes are not valid integers
 * @example
 * ```ts
 * import { vllmAllReducePath } from "./vllm_all_reduce_path.ts";
 * const h100 = { deviceCapability: "9.0", fullyConnected: true, multicast: true };
 * // TP=8: 31 tokens of hidden 4096 (248 KiB) stay on the custom all-reduce, 32 tokens do not.
 * if (vllmAllReducePath({ ...h100, worldSize: 8, messageBytes: 31 * 8192 }).path !== "vllm-custom-1stage") throw new Error();
 * if (vllmAllReducePath({ ...h100, worldSize: 8, messageBytes: 32 * 8192 }).path !== "torch-symm-mem-multimem") throw new Error();
 * ```
 */
export function vllmAllReducePath(setup: VllmAllReduceSetup): VllmAllReduceChoice {
  const ws = setup.worldSize;
  const bytes = setup.messageBytes;
  if (!Number.isSafeInteger(ws) || ws < 2) {
    throw new RangeError(`Cannot choose an all-reduce: worldSize ${ws} is not an integer >= 2`);
  }
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError(
      `Cannot choose an all-reduce: messageBytes ${bytes} is not an integer >= 0`,
    );
  }
  const cc = setup.deviceCapability;
  if (setup.flashinferAllReduce === true) {
    return _choice("flashinfer", "the record says the FlashInfer all-reduce ran", "flashinfer");
  }
  const ncclSymm = _NCCL_SYMM[ws];
  if (
    setup.useNcclSymmMem === true && ws >= 4 &&
    (ws > 8 || (ncclSymm !== undefined && bytes >= ncclSymm))
  ) {
    return _choice(
      "nccl-symm-mem",
      `VLLM_USE_NCCL_SYMM_MEM, ws ${ws}, ${bytes} B`,
      "nccl-symm-mem",
    );
  }
  const symmMax = setup.useTorchSymmMem !== false && setup.multicast
    ? _SYMM_MAX[cc]?.[ws]
    : undefined;
  const caStarted = setup.customAllReduce !== false && [2, 4, 6, 8].includes(ws) &&
    (ws === 2 || setup.fullyConnected);
  const caMax = Math.min(
    8 * MIB,
    (symmMax !== undefined ? _CA_MAX[cc]?.[ws] : undefined) ?? 8 * MIB,
  );
  if (caStarted && bytes % 16 === 0 && setup.weaklyContiguous !== false && bytes < caMax) {
    const stages = _stages(setup, bytes);
    return _choice(
      stages.path,
      `custom all-reduce: ${bytes} B < max_size ${caMax} B; ${stages.rule}`,
    );
  }
  if (symmMax !== undefined && bytes % 4 === 0 && bytes < symmMax) {
    const multimem = (_MULTIMEM[cc] ?? []).includes(ws);
    const path = multimem ? "torch-symm-mem-multimem" : "torch-symm-mem-two-shot";
    const rule =
      `torch symm-mem: ${bytes} B < ${symmMax} B; ws ${ws} ${multimem ? "in" : "not in"} ` +
      `the multimem list of sm ${cc}`;
    return _choice(path, rule, multimem ? "torch-symm-mem-multimem" : undefined);
  }
  return _choice("nccl", `no earlier path takes ${bytes} B at ws ${ws} on sm ${cc}`);
}

/**
 * The dispatch path an implementation belongs to, to compare a record's claimed implementation
 * with {@link vllmAllReducePath}: every NCCL algorithm maps to `nccl`, both FlashInfer kinds to
 * `flashinfer`; quick all-reduce (ROCm) to null.
 *
 * @param kind implementation name
 * @returns its dispatch path, or null when vLLM's CUDA dispatch never selects it
 * @example
 * ```ts
 * import { allReducePathOf } from "./vllm_all_reduce_path.ts";
 * if (allReducePathOf("nccl-tree") !== "nccl" || allReducePathOf("quick-all-reduce") !== null) throw new Error();
 * ```
 */
export function allReducePathOf(kind: AllReduceKind): VllmAllReducePath | null {
  if (kind === "quick-all-reduce") return null;
  if (kind.startsWith("nccl-") && kind !== "nccl-symm-mem") return "nccl";
  if (kind === "flashinfer-ar-rmsnorm") return "flashinfer";
  return kind as VllmAllReducePath;
}

function _stages(
  setup: VllmAllReduceSetup,
  bytes: number,
): { path: VllmAllReducePath; rule: string } {
  const algo = setup.customAllReduceAlgo;
  if (algo === "1stage" || algo === "oneshot") {
    return { path: "vllm-custom-1stage", rule: `VLLM_CUSTOM_ALLREDUCE_ALGO=${algo}` };
  }
  if (algo === "2stage" || algo === "twoshot") {
    return { path: "vllm-custom-2stage", rule: `VLLM_CUSTOM_ALLREDUCE_ALGO=${algo}` };
  }
  const ws = setup.worldSize;
  if (ws === 2) return { path: "vllm-custom-1stage", rule: "world size 2 is always one stage" };
  const one = (ws <= 4 && bytes < 512 * 1024) || (ws <= 8 && bytes < 256 * 1024);
  return {
    path: one ? "vllm-custom-1stage" : "vllm-custom-2stage",
    rule: `ws ${ws}, ${bytes} B ${one ? "<" : ">="} the one-stage limit (512 KiB for ws <= 4, ` +
      "256 KiB for ws <= 8)",
  };
}

function _choice(
  path: VllmAllReducePath,
  rule: string,
  refused?: AllReduceKind,
): VllmAllReduceChoice {
  return Object.freeze({
    path,
    rule,
    unmodelled: refused === undefined ? null : allReduceUnsupported(refused),
  });
}
