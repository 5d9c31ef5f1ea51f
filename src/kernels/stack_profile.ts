/**
 * Software-stack profiles: the smaller JSON kind that names the libraries a computation ran on,
 * apart from the hardware profile. Schema `bitaudit.stack-profile/v1`:
 * ```
 * { "schema", "id", "name", "components": {name: version}, "gemm": {"kernelSource": "recipe"|"catalog"},
 *   "sfu"?: {"mode": "tesla-table"|"ieee", "minimumStatus": <SFU validation status>},
 *   "operators"?: {"torch": "<major.minor.patch>", "attention": <attention backend id>,
 *                  "batching"?: "pad-to-longest"|"flatten", "experts"?: <MoE experts implementation>,
 *                  "tensorParallel"?: <tensor-parallel layout id>,
 *                  "layerKernels"?: <layer kernel set id>,
 *                  "cudaGraphs"?: {"mode": "piecewise"|"full-and-piecewise",
 *                                  "captureSizes": [n, ...]},
 *                  "allReduceSetup"?: {"customAllReduce", "torchSymmMem", "ncclSymmMem",
 *                                      "fullyConnected", "multicast": bool,
 *                                      "customAllReduceAlgo"?: "1stage"|"2stage"}},
 *   "sources": [..] }
 * ```
 * Later versions add optional sections without changing these fields.
 *
 * @module
 */
import { fieldsOf, ints, oneOf, onlyKnown, str, strings } from "../json_fields.ts";
import type { SfuValidationStatus } from "../hardware/mod.ts";
import { ATTENTION_BACKEND_IDS, type AttentionBackendId } from "./attention_backend.ts";
import { LAYER_KERNELS_IDS, type LayerKernelsId } from "./layer_kernels.ts";
import { componentName } from "./stack_components.ts";
import { MOE_EXPERTS_IDS, type MoeExpertsId } from "./moe_experts.ts";
import {
  TENSOR_PARALLEL_LAYOUT_IDS,
  type TensorParallelLayoutId,
} from "./tensor_parallel_layout.ts";

/** A validated stack profile. */
export interface StackProfile {
  /** Schema of the profile file. */
  readonly schema: "bitaudit.stack-profile/v1";
  /** Profile id. */
  readonly id: string;
  /** Human-readable name. */
  readonly name: string;
  /** Component versions, e.g. `{cutlass: "3.5.0"}`. */
  readonly components: Readonly<Record<string, string>>;
  /** Where GEMM kernels come from: an explicit recipe per call, or a dispatch catalog lookup. */
  readonly gemm: { readonly kernelSource: "recipe" | "catalog" };
  /**
   * Special-function units: the hardware lookup-table model or correctly rounded IEEE results (a
   * stack built on strict-IEEE kernel libraries), and the weakest validation status of the SFU
   * model the stack accepts (see `meetsSfuStatus`); absent for stacks that use no SFU.
   */
  readonly sfu?: {
    readonly mode: "tesla-table" | "ieee";
    readonly minimumStatus: SfuValidationStatus;
  };
  /**
   * The PyTorch-level operators (norms, activations, attention) of a transformer layer: the torch
   * version (it fixes the reduce-kernel tree, see `reduceStackForTorch`) and the attention backend
   * that ran (see `attentionBackend`); absent for stacks that run GEMMs only.
   */
  readonly operators?: {
    readonly torch: string;
    readonly attention: AttentionBackendId;
    /**
     * How a batch of sequences becomes GEMM rows: HF pads to the longest sequence (B x L_max
     * rows, right padding), vLLM-style engines flatten (M = total tokens). Default
     * `pad-to-longest`.
     */
    readonly batching?: "pad-to-longest" | "flatten";
    /** How MoE experts run (see `MOE_EXPERTS_IDS`); absent: MoE layers are not verifiable. */
    readonly experts?: MoeExpertsId;
    /**
     * How the stack splits a layer over tensor-parallel ranks (see `tensorParallelLayout`);
     * absent: records with TP above 1 are not verifiable.
     */
    readonly tensorParallel?: TensorParallelLayoutId;
    /**
     * The kernels of the layer's norms, RoPE and activation and the shape of its projections (see
     * `layerKernels`); default `torch` (HF Transformers on eager PyTorch).
     */
    readonly layerKernels?: LayerKernelsId;
    /** CUDA graphs of a serving engine (vLLM); absent: every pass runs eagerly at its size. */
    readonly cudaGraphs?: StackCudaGraphs;
    /**
     * What vLLM's all-reduce dispatch reads besides the message and the device (see
     * `vllmAllReducePath`): with it a verifier recomputes the path each message takes and FAILs
     * a record that names another; absent: no rule is applied.
     */
    readonly allReduceSetup?: StackAllReduceSetup;
  };
  /** Where the profile's facts come from. */
  readonly sources: readonly string[];
}

/**
 * The CUDA graphs a vLLM engine captured: the runtime mode (`piecewise`: every pass up to the
 * largest capture size runs its non-attention kernels in the graph captured for the smallest
 * capture size that holds its tokens, attention eagerly at the real size; `full-and-piecewise`,
 * vLLM 0.11's default: uniform decode batches also replay attention from a full graph) and the
 * capture sizes (`compilation_config.cudagraph_capture_sizes` as vLLM resolved them, ascending).
 */
export interface StackCudaGraphs {
  /** The runtime mode. */
  readonly mode: "piecewise" | "full-and-piecewise";
  /** Capture sizes in tokens, strictly ascending. */
  readonly captureSizes: readonly number[];
}

/** The environment and topology vLLM's all-reduce dispatch reads, as a stack fixes them. */
export interface StackAllReduceSetup {
  /** The custom all-reduce starts (not `--disable-custom-all-reduce`, one node, P2P). */
  readonly customAllReduce: boolean;
  /** `VLLM_ALLREDUCE_USE_SYMM_MEM`. */
  readonly torchSymmMem: boolean;
  /** `VLLM_USE_NCCL_SYMM_MEM`. */
  readonly ncclSymmMem: boolean;
  /** Every GPU of the group NVLink-connected. */
  readonly fullyConnected: boolean;
  /** Symmetric memory gets a multicast pointer (NVSwitch). */
  readonly multicast: boolean;
  /** `VLLM_CUSTOM_ALLREDUCE_ALGO`, when set. */
  readonly customAllReduceAlgo?: "1stage" | "2stage";
}

/** Most capture sizes a profile may list (vLLM's default list has 67). */
const _MAX_CAPTURE_SIZES = 1024;

/**
 * Validates a stack profile.
 *
 * @param json parsed JSON
 * @returns the frozen profile
 * @throws {TypeError|RangeError} naming the bad field
 * @example
 * ```ts
 * import { parseStackProfile } from "./stack_profile.ts";
 * const s = parseStackProfile({
 *   schema: "bitaudit.stack-profile/v1", id: "x", name: "X", components: {},
 *   gemm: { kernelSource: "recipe" }, sources: [],
 * });
 * if (s.gemm.kernelSource !== "recipe") throw new Error();
 * ```
 */
export function parseStackProfile(json: unknown): StackProfile {
  const f = fieldsOf(json, "stack");
  onlyKnown(f, ["schema", "id", "name", "components", "gemm", "sfu", "operators", "sources"]);
  if (str(f, "schema") !== "bitaudit.stack-profile/v1") {
    throw new RangeError("Cannot read 'stack.schema': expected 'bitaudit.stack-profile/v1'");
  }
  const comps = fieldsOf(f.obj.components, "stack.components");
  const components: Record<string, string> = {};
  const named = new Map<string, string>();
  for (const key of Object.keys(comps.obj)) {
    components[key] = str(comps, key);
    // One key a library, written as the rules that read the stack look it up (`vllm`).
    const name = componentName(key);
    const twin = named.get(name);
    if (twin !== undefined) {
      throw new RangeError(
        `Cannot read 'stack.components': '${twin}' and '${key}' name one component`,
      );
    }
    named.set(name, key);
    if (name === "vllm" && key !== "vllm") {
      throw new RangeError(`Cannot read 'stack.components.${key}': vLLM's release is named 'vllm'`);
    }
  }
  const gemm = fieldsOf(f.obj.gemm, "stack.gemm");
  onlyKnown(gemm, ["kernelSource"]);
  const operators = f.obj.operators === undefined ? undefined : _operators(f.obj.operators);
  if (operators !== undefined) _oneEngine(components, operators);
  return Object.freeze({
    schema: "bitaudit.stack-profile/v1",
    id: str(f, "id", /^[a-z0-9][a-z0-9._-]{0,63}$/),
    name: str(f, "name"),
    components: Object.freeze(components),
    gemm: Object.freeze({
      kernelSource: oneOf(gemm, "kernelSource", ["recipe", "catalog"] as const),
    }),
    ...(f.obj.sfu === undefined ? {} : { sfu: _sfu(f.obj.sfu) }),
    ...(operators === undefined ? {} : { operators }),
    sources: Object.freeze([...strings(f, "sources")]),
  });
}

/**
 * Whether a stack is vLLM's: it names a vLLM release (`components.vllm`). For a parsed profile
 * with operators this is the same as running vLLM's layer kernels (`parseStackProfile` refuses a
 * profile where the two disagree), so every rule that differs between vLLM and HF Transformers
 * (the LM head's rows, cascade attention, data parallelism) asks this one question.
 *
 * @param stack the stack profile
 * @returns true for a vLLM stack
 * @example
 * ```ts
 * import { isVllmStack, parseStackProfile } from "./stack_profile.ts";
 * const s = parseStackProfile({
 *   schema: "bitaudit.stack-profile/v1", id: "x", name: "X", components: {},
 *   gemm: { kernelSource: "recipe" }, sources: [],
 * });
 * if (isVllmStack(s)) throw new Error();
 * ```
 */
export function isVllmStack(stack: Pick<StackProfile, "components">): boolean {
  return Object.hasOwn(stack.components, "vllm");
}

/** The attention backends only vLLM runs. */
const _VLLM_ATTENTION: ReadonlySet<string> = new Set(["fa2-vllm-paged", "fa3-vllm"]);

/** Operators that either engine's stack may name. */
const _EITHER: ReadonlySet<string> = new Set(["flashinfer", "fused-moe"]);

/**
 * Refuses a profile that mixes engines: vLLM's layer kernels, attention backends, MoE experts,
 * tensor-parallel layout, CUDA graphs and all-reduce setup belong to a stack naming its vLLM
 * release, and such a stack runs vLLM's layer kernels and flattened batches, with none of HF's
 * attention backends, experts or tensor-parallel plan.
 */
function _oneEngine(
  components: Readonly<Record<string, string>>,
  ops: NonNullable<StackProfile["operators"]>,
): void {
  const vllm = isVllmStack({ components });
  const kernels = ops.layerKernels ?? "torch";
  if (vllm !== kernels.startsWith("vllm-")) {
    throw new RangeError(
      "Cannot read 'stack.operators.layerKernels': " +
        (vllm
          ? `a stack naming vLLM (components.vllm) runs vLLM's layer kernels, not '${kernels}'`
          : `layer kernels '${kernels}' are vLLM's: the stack must name its vLLM release ` +
            "(components.vllm)"),
    );
  }
  const parts = [
    ["attention", ops.attention, _VLLM_ATTENTION.has(ops.attention)],
    ["experts", ops.experts, ops.experts?.startsWith("vllm-")],
    ["tensorParallel", ops.tensorParallel, ops.tensorParallel?.startsWith("vllm-")],
  ] as const;
  for (const [key, value, vllmPart] of parts) {
    // FlashInfer and the other fused MoE kernels (SGLang's, CUTLASS's) are no one engine's.
    if (value === undefined || _EITHER.has(value) || vllmPart === vllm) continue;
    throw new RangeError(
      `Cannot read 'stack.operators.${key}': ` +
        (vllm
          ? `'${value}' is not vLLM's, on a stack naming vLLM (components.vllm)`
          : `'${value}' is vLLM's, on a stack that names no vLLM release (components.vllm)`),
    );
  }
  if (vllm && ops.batching !== undefined && ops.batching !== "flatten") {
    throw new RangeError(
      `Cannot read 'stack.operators.batching': vLLM flattens its batches, not '${ops.batching}'`,
    );
  }
  for (const key of ["cudaGraphs", "allReduceSetup"] as const) {
    if (!vllm && ops[key] !== undefined) {
      throw new RangeError(
        `Cannot read 'stack.operators.${key}': vLLM's setting, on a stack that names no vLLM ` +
          "release (components.vllm)",
      );
    }
  }
}

function _sfu(json: unknown): { mode: "tesla-table" | "ieee"; minimumStatus: SfuValidationStatus } {
  const f = fieldsOf(json, "stack.sfu");
  onlyKnown(f, ["mode", "minimumStatus"]);
  return Object.freeze({
    mode: oneOf(f, "mode", ["tesla-table", "ieee"] as const),
    minimumStatus: oneOf(
      f,
      "minimumStatus",
      [
        "model-only",
        "spot-checked",
        "histogram-matched",
        "exhaustive-on-gpu",
        "ieee-exact",
      ] as const,
    ),
  });
}

function _operators(json: unknown): NonNullable<StackProfile["operators"]> {
  const f = fieldsOf(json, "stack.operators");
  onlyKnown(f, [
    "torch",
    "attention",
    "batching",
    "experts",
    "tensorParallel",
    "layerKernels",
    "cudaGraphs",
    "allReduceSetup",
  ]);
  return Object.freeze({
    torch: str(f, "torch", /^\d+\.\d+(\.\d+)?([a-z0-9.+-]*)$/),
    attention: oneOf(f, "attention", ATTENTION_BACKEND_IDS),
    ...(f.obj.batching === undefined
      ? {}
      : { batching: oneOf(f, "batching", ["pad-to-longest", "flatten"] as const) }),
    ...(f.obj.experts === undefined ? {} : { experts: oneOf(f, "experts", MOE_EXPERTS_IDS) }),
    ...(f.obj.tensorParallel === undefined
      ? {}
      : { tensorParallel: oneOf(f, "tensorParallel", TENSOR_PARALLEL_LAYOUT_IDS) }),
    ...(f.obj.layerKernels === undefined
      ? {}
      : { layerKernels: oneOf(f, "layerKernels", LAYER_KERNELS_IDS) }),
    ...(f.obj.cudaGraphs === undefined ? {} : { cudaGraphs: _cudaGraphs(f.obj.cudaGraphs) }),
    ...(f.obj.allReduceSetup === undefined
      ? {}
      : { allReduceSetup: _allReduceSetup(f.obj.allReduceSetup) }),
  });
}

function _allReduceSetup(json: unknown): StackAllReduceSetup {
  const f = fieldsOf(json, "stack.operators.allReduceSetup");
  const flags = ["customAllReduce", "torchSymmMem", "ncclSymmMem", "fullyConnected", "multicast"];
  onlyKnown(f, [...flags, "customAllReduceAlgo"]);
  const out: Record<string, unknown> = {};
  for (const k of flags) {
    if (typeof f.obj[k] !== "boolean") {
      throw new TypeError(`Cannot read 'stack.operators.allReduceSetup.${k}': expected a boolean`);
    }
    out[k] = f.obj[k];
  }
  if (f.obj.customAllReduceAlgo !== undefined) {
    out.customAllReduceAlgo = oneOf(f, "customAllReduceAlgo", ["1stage", "2stage"] as const);
  }
  return Object.freeze(out) as unknown as StackAllReduceSetup;
}

function _cudaGraphs(json: unknown): StackCudaGraphs {
  const f = fieldsOf(json, "stack.operators.cudaGraphs");
  onlyKnown(f, ["mode", "captureSizes"]);
  const mode = oneOf(f, "mode", ["piecewise", "full-and-piecewise"] as const);
  const raw = f.obj.captureSizes;
  if (Array.isArray(raw) && raw.length > _MAX_CAPTURE_SIZES) {
    throw new RangeError(
      `Cannot read 'stack.operators.cudaGraphs.captureSizes': more than ${_MAX_CAPTURE_SIZES} sizes`,
    );
  }
  // A capture size is a token count of one pass (vLLM caps it by max_num_batched_tokens):
  // 65,536 bounds the padded launches a stack can ask for.
  const sizes = ints(f, "captureSizes", { min: 1, max: 65536 });
  if (sizes.length === 0 || sizes.some((s, i) => i > 0 && s <= sizes[i - 1]!)) {
    throw new RangeError(
      "Cannot read 'stack.operators.cudaGraphs.captureSizes': expected a non-empty, strictly " +
        "ascending list",
    );
  }
  return Object.freeze({ mode, captureSizes: Object.freeze([...sizes]) });
}
