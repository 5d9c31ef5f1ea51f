/**
 * The attention sublayer of a decoder layer over a whole prefill batch (spec `model.md` §2,
 * `stack_pytorch_hf.md` §1.1-§1.4, §4): the one decoder layer (`../decoder/`) on every row of the
 * layout (pads included, every row in one launch), with this driver's attention core:
 * FlashAttention-2 on the real tokens only (pad rows get a zero attention output, as FA2's
 * `pad_input` leaves them), or HF's eager attention on every padded row.
 *
 * FA2 entry point, from the batch shape and the stack: a flattened batch, or a padded batch with
 * padding, runs `flash_attn_varlen_func` (no split-KV in prefill); a padded batch
 * without padding runs `flash_attn_func` on [B, L] (`mha_fwd`), modelled per sequence when the
 * split heuristic picks the same split count for B sequences as for one. SDPA's bundled FA2 is
 * only reached without a mask: a padded batch with padding under SDPA is NOT_VERIFIED. HF's eager
 * attention (stack attention `eager`) runs on every padded row (`eager_attention.ts`).
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import {
  type Fa2Build,
  fa2NumSplits,
  type Fa2SplitRange,
  flashAttentionForward,
  type LayerKernels,
  type ReduceStack,
} from "../../kernels/mod.ts";
import type { DecoderConfig } from "../checkpoint/mod.ts";
import {
  attentionSublayer,
  type BlockRuntime,
  ForwardUnsupported,
  type LayerRope,
  type LayerTensor,
  type RankHeads,
  rankHeads,
  type TensorParallel,
} from "../decoder/mod.ts";
import type { BatchLayout } from "./batch_layout.ts";
import { eagerAttention } from "./eager_attention.ts";

/** Fixed facts of every attention block of a forward. */
export interface BatchAttentionContext {
  /** The model configuration. */
  readonly config: DecoderConfig;
  /** Where GEMMs and attention run. */
  readonly runtime: BlockRuntime;
  /** Tensor-core datapath of the GEMMs. */
  readonly datapath: Datapath;
  /** Reduction settings of the stack's norms. */
  readonly reduceStack: ReduceStack;
  /** The FA2 build that runs, or null for HF's eager attention (`eager_attention.ts`). */
  readonly build: Fa2Build | null;
  /** `torch.__version__` (eager attention's softmax kernel). */
  readonly torchVersion: string;
  /** Whether the backend is SDPA (PyTorch's bundled FA2 is then reached only without a mask). */
  readonly sdpa: boolean;
  /** The stack's norm, RoPE and activation kernels and its projections' shape. */
  readonly kernels: LayerKernels;
  /** RoPE of the layout's rows (`layerRope` of their positions). */
  readonly rope: LayerRope;
  /** K and V read from a paged cache (vLLM): FA2's split kernel always runs. */
  readonly paged: boolean;
  /** What fixes each FA2 split's key blocks (the stack's `splitRange`). */
  readonly splitRange: Fa2SplitRange;
  /**
   * Rows of every GEMM, norm and all-reduce launch: the layout's rows, or the CUDA-graph capture
   * size they are padded to (attention runs on the real rows).
   */
  readonly launchM: number;
  /** Streaming multiprocessor count (chooses FA2 splits). */
  readonly multiProcessorCount: number;
  /** RMSNorm epsilon. */
  readonly eps: number;
  /** The tensor-parallel split; absent on one GPU. */
  readonly parallel?: TensorParallel | undefined;
}

/**
 * Tells how FA2 runs a layout, or throws why it cannot be emulated (cheap: no tensor).
 *
 * @param layout the batch layout
 * @param ctx the attention context
 * @returns `eager`, `varlen`, or `per-sequence` (mha_fwd of a batch of equal lengths) with its
 *   splits
 * @throws {ForwardUnsupported} for SDPA with a padding mask, or a batched mha_fwd whose split
 *   count differs from a single sequence's
 * @example
 * ```ts ignore
 * const launch = attentionLaunch(layout, ctx);
 * ```
 */
export function attentionLaunch(
  layout: BatchLayout,
  ctx: BatchAttentionContext,
):
  | { readonly kind: "varlen" }
  | { readonly kind: "eager" }
  | { readonly kind: "per-sequence"; readonly splits: number } {
  const { config: c } = ctx;
  const batch = layout.cuSeqlens.length - 1;
  if (ctx.build === null) {
    if (layout.varlen && !layout.padded) {
      throw new ForwardUnsupported("eager attention runs on padded batches, not flattened ones");
    }
    return { kind: "eager" };
  }
  if (ctx.paged) {
    if (!layout.varlen || layout.padded) {
      throw new ForwardUnsupported(
        "vLLM's paged attention runs on flattened batches (batching 'flatten')",
      );
    }
    return { kind: "varlen" };
  }
  if (layout.varlen) {
    if (ctx.sdpa && layout.padded) {
      throw new ForwardUnsupported(
        "SDPA with a padding mask excludes its flash backend (memory-efficient or math kernels " +
          "run instead), which is not modelled",
      );
    }
    return { kind: "varlen" };
  }
  const len = layout.cuSeqlens[1]!;
  // Each rank launches FA2 on its own heads (every rank has as many).
  const rank = rankHeads(c, ctx.parallel)[0]!;
  const shape = {
    heads: rank.qn,
    kvHeads: rank.kvn,
    seqlenQ: len,
    seqlenK: len,
    headDim: c.headDim,
    multiProcessorCount: ctx.multiProcessorCount,
  };
  const splits = fa2NumSplits({ ...shape, batch });
  if (splits !== fa2NumSplits({ ...shape, batch: 1 })) {
    throw new ForwardUnsupported(
      `mha_fwd on a batch of ${batch} x ${len} tokens picks ${splits} KV split(s), which is ` +
        "modelled for single sequences only",
    );
  }
  return { kind: "per-sequence", splits };
}

/**
 * Runs the attention sublayer on the layout's rows.
 *
 * @param x sublayer input [rows, hidden], BF16 patterns
 * @param o layout, context, the layer's index and tensors `t`
 * @returns the sublayer output `bf16(x + o_proj(attn))` [rows, hidden] and the KV split count
 * @throws {ForwardUnsupported} as {@link attentionLaunch}, or when a GEMM shape is not covered
 * @example
 * ```ts ignore
 * const { out } = await runBatchAttention(x, { layout, ctx, layer, t });
 * ```
 */
export async function runBatchAttention(
  x: Uint16Array,
  o: {
    readonly layout: BatchLayout;
    readonly ctx: BatchAttentionContext;
    readonly layer: number;
    readonly t: LayerTensor;
  },
): Promise<{ out: Uint16Array; splits: number }> {
  const { layout, ctx } = o;
  const launch = attentionLaunch(layout, ctx);
  return await attentionSublayer(x, {
    ctx: { ...ctx, layer: o.layer, launchRows: new Int32Array(layout.rows).fill(ctx.launchM) },
    t: o.t,
    rope: ctx.rope,
    core: (q, k, v, rank) => _core({ q, k, v }, { layout, ctx, launch, rank }),
  });
}

/** This driver's attention core: FA2 (varlen, or per sequence) or eager, over the layout. */
async function _core(
  t: { q: Uint16Array; k: Uint16Array; v: Uint16Array },
  o: {
    layout: BatchLayout;
    ctx: BatchAttentionContext;
    launch: ReturnType<typeof attentionLaunch>;
    rank: RankHeads;
  },
): Promise<{ core: Uint16Array; splits: number }> {
  const { layout, ctx, launch } = o;
  const { headDim: d } = ctx.config;
  const { qn: heads, kvn: kvHeads } = o.rank;
  const { q: qr, k: kr, v } = t;
  const m = layout.rows;
  let core: Uint16Array = new Uint16Array(m * heads * d); // FA2: pad rows stay zero
  const forward = ctx.runtime.attention ?? flashAttentionForward;
  const fa2 = {
    heads,
    kvHeads,
    headDim: d,
    causal: true,
    build: ctx.build!,
    profile: ctx.runtime.profile,
    mufu: ctx.runtime.sfu,
    multiProcessorCount: ctx.multiProcessorCount,
  };
  let splits = 1;
  if (launch.kind === "eager") {
    core = await eagerAttention({ q: qr, k: kr, v }, {
      layout,
      heads,
      kvHeads,
      headDim: d,
      runtime: ctx.runtime,
      datapath: ctx.datapath,
      torchVersion: ctx.torchVersion,
    });
  } else if (launch.kind === "varlen") {
    const r = await forward({
      q: _gather(qr, layout.real, heads * d),
      k: _gather(kr, layout.real, kvHeads * d),
      v: _gather(v, layout.real, kvHeads * d),
    }, {
      ...fa2,
      cuSeqlensQ: layout.cuSeqlens,
      cuSeqlensK: layout.cuSeqlens,
      ...(ctx.paged ? { pagedKv: true } : {}),
      splitRange: ctx.splitRange,
    });
    _scatter(core, r.out, layout.real, heads * d);
  } else {
    const len = layout.cuSeqlens[1]!;
    for (let b = 0; b + 1 < layout.cuSeqlens.length; b++) {
      const rows = layout.real.subarray(b * len, (b + 1) * len);
      const r = await forward({
        q: _gather(qr, rows, heads * d),
        k: _gather(kr, rows, kvHeads * d),
        v: _gather(v, rows, kvHeads * d),
      }, fa2);
      if (r.splits !== launch.splits) {
        throw new Error(`FA2 ran ${r.splits} KV splits, the launch fixed ${launch.splits}`);
      }
      splits = r.splits;
      _scatter(core, r.out, rows, heads * d);
    }
  }
  return { core, splits };
}

function _gather(a: Uint16Array, rows: Int32Array, width: number): Uint16Array {
  const out = new Uint16Array(rows.length * width);
  for (let i = 0; i < rows.length; i++) {
    out.set(a.subarray(rows[i]! * width, (rows[i]! + 1) * width), i * width);
  }
  return out;
}

function _scatter(dst: Uint16Array, src: Uint16Array, rows: Int32Array, width: number): void {
  for (let i = 0; i < rows.length; i++) {
    dst.set(src.subarray(i * width, (i + 1) * width), rows[i]! * width);
  }
}
