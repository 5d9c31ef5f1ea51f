/**
 * Attention backends a software stack can run, as data: which ones this emulator models and, for
 * the others, why not. The backend is a stack property (HF `attn_implementation`, the SDPA
 * priority of the PyTorch version, the wheel that is installed); spec `stack_pytorch_hf.md` §1.4,
 * §3.1, §3.2.
 *
 * @module
 */
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2Build,
  type Fa2SplitRange,
} from "./attention/mod.ts";

/** Attention backends a stack profile can name. */
export const ATTENTION_BACKEND_IDS = [
  "fa2-dao-fastmath",
  "fa2-pytorch-bundled",
  "fa2-vllm-paged",
  "fa3-vllm",
  "flashinfer",
  "cudnn-sdpa",
  "sdpa-mem-efficient",
  "eager",
] as const;
Object.freeze(ATTENTION_BACKEND_IDS);

/** One of {@link ATTENTION_BACKEND_IDS}. */
export type AttentionBackendId = typeof ATTENTION_BACKEND_IDS[number];

/**
 * Where an attention core runs: a prefill forward over a padded or flattened batch, a serving
 * replay (varlen passes over a KV cache, split-KV decode), or a one-sequence block claim.
 */
export type AttentionDriver = "prefill" | "serving" | "block";

/** What the emulator can do with a backend in one driver. */
export type AttentionBackendSupport =
  | {
    readonly modelled: true;
    readonly id: AttentionBackendId;
    /** The FA2 build, or null for HF's eager attention (batched GEMMs and a softmax). */
    readonly build: Fa2Build | null;
    /** Whether K and V are read from a paged cache (the split kernel always runs). */
    readonly paged: boolean;
    /**
     * What fixes each split's key blocks in the FA2 source the backend runs
     * (`fa2BlocksPerSplit`): the launch's longest key length (Dao) or each sequence's own
     * (vllm-flash-attn).
     */
    readonly splitRange: Fa2SplitRange;
  }
  | { readonly modelled: false; readonly id: AttentionBackendId; readonly reason: string };

/** One backend: its FA2 build (or none) and, per driver, true or why it is not modelled there. */
interface _Backend {
  readonly build: Fa2Build | null;
  readonly paged?: true;
  /** The FA2 source's split range, when not Dao's `launch`. */
  readonly splitRange?: Fa2SplitRange;
  readonly drivers: Readonly<Record<AttentionDriver, true | string>>;
  /**
   * The architectures the kernels are built for and can run on (`sm_80`: 80): from `sm` on, up
   * to `upTo` when the kernels use instructions of that architecture alone; with why.
   */
  readonly needs?: { readonly sm: number; readonly upTo?: number; readonly why: string };
}

/** What FlashAttention-2 needs in every build (Dao's, PyTorch's bundled copy, vLLM's). */
const _FA2_NEEDS = {
  sm: 80,
  why: "FlashAttention-2 is built for Ampere and later (its kernels refuse compute capability " +
    "below 8.0)",
} as const;

const _EVERYWHERE = { prefill: true, serving: true, block: true } as const;
const _NOWHERE = (why: string) => ({ prefill: why, serving: why, block: why });

/** The registry: every backend a stack can name, and where each is modelled. */
const _BACKENDS: Readonly<Record<AttentionBackendId, _Backend>> = {
  "fa2-dao-fastmath": { build: FA2_DAO_FASTMATH, needs: _FA2_NEEDS, drivers: _EVERYWHERE },
  "fa2-pytorch-bundled": { build: FA2_PYTORCH_BUNDLED, needs: _FA2_NEEDS, drivers: _EVERYWHERE },
  // vLLM 0.11's FLASH_ATTN backend with FA version 2 (A100's default; H100 with
  // VLLM_FLASH_ATTN_VERSION=2): vllm-flash-attn's FA2 is Dao's kernel source built with
  // `--use_fast_math` (vllm-project/flash-attention CMakeLists.txt: VLLM_FA_GPU_FLAGS), called by
  // `mha_varlen_fwd` over the paged cache (block size 16), which forces the split kernel
  // (csrc/flash_attn/flash_api.cpp: `run_mha_fwd(params, stream, paged_KV)`; splits only in the
  // decode GQA swap). Its split kernel takes each split's key blocks from the sequence's own key
  // length (`flash_fwd_kernel.h` :528 `binfo.actual_seqlen_k`, where Dao's reads
  // `params.seqlen_k`: `fa2BlocksPerSplit`). Derived from source only.
  "fa2-vllm-paged": {
    build: FA2_DAO_FASTMATH,
    paged: true,
    splitRange: "sequence",
    needs: _FA2_NEEDS,
    drivers: {
      prefill: true,
      serving: true,
      block: "vLLM's paged attention in block claims is not modelled (verify the forward or " +
        "served sequences instead)",
    },
  },
  "fa3-vllm": {
    build: null,
    // FlashAttention-3's kernels are built on Hopper's wgmma and TMA, instructions of sm_90a
    // alone: vllm-flash-attn builds them for 9.0a only, and vLLM takes FA3 on compute
    // capability 9.x only (on Blackwell it falls back to FA2 or FlashInfer).
    needs: {
      sm: 90,
      upTo: 90,
      why: "FlashAttention-3 runs on Hopper's wgmma and TMA (sm_90a instructions)",
    },
    drivers: _NOWHERE(
      "FlashAttention-3 (vLLM's default on sm_90: Hopper wgmma tiles, intra-warpgroup " +
        "pipelining, its own dynamic split scheduler and combine) is not modelled; set " +
        "VLLM_FLASH_ATTN_VERSION=2 to run the modelled FA2 kernel",
    ),
  },
  "flashinfer": {
    build: null,
    drivers: _NOWHERE(
      "FlashInfer attention (vLLM's default on Blackwell) has its own tiling and merge, which " +
        "are not modelled",
    ),
  },
  "cudnn-sdpa": {
    build: null,
    // PyTorch's SDPA takes cuDNN's fused attention from sm_80 on (sdp_utils.cpp).
    needs: { sm: 80, why: "PyTorch runs cuDNN's fused attention from compute capability 8.0 on" },
    drivers: _NOWHERE(
      "cuDNN fused attention (the SDPA backend recent PyTorch prefers on sm_90/sm_100) is " +
        "closed source: its tiling and reduction order cannot be derived, so it is not emulated",
    ),
  },
  "sdpa-mem-efficient": {
    build: null,
    drivers: _NOWHERE(
      "the CUTLASS memory-efficient SDPA kernel has its own tiling and softmax, which are not " +
        "modelled",
    ),
  },
  "eager": {
    build: null,
    drivers: {
      // Its batched GEMMs go through the stack's dispatch and PyTorch's softmax kernel.
      prefill: true,
      serving: "eager attention over a KV cache (decode GEMMs of one query row and a softmax " +
        "launch per pass) is not modelled",
      block: "eager attention in block claims is not modelled (prefill forward records model it)",
    },
  },
};

/**
 * Looks up a backend for a driver.
 *
 * @param id the stack's `operators.attention`
 * @param driver where the attention core runs
 * @returns the build (null for eager) or why the backend is not modelled there
 * @throws {RangeError} for an id no stack may name
 * @example
 * ```ts
 * import { attentionBackend } from "./attention_backend.ts";
 * const b = attentionBackend("fa2-dao-fastmath", "serving");
 * if (!b.modelled || b.build?.id !== "dao-fastmath" || b.splitRange !== "launch") throw new Error();
 * const v = attentionBackend("fa2-vllm-paged", "serving");
 * if (!v.modelled || !v.paged || v.splitRange !== "sequence") throw new Error();
 * if (attentionBackend("eager", "serving").modelled) throw new Error();
 * if (!attentionBackend("eager", "prefill").modelled) throw new Error();
 * ```
 */
export function attentionBackend(id: string, driver: AttentionDriver): AttentionBackendSupport {
  if (!Object.hasOwn(_BACKENDS, id)) {
    throw new RangeError(
      `Cannot look up attention backend '${id}': expected one of ${
        ATTENTION_BACKEND_IDS.join(", ")
      }`,
    );
  }
  const known = id as AttentionBackendId;
  const b = _BACKENDS[known];
  const support = b.drivers[driver];
  return support === true
    ? {
      modelled: true,
      id: known,
      build: b.build,
      paged: b.paged === true,
      splitRange: b.splitRange ?? "launch",
    }
    : { modelled: false, id: known, reason: support };
}

/**
 * Why a backend cannot run on a GPU architecture at all (its kernels need instructions an older
 * architecture lacks, or use instructions of one architecture alone), or null: a record claiming
 * it there describes a run that cannot happen.
 *
 * @param id the stack's `operators.attention`
 * @param architecture the GPU profile's architecture (`sm_80`)
 * @returns the reason, or null when it can run there (or the architecture cannot be read)
 * @example
 * ```ts
 * import { attentionBackendArchitectureGap } from "./attention_backend.ts";
 * if (attentionBackendArchitectureGap("fa3-vllm", "sm_80") === null) throw new Error();
 * if (attentionBackendArchitectureGap("fa3-vllm", "sm_90") !== null) throw new Error();
 * if (attentionBackendArchitectureGap("fa3-vllm", "sm_100") === null) throw new Error();
 * if (attentionBackendArchitectureGap("fa2-vllm-paged", "sm_80") !== null) throw new Error();
 * if (attentionBackendArchitectureGap("fa2-dao-fastmath", "sm_70") === null) throw new Error();
 * ```
 */
export function attentionBackendArchitectureGap(id: string, architecture: string): string | null {
  const needs = Object.hasOwn(_BACKENDS, id)
    ? _BACKENDS[id as AttentionBackendId].needs
    : undefined;
  const sm = /^sm_(\d+)$/.exec(architecture);
  if (needs === undefined || sm === null) return null;
  const at = Number(sm[1]);
  if (at >= needs.sm && (needs.upTo === undefined || at <= needs.upTo)) return null;
  const range = needs.upTo === undefined
    ? `sm_${needs.sm} or later`
    : needs.upTo === needs.sm
    ? `sm_${needs.sm} only`
    : `sm_${needs.sm} to sm_${needs.upTo}`;
  return `attention backend '${id}' cannot run on ${architecture}: ${needs.why} (${range})`;
}
