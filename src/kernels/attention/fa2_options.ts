/**
 * The inputs, options and result of an FA2 launch, shared by the one-thread forward
 * (`flashAttentionForward`), its plan (`planFa2`) and the runners that spread its heads over
 * threads.
 *
 * @module
 */
import type { GpuProfile } from "../../hardware/mod.ts";
import type { Fa2Mufu } from "./_fa2_arith.ts";
import type { SyncKWalk } from "./_fa2_tile_walk.ts";
import type { Fa2TileSoftmax } from "./fa2_tile_softmax.ts";
import type { Fa2KvCache } from "./fa2_kv_cache.ts";
import type { Fa2Build } from "./fa2_build.ts";
import type { Fa2SfuFunction } from "./fa2_sfu_functions.ts";
import type { Fa2SplitRange } from "./fa2_split_range.ts";

/** Q, K, V as BF16 patterns: Q [total_q, heads, d], K and V [total_k, kvHeads, d], row-major. */
export interface AttentionInputs {
  /** Q [total_q, heads, d]. */
  readonly q: Uint16Array;
  /** K [total_k, kvHeads, d]. */
  readonly k: Uint16Array;
  /** V [total_k, kvHeads, d]. */
  readonly v: Uint16Array;
}

/**
 * The shape of a whole launch of which only some sequences are computed (one sequence of a
 * serving pass): what the other sequences contribute to the arithmetic of the computed ones.
 */
export interface Fa2LaunchShape {
  /** Sequences in the launch (the batch). */
  readonly batch: number;
  /** The longest query length (`max_seqlen_q`: GQA swap and causal flag). */
  readonly maxSeqlenQ: number;
  /**
   * The longest key length (`max_seqlen_k`: split heuristic and, under the `launch` split range,
   * each split's key blocks).
   */
  readonly maxSeqlenK: number;
}

/** Options of an FA2 launch (`flashAttentionForward`, `planFa2`). */
export interface FlashAttentionOptions {
  /** Query heads (a multiple of `kvHeads`; query head h reads KV head floor(h / (heads/kvHeads))). */
  readonly heads: number;
  /** KV heads. */
  readonly kvHeads: number;
  /** Head dimension: 64, 96, 128 or 256 are modelled (`FA2_HEAD_DIMS`). */
  readonly headDim: number;
  /** Causal (bottom-right aligned) mask. */
  readonly causal: boolean;
  /**
   * Softmax scale as passed to FA2 (a float); default `headDim ** -0.5` (HF's `scaling`, a
   * Python double, rounded to the C++ `float softmax_scale`).
   */
  readonly softmaxScale?: number;
  /** Which FA2 build ran. */
  readonly build: Fa2Build;
  /** GPU profile: architecture (tile sizes) and the `mma` BF16 -> FP32 datapath. */
  readonly profile: GpuProfile;
  /** MUFU model (EX2, RCP; LG2 for split-KV launches and LSEs, e.g. an `Sfu`). */
  readonly mufu: Fa2Mufu;
  /** cu_seqlens of the queries (batch + 1 offsets); with `cuSeqlensK`, selects `mha_varlen_fwd`. */
  readonly cuSeqlensQ?: ArrayLike<number>;
  /** cu_seqlens of the keys. */
  readonly cuSeqlensK?: ArrayLike<number>;
  /** Device SM count; required by `mha_fwd` and the varlen GQA swap for the split heuristic. */
  readonly multiProcessorCount?: number;
  /**
   * The whole launch when `inputs` hold only some of its sequences: it fixes the GQA swap, the
   * causal flag, the split count and (under the `launch` split range) the split ranges; default
   * the sequences given.
   */
  readonly launch?: Fa2LaunchShape;
  /**
   * Split count passed by the caller (`flash_attn_with_kvcache`'s `num_splits` > 0), instead of
   * the heuristic; 1 to 128.
   */
  readonly numSplits?: number;
  /**
   * What fixes each split's key blocks (`fa2BlocksPerSplit`): `launch` (default), the launch's
   * `seqlen_k`, as Dao's flash-attn computes it; `sequence`, each sequence's own key length, as
   * vllm-flash-attn (vLLM 0.11's pin) computes it. Only a split launch over sequences of different
   * key lengths tells them apart.
   */
  readonly splitRange?: Fa2SplitRange;
  /**
   * A paged KV cache (vllm-flash-attn's `mha_varlen_fwd` with a `block_table`): `run_mha_fwd(params,
   * stream, paged_KV)` forces the split kernel even when one split runs (`Split = false`: its
   * 64-row, `fa2SplitTiles` KV tiles, O written to BF16 directly, no combine). The page
   * addressing itself changes no arithmetic. Default false.
   */
  readonly pagedKv?: boolean;
  /** Also return O before its BF16 rounding (diagnostics; FA2's `out_accum` form). */
  readonly returnFp32?: boolean;
  /** Return the LSE (needs MUFU.LG2). */
  readonly returnLse?: boolean;
  /** MUFU.LG2 model overriding `mufu.lg2`; when given, the LSE is returned. */
  readonly lg2?: (x: number) => number;
  /**
   * The K-walk of the S = Q·K^T and O += P·V tile products (e.g. `GemmEngine.kWalkAuto`, the wasm
   * engine); default the plain `kWalkReference`. Every K-walk gives the same bits.
   */
  readonly kWalk?: SyncKWalk;
  /**
   * The online softmax of a tile on flat state arrays, for this launch's build and MUFU model
   * (e.g. the wasm engine's `fa2TileSoftmax`); default the TypeScript step. Same bits either way.
   */
  readonly tileSoftmax?: Fa2TileSoftmax;
  /**
   * Complete KV tiles kept across the launches that name this cache (`fa2KvCache`): the decode
   * steps of one sequence over its growing KV cache. The caller vouches that every launch naming
   * it reads its sequence's K and V rows at the same buffer offsets, unchanged while the cache is
   * in use. Same bits with or without it.
   */
  readonly kvCache?: Fa2KvCache;
}

/** Output of an FA2 launch. */
export interface FlashAttentionResult {
  /** O [total_q, heads, d], BF16 patterns. */
  readonly out: Uint16Array;
  /** LSE [heads, total_q], FP32 patterns (with `returnLse` or `lg2`). */
  readonly lse?: Uint32Array;
  /** O before the BF16 rounding, FP32 patterns, same layout (only with `returnFp32`). */
  readonly outF32?: Uint32Array;
  /** KV splits the launch ran (1: the standard kernel; more: split kernel + combine). */
  readonly splits: number;
  /** The MUFU functions whose bits reach this result (see `fa2SfuFunctions`). */
  readonly sfuFunctionsUsed: readonly Fa2SfuFunction[];
}

/**
 * Runs the FA2 forward (`flashAttentionForward`, or a thread pool's `forward`; same bits), and,
 * where it has `batch`, a batch of launches over one KV cache (`flashAttentionBatch`, or the
 * pool's `forwardBatch`; same bits as one call per launch).
 */
export type Fa2Forward =
  & ((
    inputs: AttentionInputs,
    options: FlashAttentionOptions,
  ) => FlashAttentionResult | Promise<FlashAttentionResult>)
  & {
    readonly batch?: (
      launches: readonly {
        readonly inputs: AttentionInputs;
        readonly options: FlashAttentionOptions;
      }[],
    ) => FlashAttentionResult[] | Promise<FlashAttentionResult[]>;
  };
