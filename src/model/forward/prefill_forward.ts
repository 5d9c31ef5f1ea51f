/**
 * A prefill forward pass of a decoder checkpoint (any supported family) as the stack named in the
 * runtime runs it: embedding rows of the batch layout, every decoder layer (the one layer's
 * attention sublayer, then its dense MLP or the sparse MoE block), and the final RMSNorm; then the fingerprint of the claimed
 * positions and the per-layer chain. Only one layer's weights are in memory at a time (MoE: one
 * expert at a time), read from the checkpoint's byte sources when needed.
 *
 * @module
 */
import { findDatapath } from "../../hardware/mod.ts";
import {
  fa2SfuFunctions,
  FULL_GRAPH_DECODE_REASON,
  fullGraphPass,
  layerSfuFunctions,
  stackOperators,
  vllmPaddedTokens,
} from "../../kernels/mod.ts";
import { checkSfuUsage, type SfuUse } from "../blocks/mod.ts";
import { type DecoderCheckpoint, isMoeLayer } from "../checkpoint/mod.ts";
import {
  type BlockRuntime,
  denseMlpSublayer,
  ForwardUnsupported,
  layerRope,
  normKernelOf,
  normRows,
  type TensorParallel,
  vocabParallelRows,
} from "../decoder/mod.ts";
import { type BatchAttentionContext, runBatchAttention } from "./batch_attention.ts";
import { type BatchLayout, batchLayout } from "./batch_layout.ts";
import { checkTokenIds } from "./check_token_ids.ts";
import { chainLink, fingerprintOf, rowBytes } from "./fingerprint.ts";
import { runFusedMoeBlock } from "./fused_moe_block.ts";
import { layerExperts, runMoeBlock } from "./moe_block.ts";
import { layerWeights } from "./tensor_prefetch.ts";

/** A fingerprinted position: token `pos` of sequence `seq`. */
export interface TokenPosition {
  /** Sequence index in the batch. */
  readonly seq: number;
  /** Token position in that sequence. */
  readonly pos: number;
}

/** Options of {@link runPrefillForward}. */
export interface PrefillForwardOptions {
  /** Profile, stack, GEMM dispatch, K-walker, SFU, attention runner. */
  readonly runtime: BlockRuntime;
  /** The device's SM count (FA2's split heuristic). */
  readonly multiProcessorCount: number;
  /** Pad token id for padded batches of unequal lengths. */
  readonly padTokenId?: number;
  /** Positions to fingerprint (default: each sequence's last token). */
  readonly positions?: readonly TokenPosition[];
  /** The model's recorded `inv_freq` FP32 patterns (default: computed from `rope_theta`). */
  readonly invFreq?: Uint32Array;
  /** Called after each stage (progress). */
  readonly onStage?: (layer: number, stage: "attention" | "mlp") => void;
  /**
   * Called with each weight tensor of a layer once the layer is done (its GEMMs have settled),
   * e.g. to recycle the tensor's buffer for a later layer's read.
   */
  readonly releaseTensor?: (tensor: Uint16Array) => void;
  /**
   * The tensor-parallel split (absent on one GPU): every rank's heads and weight blocks are
   * computed here, and the row-parallel partials all-reduced in the recorded order.
   */
  readonly parallel?: TensorParallel | undefined;
  /**
   * Why the caller refuses the forward (a configuration not modelled, a size over a limit): the
   * tokens and positions are checked first (a contradiction still throws RangeError), then the
   * forward stops as not supported with this reason, computing nothing.
   */
  readonly refused?: string;
}

/** Result of a forward pass. */
export interface PrefillForwardResult {
  /** Final-norm output at every real token, sequences in order: BF16 [total tokens, hidden]. */
  readonly hidden: Uint16Array;
  /** The positions fingerprinted. */
  readonly positions: readonly TokenPosition[];
  /** SHA-256 of the final-norm rows at `positions` (see `fingerprint.ts`). */
  readonly fingerprint: string;
  /** Per-layer chain digests (attention, mlp). */
  readonly layerChain: readonly { readonly attention: string; readonly mlp: string }[];
  /** The batch layout (rows, padding, attention entry point). */
  readonly layout: BatchLayout;
  /** SFU functions the result depends on. */
  readonly sfu: readonly SfuUse[];
  /** MoE layers: GEMM rows of each visited expert, by layer. */
  readonly expertRows: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

/** A forward result, or why the configuration cannot be emulated. */
export type PrefillForwardSupport =
  | { readonly supported: true; readonly result: PrefillForwardResult }
  | { readonly supported: false; readonly reason: string };

/**
 * Runs the forward pass of a batch.
 *
 * @param checkpoint an opened checkpoint
 * @param o the batch (`sequences` of token ids) and {@link PrefillForwardOptions}
 * @returns the result or the reason it cannot be emulated
 * @throws {RangeError} on token ids outside the vocabulary, bad positions or an empty batch
 * @example
 * ```ts ignore
 * const r = await runPrefillForward(ckpt, { sequences: [[1, 2, 3]], runtime, multiProcessorCount: 108 });
 * ```
 */
export async function runPrefillForward(
  checkpoint: DecoderCheckpoint,
  o: PrefillForwardOptions & { readonly sequences: readonly (readonly number[])[] },
): Promise<PrefillForwardSupport> {
  try {
    return { supported: true, result: await _forward(checkpoint, o) };
  } catch (e) {
    if (e instanceof ForwardUnsupported) return { supported: false, reason: e.reason };
    throw e;
  }
}

async function _forward(
  ckpt: DecoderCheckpoint,
  o: PrefillForwardOptions & { readonly sequences: readonly (readonly number[])[] },
): Promise<PrefillForwardResult> {
  const c = ckpt.config;
  const { runtime } = o;
  // The stack's operators for a prefill (eager attention included: its batched GEMMs go through
  // the runtime's dispatch; its `build` is null).
  const support = stackOperators(runtime.stack, { driver: "prefill", moe: c.moe !== undefined });
  // The batch's contradictions first: a stack that is not modelled never hides them.
  checkTokenIds(o.sequences, { vocab: c.vocab, action: "run forward" });
  const positions = o.positions ?? o.sequences.map((s, seq) => ({ seq, pos: s.length - 1 }));
  for (const { seq, pos } of positions) {
    if (!(seq >= 0 && seq < o.sequences.length && pos >= 0 && pos < o.sequences[seq]!.length)) {
      throw new RangeError(`Cannot run forward: position (${seq}, ${pos}) is not a token`);
    }
  }
  if (o.refused !== undefined) throw new ForwardUnsupported(o.refused);
  if (!support.supported) throw new ForwardUnsupported(support.reason);
  const { ops } = support;
  const build = ops.attention!.build;
  const datapath = findDatapath(runtime.profile, { input: "bf16", output: "fp32" });
  if (datapath === undefined) {
    throw new ForwardUnsupported(`profile '${runtime.profile.id}' has no bf16->fp32 mma datapath`);
  }
  const layout = batchLayout(o.sequences, {
    batching: ops.batching,
    ...(o.padTokenId === undefined ? {} : { padTokenId: o.padTokenId }),
  });
  const fpRows = positions.map(({ seq, pos }) => layout.real[layout.cuSeqlens[seq]! + pos]!);
  const eps = Number(c.rmsNormEps);
  if (fullGraphPass(ops, o.sequences.map((q) => q.length))) {
    throw new ForwardUnsupported(FULL_GRAPH_DECODE_REASON);
  }
  // Under piecewise CUDA graphs every launch but attention runs at the padded token count.
  const launchM = ops.captureSizes === null
    ? layout.rows
    : vllmPaddedTokens(layout.rows, ops.captureSizes);
  const ctx: BatchAttentionContext = {
    config: c,
    runtime,
    datapath,
    reduceStack: ops.reduceStack,
    build,
    torchVersion: ops.torch,
    sdpa: ops.attention!.sdpa,
    kernels: ops.layer,
    rope: layerRope(ops.layer, {
      config: c,
      positions: layout.positions,
      invFreq: o.invFreq,
      mufu: runtime.sfu,
    }),
    paged: ops.attention!.paged,
    splitRange: ops.attention!.splitRange,
    launchM,
    multiProcessorCount: o.multiProcessorCount,
    eps,
    parallel: o.parallel,
  };
  let x = vocabParallelRows(
    await ckpt.rows("model.embed_tokens.weight", Array.from(layout.tokens)),
    o.parallel,
  );
  const chain: { attention: string; mlp: string }[] = [];
  const expertRows = new Map<number, ReadonlyMap<number, number>>();
  let prev: string | null = null;
  let maxSplits = 1;
  const link = (
    t: Uint16Array,
  ) => (prev = chainLink(prev, rowBytes(t, { rows: fpRows, width: c.hidden })));
  // This layer's and the next layer's weights are read while this layer computes.
  const weights = layerWeights(ckpt, o.releaseTensor);
  for (let layer = 0; layer < c.layers; layer++) {
    const w = weights(layer);
    const t = w.t;
    const attn = await runBatchAttention(x, { layout, ctx, layer, t });
    maxSplits = Math.max(maxSplits, attn.splits);
    x = attn.out;
    const attention = link(x);
    o.onStage?.(layer, "attention");
    if (isMoeLayer(c, layer) && ops.experts === "vllm-fused-moe") {
      const r = await runFusedMoeBlock(x, {
        hidden: c.hidden,
        moe: c.moe!,
        runtime,
        datapath,
        reduceStack: ctx.reduceStack,
        normKernel: normKernelOf(ops.layer, { name: "post_attention_layernorm", layer }),
        eps,
        norm: await t("post_attention_layernorm.weight"),
        router: await t("mlp.gate.weight"),
        launchRows: new Int32Array(layout.rows).fill(launchM),
        parallel: o.parallel,
        expert: layerExperts(t),
      });
      expertRows.set(layer, r.expertRows);
      x = r.out;
    } else if (isMoeLayer(c, layer)) {
      const r = await runMoeBlock(x, {
        hidden: c.hidden,
        moe: c.moe!,
        runtime,
        datapath,
        reduceStack: ctx.reduceStack,
        torchVersion: ops.torch,
        eps,
        norm: await t("post_attention_layernorm.weight"),
        router: await t("mlp.gate.weight"),
        parallel: o.parallel,
        expert: layerExperts(t),
      });
      expertRows.set(layer, r.expertRows);
      x = r.out;
    } else {
      const launchRows = new Int32Array(layout.rows).fill(launchM);
      x = await denseMlpSublayer(x, { ctx: { ...ctx, layer, launchRows }, t });
    }
    chain.push({ attention, mlp: link(x) });
    o.onStage?.(layer, "mlp");
    w.done();
  }
  const final = normRows(x, {
    width: c.hidden,
    perRow: 1,
    weight: await ckpt.tensor("model.norm.weight"),
    runtime,
    stack: ctx.reduceStack,
    eps,
    launchRows: new Int32Array(layout.rows).fill(launchM),
    kernel: normKernelOf(ops.layer, { name: "final", layer: c.layers }),
  });
  const fns = [
    "rsqrt",
    "ex2",
    ...layerSfuFunctions(ops.layer),
    ...(build === null ? [] : fa2SfuFunctions(build, { splits: maxSplits })),
  ];
  const sfu = checkSfuUsage(runtime.sfu, {
    stack: runtime.stack,
    functions: fns,
    computeCapability: runtime.profile.computeCapability,
  });
  if (!sfu.ok) throw new ForwardUnsupported(sfu.reason);
  const hidden = new Uint16Array(layout.real.length * c.hidden);
  layout.real.forEach((r, i) =>
    hidden.set(final.subarray(r * c.hidden, (r + 1) * c.hidden), i * c.hidden)
  );
  return {
    hidden,
    positions,
    fingerprint: fingerprintOf(rowBytes(final, { rows: fpRows, width: c.hidden })),
    layerChain: chain,
    layout,
    sfu: sfu.used,
    expertRows,
  };
}
