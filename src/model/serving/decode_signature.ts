/**
 * What fixes the bits of one sequence in a pure decode pass of B sequences (each with `context`
 * cached tokens, so key length `context + 1` and query length 1) on a flattened-batch serving
 * stack: the kernel of every GEMM at M = B, the reduce-kernel tree of every norm, and FA2's
 * split-KV launch (spec `stack_pytorch_hf.md` §4.1-§4.3, §1.1; ops.md §1.1). The GEMMs and norms
 * are the one decoder layer's calls (`layerCalls`) and the model head's, so the signature lists
 * what the layer runs; it is a function of the config alone, and a tensor-parallel rank's
 * signature is that of its view of the config (`rankView`).
 *
 * @module
 */
import {
  fa2NumSplits,
  fa2SplitTiles,
  type GemmRecipe,
  type LayerKernels,
  meanFactor,
  reduceConfig,
  type ReduceStack,
  vllmFusedNormThreads,
  vllmPaddedTokens,
  vllmRmsNormThreads,
} from "../../kernels/mod.ts";
import { type DecoderConfig, isMoeLayer } from "../checkpoint/mod.ts";
import {
  gemmCallOf,
  type GemmDispatch,
  layerCalls,
  type LayerLinear,
  type LayerProjections,
  type LayerReduction,
  type LayerReductionName,
  type ProjectionName,
  type SublayerCalls,
} from "../decoder/mod.ts";

/** One GEMM of the pass: its shape without M (M is the batch) and the kernel dispatched. */
export interface DecodeGemm {
  /** Projection name (`lm_head` for the logits). */
  readonly name: ProjectionName;
  /** Output features N. */
  readonly n: number;
  /** Reduction length K. */
  readonly k: number;
  /** The recipe the dispatch names for (M = batch, N, K); null when it does not cover it. */
  readonly recipe: GemmRecipe | null;
  /** {@link recipeSummary} of the recipe (every kwarg), or `not covered`. */
  readonly kernel: string;
  /** Why the dispatch does not cover the shape (null when covered). */
  readonly reason: string | null;
}

/**
 * The norms and reductions whose launch depends on the row count: `rms_norm` (input_layernorm,
 * post_attention_layernorm and the final norm: B rows of hidden), `q_norm` / `k_norm` (B x heads
 * and B x kvHeads rows of headDim), `topk_sum` (MoE `norm_topk_prob`: B rows of top-k).
 */
export type DecodeNormName = "rms_norm" | "q_norm" | "k_norm" | "topk_sum";

/**
 * The per-row reduction tree of one norm: the fields of `reduceConfig` that `pytorchReducePlan`
 * reads. `blockHeight` counts only when the row is split over warps (`splitY`); otherwise it is
 * the number of rows a block serves and does not touch a row's tree.
 */
export interface DecodeNorm {
  /** Which norm. */
  readonly name: DecodeNormName;
  /** Rows per sequence (1, heads or kvHeads). */
  readonly rowsPerSequence: number;
  /** Reduced length. */
  readonly length: number;
  /** Vectorised loads. */
  readonly vectorize: boolean;
  /** `blockDim.x`: lanes on one row. */
  readonly blockWidth: number;
  /** Warps (`threadIdx.y`) sharing one row: `blockHeight` when `splitY`, else 1. */
  readonly rowWarps: number;
  /** `values_per_thread`. */
  readonly valuesPerThread: number;
  /** FP32 pattern of the mean factor `float(rows) / numel` (null for a plain sum). */
  readonly meanFactor: number | null;
}

/** FA2 split-KV launch of the varlen GQA swap (S_q = 1). */
export interface DecodeAttention {
  /** Key length `context + 1`. */
  readonly seqlenK: number;
  /** `ceil(seqlenK / 128)` key blocks. */
  readonly nBlocks: number;
  /** KV splits (1: the standard kernel). */
  readonly splits: number;
  /** `n_blocks_per_split = ceil(nBlocks / splits)`: each split's key-block range. */
  readonly blocksPerSplit: number;
}

/** Everything of a decode pass at one batch size that decides a sequence's bits. */
export interface DecodeSignature {
  /** GEMMs, in layer order, then `lm_head`. */
  readonly gemms: readonly DecodeGemm[];
  /** Norms and reductions. */
  readonly norms: readonly DecodeNorm[];
  /** Attention launch. */
  readonly attention: DecodeAttention;
}

/** Options of {@link decodeSignature}. */
export interface DecodeSignatureOptions {
  /** Kernel of each GEMM (a catalog's or one fixed recipe). */
  readonly dispatch: GemmDispatch;
  /** Reduce-kernel facts of the stack's PyTorch build. */
  readonly reduceStack: ReduceStack;
  /** `multiProcessorCount` of the device (FA2's split heuristic). */
  readonly multiProcessorCount: number;
  /** Cached tokens per sequence L (key length L + 1). */
  readonly context: number;
  /**
   * The stack's layer kernels (vLLM's merged projections and CUDA norms); default HF's
   * separate projections and PyTorch's reduce kernel.
   */
  readonly layer?: Pick<LayerKernels, "norm" | "projections"> | undefined;
  /**
   * Piecewise CUDA-graph capture sizes: a batch's GEMMs and norms run at the smallest capture
   * size that holds it (attention at the batch itself); default none.
   */
  readonly captureSizes?: readonly number[] | null | undefined;
  /**
   * Rows of the LM head GEMM (a rank's block of vLLM's vocabulary padded to a multiple of 64);
   * default the config's vocabulary.
   */
  readonly lmHeadRows?: number | undefined;
}

/**
 * The signature of a pure decode pass of `batch` sequences.
 *
 * @param config the model config
 * @param options dispatch, reduce stack, SM count, context and the batch size B
 * @returns the signature
 * @throws {RangeError} on a non-positive batch or SM count, a negative context, or a reduce
 *   configuration `reduceConfig` does not model
 * @example
 * ```ts
 * import { decodeSignature, fixedRecipeDispatch, parseDecoderConfig } from "../mod.ts";
 * import { REDUCE_STACK_CUDA_RECENT as reduceStack } from "../../kernels/mod.ts";
 * const config = parseDecoderConfig({
 *   model_type: "qwen3", vocab_size: 151936, hidden_size: 2560, intermediate_size: 9728,
 *   num_hidden_layers: 36, num_attention_heads: 32, num_key_value_heads: 8, head_dim: 128,
 * });
 * const dispatch = fixedRecipeDispatch({ family: "single_walk" });
 * const o = { dispatch, reduceStack, multiProcessorCount: 108, context: 1999 };
 * const s = decodeSignature(config, { ...o, batch: 1 });
 * if (s.attention.splits !== 16 || s.norms[0]!.blockWidth !== 512) throw new Error();
 * ```
 */
export function decodeSignature(
  config: DecoderConfig,
  options: DecodeSignatureOptions & { readonly batch: number },
): DecodeSignature {
  const { batch, context, multiProcessorCount: sms } = options;
  if (!Number.isSafeInteger(batch) || batch < 1 || !Number.isSafeInteger(sms) || sms < 1) {
    throw new RangeError(`Cannot sign decode: batch ${batch} and SM count ${sms} must be positive`);
  }
  if (!Number.isSafeInteger(context) || context < 0) {
    throw new RangeError(`Cannot sign decode: context ${context} must be a non-negative integer`);
  }
  const sizes = options.captureSizes;
  const launch = sizes === undefined || sizes === null ? batch : vllmPaddedTokens(batch, sizes);
  const projections = options.layer?.projections ?? "separate";
  return Object.freeze({
    gemms: Object.freeze(
      // The LM head runs on the sampled rows outside the graphs: at the batch itself.
      _linears(config, projections, options.lmHeadRows ?? config.vocab).map((l) =>
        _gemm(options.dispatch, l, l.name === "lm_head" ? batch : launch)
      ),
    ),
    norms: Object.freeze(
      options.layer?.norm === "vllm-cuda"
        ? _vllmNorms(config, launch, projections)
        : _norms(config, launch, options.reduceStack),
    ),
    attention: _attention(config, { batch, context, sms }),
  });
}

/**
 * A recipe as one line with every kwarg, e.g. `serial_split_k(splitK=2, tileK=64)`.
 *
 * @param recipe the recipe
 * @returns the line (equal lines mean equal recipes)
 * @example
 * ```ts
 * import { recipeSummary } from "./decode_signature.ts";
 * const r = { family: "kwalk", threadblock: [128, 128, 64], warp: [64, 64, 64], instruction: [16, 8, 16] } as const;
 * if (recipeSummary(r) !== "kwalk(instruction=16x8x16, threadblock=128x128x64, warp=64x64x64)") {
 *   throw new Error();
 * }
 * if (recipeSummary({ family: "single_walk" }) !== "single_walk") throw new Error();
 * ```
 */
export function recipeSummary(recipe: GemmRecipe): string {
  const args = Object.entries(recipe)
    .filter(([key]) => key !== "family")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, v]) => `${key}=${Array.isArray(v) ? v.join("x") : String(v)}`);
  return args.length === 0 ? recipe.family : `${recipe.family}(${args.join(", ")})`;
}

/**
 * The sublayers a decode pass runs: the attention sublayer, the MoE block where a MoE layer
 * exists, the dense MLP where a dense layer does.
 */
function _sublayers(
  c: DecoderConfig,
  projections: LayerProjections = "separate",
): SublayerCalls[] {
  const calls = layerCalls(c, projections);
  const moe = Array.from({ length: c.layers }, (_, i) => isMoeLayer(c, i));
  return [
    calls.attention,
    ...(moe.includes(true) && calls.moe !== undefined ? [calls.moe] : []),
    ...(moe.includes(false) ? [calls.mlp] : []),
  ];
}

/**
 * The GEMMs of a decode pass: the layer's (a MoE expert's GEMMs run with M = the rows routed to
 * it, which the data sets, and are left out), then the LM head (N = vocabulary, K = hidden).
 */
function _linears(
  c: DecoderConfig,
  projections: LayerProjections,
  vocabRows: number,
): LayerLinear[] {
  return [
    ..._sublayers(c, projections).flatMap((s) => s.linears.filter((l) => !l.routed)),
    { name: "lm_head", n: vocabRows, k: c.hidden, bias: false, routed: false },
  ];
}

function _gemm(dispatch: GemmDispatch, linear: LayerLinear, batch: number): DecodeGemm {
  const hit = dispatch(gemmCallOf(linear, batch));
  const { name, n, k } = linear;
  return Object.freeze(
    hit.covered
      ? { name, n, k, recipe: hit.recipe, kernel: recipeSummary(hit.recipe), reason: null }
      : { name, n, k, recipe: null, kernel: "not covered", reason: hit.reason },
  );
}

/**
 * The signature's name of a layer reduction: the input and post-attention RMSNorms (and the
 * model's final norm, of the same launch) are one `rms_norm` (B rows of hidden).
 */
const _NORM_NAMES: Readonly<Record<LayerReductionName, DecodeNormName>> = {
  input_layernorm: "rms_norm",
  post_attention_layernorm: "rms_norm",
  q_norm: "q_norm",
  k_norm: "k_norm",
  topk_sum: "topk_sum",
};

/** Every reduction launch of the layer's calls (each signature name once), at B rows. */
function _norms(c: DecoderConfig, batch: number, stack: ReduceStack): DecodeNorm[] {
  const out = new Map<DecodeNormName, DecodeNorm>();
  for (const r of _sublayers(c).flatMap((s) => s.reductions)) {
    const name = _NORM_NAMES[r.name];
    if (!out.has(name)) out.set(name, _norm(name, r, { batch, stack }));
  }
  return [...out.values()];
}

/**
 * vLLM's norm launches at `launch` tokens: `fused_add_rms_norm` for the input, post-attention and
 * final norms (width 8 where the hidden size allows; one block of `min(hidden, launch < 256 ?
 * 1024 : 256)` threads per token; the first layer's input norm is `rms_norm`, whose block does
 * not depend on the batch), `rms_norm` for QK-norm (`min(head dim, 1024)` threads). The
 * division by the length replaces a mean factor (null).
 */
function _vllmNorms(
  c: DecoderConfig,
  launch: number,
  projections: LayerProjections,
): DecodeNorm[] {
  const out = new Map<DecodeNormName, DecodeNorm>();
  for (const r of _sublayers(c, projections).flatMap((s) => s.reductions)) {
    const name = _NORM_NAMES[r.name];
    if (out.has(name) || name === "topk_sum") continue;
    const fused = name === "rms_norm";
    const vec = fused && r.length % 8 === 0;
    const threads = fused ? vllmFusedNormThreads(r.length, launch) : vllmRmsNormThreads(r.length);
    out.set(
      name,
      Object.freeze({
        name,
        rowsPerSequence: r.perRow,
        length: r.length,
        vectorize: vec,
        blockWidth: threads,
        rowWarps: 1,
        valuesPerThread: Math.ceil(r.length / (vec ? 8 : 1) / threads) * (vec ? 8 : 1),
        meanFactor: null,
      }),
    );
  }
  return [...out.values()];
}

function _norm(
  name: DecodeNormName,
  r: LayerReduction,
  o: { readonly batch: number; readonly stack: ReduceStack },
): DecodeNorm {
  const rows = o.batch * r.perRow;
  const c = reduceConfig({ outputs: rows, length: r.length }, { stack: o.stack });
  return Object.freeze({
    name,
    rowsPerSequence: r.perRow,
    length: r.length,
    vectorize: c.vectorize,
    blockWidth: c.blockWidth,
    rowWarps: c.splitY ? c.blockHeight : 1,
    valuesPerThread: c.valuesPerThread,
    meanFactor: r.mean ? meanFactor(rows, rows * r.length) : null,
  });
}

function _attention(
  c: DecoderConfig,
  o: { batch: number; context: number; sms: number },
): DecodeAttention {
  const seqlenK = o.context + 1;
  const splits = fa2NumSplits({
    batch: o.batch,
    heads: c.heads,
    kvHeads: c.kvHeads,
    seqlenQ: 1,
    seqlenK,
    headDim: c.headDim,
    multiProcessorCount: o.sms,
  });
  // The split kernel's kBlockN for the head dimension (128 keys at d = 128, spec §4.3): the
  // block size the heuristic uses.
  const nBlocks = Math.ceil(seqlenK / fa2SplitTiles(c.headDim).blockN);
  return Object.freeze({
    seqlenK,
    nBlocks,
    splits,
    blocksPerSplit: Math.ceil(nBlocks / splits),
  });
}
