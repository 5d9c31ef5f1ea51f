/**
 * Forward passes of a serving engine, replayed for some of their sequences: every pass's rows of
 * the computed sequences, each with the kernels its pass's shape chose, a KV cache built as the
 * GPU built it (K after k-norm and RoPE, and V, BF16, written by the pass that computed the
 * position and read by later passes), decode attention through FA2's split-KV path when the
 * pass's launch picks it, and the LM head of the rows that emit a token.
 *
 * The replay runs layer by layer over all passes (a layer's K and V of every position exist
 * before any of its attention runs, since they depend on the layer input only), so its cost is
 * one prefill of the whole sequence plus the attention of each pass, and one layer's weights and
 * one layer's cache are in memory at a time. Each layer is the one decoder layer
 * (`../decoder/decoder_layer.ts`) with this driver's attention core: the pass's varlen attention
 * over the KV cache. Rows of different passes that run the same kernel share a GEMM call.
 *
 * @module
 */
import { findDatapath } from "../../hardware/mod.ts";
import {
  type AttentionInputs,
  type Fa2Build,
  type Fa2Forward,
  fa2KvCache,
  type Fa2LaunchShape,
  fa2SfuFunctions,
  flashAttentionBatch,
  flashAttentionForward,
  type FlashAttentionOptions,
  type FlashAttentionResult,
  FULL_GRAPH_DECODE_REASON,
  fullGraphPass,
  isVllmStack,
  type LayerKernels,
  layerSfuFunctions,
  reduceConfig,
  type ReduceStack,
  type StackOperators,
  stackOperators,
  vllmPaddedTokens,
} from "../../kernels/mod.ts";
import { checkSfuUsage, type SfuUse } from "../blocks/mod.ts";
import { type DecoderCheckpoint, isMoeLayer } from "../checkpoint/mod.ts";
import {
  attentionSublayer,
  type BlockRuntime,
  columnBlock,
  denseMlpSublayer,
  ForwardUnsupported,
  type LaunchRows,
  layerCalls,
  type LayerContext,
  type LayerRope,
  layerRope,
  linearRows,
  normKernelOf,
  normRows,
  pickRows,
  putColumnBlock,
  rankBlock,
  type RankHeads,
  rankHeads,
  rowBlock,
  type TensorParallel,
  vocabParallelRows,
} from "../decoder/mod.ts";
import { chainLink, fingerprintOf, rowBytes } from "./fingerprint.ts";
import { checkTokenIds } from "./check_token_ids.ts";
import { layerWeights } from "./tensor_prefetch.ts";
import { runFusedMoeBlock } from "./fused_moe_block.ts";
import { type ExpertWeights, layerExperts, runMoeBlock } from "./moe_block.ts";
import type { PassShape, RowBlock, ServedSequence } from "./serving_shape.ts";
import { servingWork } from "./serving_work.ts";

/**
 * Emitting rows whose logits are computed at once: few enough that a chunk's FP32 accumulators
 * and its copies stay small (64 x 151,936 FP32 is 39 MB; 512 rows held 1.2 GB at the peak of a
 * 6,000-token replay), many enough that the LM head GEMM runs on whole row tiles. The pool reads
 * a weight on shared memory in place and recycles the copy of one that is not.
 */
const LOGITS_CHUNK = 64;

/** Options of {@link runServingForward}. */
export interface ServingForwardOptions {
  /** Profile, stack (its `batching` must be `flatten`), dispatch, K-walker, SFU, attention. */
  readonly runtime: BlockRuntime;
  /** The device's SM count (FA2's split heuristic). */
  readonly multiProcessorCount: number;
  /** Recorded `inv_freq` patterns (default: computed from `rope_theta`). */
  readonly invFreq?: Uint32Array;
  /** Positions to fingerprint per sequence (default: each sequence's last computed position). */
  readonly positions?: readonly (readonly number[])[];
  /** Compute the LM head and greedy token of every emitting row (default true). */
  readonly logits?: boolean;
  /** Called after each layer (progress). */
  readonly onLayer?: (layer: number) => void;
  /**
   * Called with each weight tensor of a layer once the layer is done (its GEMMs have settled),
   * and with the LM head's weight once the logits are computed, e.g. to recycle the tensor's
   * buffer for a later read.
   */
  readonly releaseTensor?: (tensor: Uint16Array) => void;
  /**
   * KV caches of sequences that start past position 0 (`ServedSequence.start`), by sequence
   * index: each layer's K and V of positions 0..start-1 (a prover running pass by pass).
   */
  readonly kv?: readonly (SequenceKv | undefined)[];
  /** Return every computed sequence's KV cache (for the next pass). */
  readonly keepKv?: boolean;
  /**
   * Forced FA2 split counts by pass (`flash_attn_with_kvcache`'s `num_splits`; absent: the
   * heuristic). A prover's falsification, never what a verifier replays.
   */
  readonly forcedSplits?: ReadonlyMap<number, number>;
  /** The tensor-parallel split; absent on one GPU. */
  readonly parallel?: TensorParallel | undefined;
  /**
   * Why the caller refuses the replay before the stack's support is asked (a configuration or a
   * path not modelled, a size over a limit): the passes and sequences are checked against each
   * other first (a contradiction still throws RangeError), then the replay stops as not supported
   * with this reason, computing nothing.
   */
  readonly refused?: string;
}

/** One sequence's KV cache: per layer, K and V [positions, kvHeads * headDim] BF16. */
export interface SequenceKv {
  /** K per layer (after k-norm and RoPE). */
  readonly k: readonly Uint16Array[];
  /** V per layer. */
  readonly v: readonly Uint16Array[];
}

/** What a replay gives for one computed sequence. */
export interface ServedSequenceResult {
  /**
   * Final-norm rows of every computed position, in position order from the sequence's `start`:
   * BF16 [positions, hidden].
   */
  readonly hidden: Uint16Array;
  /** The fingerprinted positions. */
  readonly positions: readonly number[];
  /** SHA-256 of the final-norm rows at `positions` (`fingerprint.ts`). */
  readonly fingerprint: string;
  /** Per-layer chain digests over the rows at `positions`. */
  readonly layerChain: readonly { readonly attention: string; readonly mlp: string }[];
  /** Greedy token (argmax of the BF16 logits, lowest id on ties) of each emitting step. */
  readonly greedy: ReadonlyMap<number, number>;
}

/** Result of a replay. */
export interface ServingForwardResult {
  /** One result per computed sequence. */
  readonly sequences: readonly ServedSequenceResult[];
  /** MoE models: the computed rows' expert counts, per pass, per MoE layer, per expert. */
  readonly expertRows: readonly (readonly number[])[][];
  /** Largest FA2 split count any pass ran. */
  readonly maxSplits: number;
  /** The computed sequences' KV caches after the last pass (with `keepKv`). */
  readonly kv?: readonly SequenceKv[];
  /** SFU functions the results depend on. */
  readonly sfu: readonly SfuUse[];
}

/** A replay's result, or why its configuration cannot be emulated. */
export type ServingForwardSupport =
  | { readonly supported: true; readonly result: ServingForwardResult }
  | { readonly supported: false; readonly reason: string };

/**
 * Replays passes for the given sequences.
 *
 * @param ckpt an opened checkpoint
 * @param work the pass shapes and the computed sequences
 * @param o {@link ServingForwardOptions}
 * @returns the per-sequence results, or why the configuration cannot be emulated
 * @throws {RangeError} when the passes and sequences contradict each other or the recorded
 *   MoE expert or logits rows cannot hold the computed rows (a record that is wrong)
 * @example
 * ```ts ignore
 * const r = await runServingForward(ckpt, { passes, sequences }, { runtime, multiProcessorCount: 108 });
 * ```
 */
export async function runServingForward(
  ckpt: DecoderCheckpoint,
  work: { readonly passes: readonly PassShape[]; readonly sequences: readonly ServedSequence[] },
  o: ServingForwardOptions,
): Promise<ServingForwardSupport> {
  try {
    return { supported: true, result: await _replay(ckpt, work, o) };
  } catch (e) {
    if (e instanceof ForwardUnsupported) return { supported: false, reason: e.reason };
    throw e;
  }
}

interface _Ctx {
  readonly ckpt: DecoderCheckpoint;
  readonly o: ServingForwardOptions;
  readonly passes: readonly PassShape[];
  readonly blocks: readonly RowBlock[];
  /** The computed blocks of each pass that has some (contiguous rows, entry order). */
  readonly byPass: ReadonlyMap<number, readonly RowBlock[]>;
  /** Each pass's FA2 launch: batch, longest query and key lengths. */
  readonly launches: readonly Fa2LaunchShape[];
  readonly build: Fa2Build;
  readonly rows: number;
  readonly launchRows: LaunchRows;
  /** Each computed row's place in its pass's GEMM rows. */
  readonly launchRow: Int32Array;
  readonly datapath: NonNullable<ReturnType<typeof findDatapath>>;
  readonly reduceStack: ReduceStack;
  readonly eps: number;
  readonly torch: string;
  /** The stack's operators (layer kernels, paged attention, MoE experts). */
  readonly ops: StackOperators;
  /** Whether the stack is vLLM's (its LM head launches at every scheduled request). */
  readonly vllm: boolean;
}

async function _replay(
  ckpt: DecoderCheckpoint,
  work: { readonly passes: readonly PassShape[]; readonly sequences: readonly ServedSequence[] },
  o: ServingForwardOptions,
): Promise<ServingForwardResult> {
  const c = ckpt.config;
  const { runtime } = o;
  const support = stackOperators(runtime.stack, { driver: "serving", moe: c.moe !== undefined });
  // The record's contradictions first: a stack or path that is not modelled never hides them.
  const { blocks, rows, moeLayers, byPass, fpRows } = _checkWork(c, work, {
    flatten: runtime.stack.operators?.batching === "flatten",
    // Whether a row's experts follow from the row alone is the stack's to say; unknown: unchecked.
    fusedMoe: !support.supported || support.ops.experts === "vllm-fused-moe",
    positions: o.positions,
  });
  if (o.refused !== undefined) throw new ForwardUnsupported(o.refused);
  if (!support.supported) throw new ForwardUnsupported(support.reason);
  const { ops } = support;
  if (ops.batching !== "flatten") {
    throw new ForwardUnsupported(
      `stack '${runtime.stack.id}' batches '${ops.batching}'; serving histories are modelled ` +
        "for continuous batching on a 'flatten' stack",
    );
  }
  const build = ops.attention!.build;
  if (build === null) {
    throw new ForwardUnsupported(
      `attention backend '${ops.attention!.id}': no FA2 build in a serving replay`,
    );
  }
  const datapath = findDatapath(runtime.profile, { input: "bf16", output: "fp32" });
  if (datapath === undefined) {
    throw new ForwardUnsupported(`profile '${runtime.profile.id}' has no bf16->fp32 mma datapath`);
  }
  const launchRows = new Int32Array(rows);
  const launchRow = new Int32Array(rows);
  // Under piecewise CUDA graphs a pass's launches (all but attention) run at the capture size
  // that holds its tokens.
  const sizes = ops.captureSizes;
  for (const b of blocks) {
    const p = work.passes[b.pass]!;
    launchRows.fill(
      sizes === null ? p.rows : vllmPaddedTokens(p.rows, sizes),
      b.row0,
      b.row0 + b.rows,
    );
    let at = 0;
    for (let e = 0; e < b.entry; e++) at += p.entries[e]!.query;
    for (let i = 0; i < b.rows; i++) launchRow[b.row0 + i] = at + i;
  }
  const reduceStack = ops.reduceStack;
  const full = work.passes.findIndex((p) => fullGraphPass(ops, p.entries.map((e) => e.query)));
  if (full >= 0) throw new ForwardUnsupported(`pass ${full}: ${FULL_GRAPH_DECODE_REASON}`);
  _checkReduceLaunches({
    config: c,
    reduceStack: ops.layer.norm === "torch-reduce" ? reduceStack : null,
    rank: rankHeads(c, o.parallel)[0]!,
    launchRows: [...new Set(launchRows)],
  });
  const ctx: _Ctx = {
    ckpt,
    o,
    passes: work.passes,
    blocks,
    byPass,
    launches: work.passes.map((p) => ({
      batch: p.entries.length,
      maxSeqlenQ: Math.max(...p.entries.map((e) => e.query)),
      maxSeqlenK: Math.max(...p.entries.map((e) => e.cached + e.query)),
    })),
    build,
    rows,
    launchRows,
    launchRow,
    datapath,
    reduceStack,
    eps: Number(c.rmsNormEps),
    torch: ops.torch,
    ops,
    vllm: isVllmStack(runtime.stack),
  };
  const tokens: number[] = [];
  const positions: number[] = [];
  for (const b of blocks) {
    const seqTokens = work.sequences[b.seq]!.tokens;
    for (let i = 0; i < b.rows; i++) {
      tokens.push(seqTokens[b.pos0 + i]!);
      positions.push(b.pos0 + i);
    }
  }
  const rope = layerRope(ops.layer, {
    config: c,
    positions,
    invFreq: o.invFreq,
    mufu: runtime.sfu,
  });
  let x = vocabParallelRows(await ckpt.rows("model.embed_tokens.weight", tokens), o.parallel);
  const chains = work.sequences.map(() => ({ prev: null as string | null, links: [] as string[] }));
  const link = (t: Uint16Array) =>
    fpRows.forEach((r, s) => {
      const ch = chains[s]!;
      ch.prev = chainLink(ch.prev, rowBytes(t, { rows: r.rows, width: c.hidden }));
      ch.links.push(ch.prev);
    });
  const expertRows = work.passes.map(() => [] as number[][]);
  const kvOut = work.sequences.map(() => ({ k: [] as Uint16Array[], v: [] as Uint16Array[] }));
  let maxSplits = 1;
  // This layer's and the next layer's weights are read while this layer computes.
  const weights = layerWeights(ckpt, o.releaseTensor);
  for (let layer = 0; layer < c.layers; layer++) {
    const w = weights(layer);
    const t = w.t;
    const attn = await _attention(x, ctx, {
      rope,
      t,
      sequences: work.sequences,
      layer,
      kvOut: o.keepKv === true ? kvOut : null,
    });
    maxSplits = Math.max(maxSplits, attn.splits);
    // Every layer runs the same launches: after layer 0 the SFU functions are all known.
    if (layer === 0) _sfuUse(runtime, { build, splits: maxSplits, kernels: ops.layer });
    x = attn.out;
    link(x);
    if (moeLayers !== undefined && isMoeLayer(c, layer)) {
      x = ctx.ops.experts === "vllm-fused-moe"
        ? await _fusedMoe(x, ctx, { t, layer, moeIndex: moeLayers.indexOf(layer), expertRows })
        : await _moe(x, ctx, { t, moeIndex: moeLayers.indexOf(layer), expertRows });
    } else {
      x = await denseMlpSublayer(x, { ctx: _layerContext(ctx, layer), t });
    }
    link(x);
    o.onLayer?.(layer);
    w.done();
  }
  const final = normRows(x, {
    width: c.hidden,
    perRow: 1,
    weight: await ckpt.tensor("model.norm.weight"),
    runtime,
    stack: ctx.reduceStack,
    eps: ctx.eps,
    launchRows,
    kernel: normKernelOf(ctx.ops.layer, { name: "final", layer: c.layers }),
  });
  const greedy = o.logits === false ? null : await _greedy(final, ctx);
  const sfu = _sfuUse(runtime, { build, splits: maxSplits, kernels: ops.layer });
  const sequences = work.sequences.map((_, s): ServedSequenceResult => {
    const own = blocks.filter((b) => b.seq === s);
    const n = own.reduce((a, b) => a + b.rows, 0);
    const hidden = new Uint16Array(n * c.hidden);
    const start = work.sequences[s]!.start ?? 0;
    for (const b of own) {
      hidden.set(
        final.subarray(b.row0 * c.hidden, (b.row0 + b.rows) * c.hidden),
        (b.pos0 - start) * c.hidden,
      );
    }
    const ch = chains[s]!.links;
    return Object.freeze({
      hidden,
      positions: fpRows[s]!.positions,
      fingerprint: fingerprintOf(rowBytes(final, { rows: fpRows[s]!.rows, width: c.hidden })),
      layerChain: Array.from({ length: c.layers }, (_, l) => ({
        attention: ch[2 * l]!,
        mlp: ch[2 * l + 1]!,
      })),
      greedy: new Map(own.filter((b) => b.emits).map((b) => [b.step, greedy?.get(b) ?? -1])),
    });
  });
  return Object.freeze({
    sequences,
    expertRows,
    maxSplits,
    sfu,
    ...(o.keepKv === true ? { kv: kvOut } : {}),
  });
}

function _sfuUse(
  runtime: BlockRuntime,
  o: { readonly build: Fa2Build; readonly splits: number; readonly kernels: LayerKernels },
): readonly SfuUse[] {
  const fns = [
    "rsqrt",
    "ex2",
    ...layerSfuFunctions(o.kernels),
    ...fa2SfuFunctions(o.build, { splits: o.splits }),
  ];
  const sfu = checkSfuUsage(runtime.sfu, {
    stack: runtime.stack,
    functions: fns,
    computeCapability: runtime.profile.computeCapability,
  });
  if (!sfu.ok) throw new ForwardUnsupported(sfu.reason);
  return sfu.used;
}

/**
 * The record's contradictions, checked before the stack's support is asked: the work laid out and
 * checked against itself (`servingWork`, with the checkpoint's expert rows), the tokens inside
 * the vocabulary, and expert rows that can contain the computed rows (RangeError each).
 */
function _checkWork(
  c: DecoderCheckpoint["config"],
  work: { readonly passes: readonly PassShape[]; readonly sequences: readonly ServedSequence[] },
  o: {
    /** Whether the stack flattens a pass's rows (else pads them: no fewer rows than tokens). */
    readonly flatten: boolean;
    /** Fused MoE: a row's experts follow from the row alone (no recorded expert rows needed). */
    readonly fusedMoe: boolean;
    readonly positions: ServingForwardOptions["positions"];
  },
) {
  const moeLayers = c.moe === undefined
    ? undefined
    : Array.from({ length: c.layers }, (_, l) => l).filter((l) => isMoeLayer(c, l));
  const laid = servingWork(work, {
    flatten: o.flatten,
    positions: o.positions,
    ...(moeLayers === undefined
      ? {}
      : { experts: c.moe!.experts, moeLayers: moeLayers.length, topK: c.moe!.topK }),
  });
  checkTokenIds(work.sequences.map((s) => s.tokens), { vocab: c.vocab, action: "replay" });
  for (const [pass, group] of laid.byPass) {
    const p = work.passes[pass]!;
    const complete = group.length === p.entries.length;
    if (c.moe !== undefined && !o.fusedMoe && p.expertRows === undefined && !complete) {
      throw new RangeError(
        `Cannot replay: pass ${pass} has other sequences and records no expert rows`,
      );
    }
  }
  return { ...laid, moeLayers };
}

/**
 * Norm launches the reduce model covers for every pass's row count (not modelled:
 * ForwardUnsupported).
 */
function _checkReduceLaunches(
  o: {
    readonly config: DecoderCheckpoint["config"];
    /** The stack's torch reduce settings; null when its norms are not PyTorch's. */
    readonly reduceStack: ReduceStack | null;
    readonly rank: RankHeads;
    /** Every launch row count of the norms. */
    readonly launchRows: readonly number[];
  },
): void {
  const c = o.config;
  if (o.reduceStack === null) return;
  const stack = o.reduceStack;
  // Every row reduction of the layer's calls, as a rank launches them (its heads).
  const calls = layerCalls({ ...c, heads: o.rank.qn, kvHeads: o.rank.kvn });
  const reductions = [calls.attention, calls.mlp, ...(calls.moe === undefined ? [] : [calls.moe])]
    .flatMap((sub) => sub.reductions);
  const shapes = (m: number) =>
    reductions.map((r) => ({ outputs: m * r.perRow, length: r.length }));
  for (const m of o.launchRows) {
    for (const shape of shapes(m)) {
      try {
        reduceConfig(shape, { stack });
      } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        throw new ForwardUnsupported(`a pass of ${m} rows: ${e.message}`);
      }
    }
  }
}

async function _attention(
  x: Uint16Array,
  ctx: _Ctx,
  a: {
    readonly rope: LayerRope;
    readonly t: (n: string) => Promise<Uint16Array>;
    readonly sequences: readonly ServedSequence[];
    readonly layer: number;
    readonly kvOut: { k: Uint16Array[]; v: Uint16Array[] }[] | null;
  },
): Promise<{ out: Uint16Array; splits: number }> {
  return await attentionSublayer(x, {
    ctx: _layerContext(ctx, a.layer),
    t: a.t,
    rope: a.rope,
    core: (qr, kr, v, rank) => _core(ctx, { ...a, qr, kr, v, rank }),
  });
}

function _layerContext(ctx: _Ctx, layer: number): LayerContext {
  return {
    config: ctx.ckpt.config,
    runtime: ctx.o.runtime,
    datapath: ctx.datapath,
    reduceStack: ctx.reduceStack,
    kernels: ctx.ops.layer,
    layer,
    eps: ctx.eps,
    launchRows: ctx.launchRows,
    launchRow: ctx.launchRow,
    parallel: ctx.o.parallel,
  };
}

/**
 * This driver's attention core: each layer's KV cache of every computed sequence (every
 * position's K and V, written by its pass), then each pass's varlen FA2 launch over it.
 */
async function _core(
  ctx: _Ctx,
  a: {
    readonly sequences: readonly ServedSequence[];
    readonly layer: number;
    readonly kvOut: { k: Uint16Array[]; v: Uint16Array[] }[] | null;
    readonly qr: Uint16Array;
    readonly kr: Uint16Array;
    readonly v: Uint16Array;
    readonly rank: RankHeads;
  },
): Promise<{ core: Uint16Array; splits: number }> {
  const { o } = ctx;
  const { headDim: d } = ctx.ckpt.config;
  const { qn: heads, kvn: kvHeads, kv0 } = a.rank;
  const runtime = o.runtime;
  const { qr, kr, v } = a;
  const kvw = kvHeads * d;
  // The recorded and returned caches hold every KV head; a rank reads and writes its block.
  const fullKvw = ctx.ckpt.config.kvHeads * d;
  const whole = fullKvw === kvw;
  const block = { first: kv0 * d, count: kvw, width: fullKvw };
  const caches = a.sequences.map((s, i) => {
    const cache = {
      k: new Uint16Array(s.tokens.length * kvw),
      v: new Uint16Array(s.tokens.length * kvw),
    };
    const start = s.start ?? 0;
    if (start > 0) {
      const kv = o.kv?.[i];
      const k = kv?.k[a.layer], v = kv?.v[a.layer];
      if (
        k === undefined || v === undefined || k.length !== start * fullKvw || v.length !== k.length
      ) {
        throw new RangeError(
          `Cannot replay: sequence ${i} starts at ${start} without its KV cache`,
        );
      }
      cache.k.set(whole ? k : columnBlock(k, block));
      cache.v.set(whole ? v : columnBlock(v, block));
    }
    return cache;
  });
  for (const b of ctx.blocks) {
    const cache = caches[b.seq]!;
    cache.k.set(kr.subarray(b.row0 * kvw, (b.row0 + b.rows) * kvw), b.pos0 * kvw);
    cache.v.set(v.subarray(b.row0 * kvw, (b.row0 + b.rows) * kvw), b.pos0 * kvw);
  }
  const core = new Uint16Array(ctx.rows * heads * d);
  // A sequence's launches read its cache in place, every position written above: complete KV
  // tiles are built once for all its passes (its decode steps) of this layer.
  const kept = a.sequences.map(() => fa2KvCache());
  const launches = [...ctx.byPass].map(([pass, group]) => {
    const cuQ = [0], cuK = [0];
    const keys = group.map((b) => b.pos0 + b.rows);
    for (const b of group) cuQ.push(cuQ[cuQ.length - 1]! + b.rows);
    for (const n of keys) cuK.push(cuK[cuK.length - 1]! + n);
    // One sequence (the verifier's case) reads its cache prefix in place.
    const gather = (part: "k" | "v") => {
      if (group.length === 1) return caches[group[0]!.seq]![part].subarray(0, keys[0]! * kvw);
      const all = new Uint16Array(cuK[cuK.length - 1]! * kvw);
      group.forEach((b, i) =>
        all.set(caches[b.seq]![part].subarray(0, keys[i]! * kvw), cuK[i]! * kvw)
      );
      return all;
    };
    const r0 = group[0]!.row0, r1 = r0 + cuQ[cuQ.length - 1]!;
    const inputs = {
      q: qr.subarray(r0 * heads * d, r1 * heads * d),
      k: gather("k"),
      v: gather("v"),
    };
    const options: FlashAttentionOptions = {
      heads,
      kvHeads,
      headDim: d,
      causal: true,
      build: ctx.build,
      profile: runtime.profile,
      mufu: runtime.sfu,
      multiProcessorCount: o.multiProcessorCount,
      cuSeqlensQ: cuQ,
      cuSeqlensK: cuK,
      ...(o.forcedSplits?.has(pass) ? { numSplits: o.forcedSplits.get(pass)! } : {}),
      ...(ctx.ops.attention!.paged ? { pagedKv: true } : {}),
      splitRange: ctx.ops.attention!.splitRange,
      ...(group.length === 1 ? { kvCache: kept[group[0]!.seq]! } : {}),
      launch: ctx.launches[pass]!,
    };
    return { seq: group.length === 1 ? group[0]!.seq : -1, r0, inputs, options };
  });
  const results = await _attentionLaunches(launches, runtime.attention);
  let splits = 1;
  launches.forEach((l, i) => {
    splits = Math.max(splits, results[i]!.splits);
    core.set(results[i]!.out, l.r0 * heads * d);
  });
  if (a.kvOut !== null) {
    a.sequences.forEach((s, i) => {
      const own = ctx.blocks.filter((b) => b.seq === i);
      const end = own.length === 0 ? (s.start ?? 0) : Math.max(...own.map((b) => b.pos0 + b.rows));
      const out = a.kvOut![i]!;
      if (whole) {
        out.k.push(caches[i]!.k.slice(0, end * kvw));
        out.v.push(caches[i]!.v.slice(0, end * kvw));
        return;
      }
      // The first rank starts the layer's full-width caches; every rank writes its heads.
      if (a.rank.q0 === 0) {
        out.k.push(new Uint16Array(end * fullKvw));
        out.v.push(new Uint16Array(end * fullKvw));
      }
      putColumnBlock(out.k[out.k.length - 1]!, caches[i]!.k.subarray(0, end * kvw), block);
      putColumnBlock(out.v[out.v.length - 1]!, caches[i]!.v.subarray(0, end * kvw), block);
    });
  }
  return { core, splits };
}

/**
 * Most key elements (keys x head dimension, summed over the launches) one batch holds. A batch
 * records every tile walk of its launches before walking them (one KV head at a time), so what it
 * holds grows with the sum of its launches' keys: a sequence's decode steps, each over its whole
 * cache, sum to about half the square of its length. Measured on the tiny dense checkpoint (head
 * dimension 128, one thread), 12,000 decode steps: 6.0 GB in one batch; 0.89 GB and 79.1 s one
 * launch at a time; 1.0 GB and 55.6 s in batches of at most this many (1.25 GB and 58.7 s at
 * twice it, 1.7 GB and 67.6 s at four times).
 */
const MAX_BATCH_KEY_ELEMENTS = 2 ** 28;

/**
 * Runs a layer's launches: those of one sequence over its cache (`seq` >= 0) as batches where
 * the runner takes batches (each KV tile's products once for all of the batch's decode steps),
 * each batch at most {@link MAX_BATCH_KEY_ELEMENTS}, the others one by one. Same bits either way.
 */
async function _attentionLaunches(
  launches: readonly {
    readonly seq: number;
    readonly inputs: AttentionInputs;
    readonly options: FlashAttentionOptions;
  }[],
  runner: Fa2Forward | undefined,
): Promise<FlashAttentionResult[]> {
  const forward = runner ?? flashAttentionForward;
  const batch = runner === undefined ? flashAttentionBatch : runner.batch;
  const results: (FlashAttentionResult | undefined)[] = launches.map(() => undefined);
  if (batch !== undefined) {
    const bySeq = new Map<number, number[]>();
    launches.forEach((l, i) => {
      if (l.seq < 0) return;
      const list = bySeq.get(l.seq);
      if (list === undefined) bySeq.set(l.seq, [i]);
      else list.push(i);
    });
    for (const list of bySeq.values()) {
      for (const part of _bounded(list, launches)) {
        if (part.length < 2) continue;
        const rs = await batch(part.map((i) => launches[i]!));
        part.forEach((i, j) => (results[i] = rs[j]));
      }
    }
  }
  for (const [i, l] of launches.entries()) results[i] ??= await forward(l.inputs, l.options);
  return results as FlashAttentionResult[];
}

/** A sequence's launches in order, cut where a batch would pass {@link MAX_BATCH_KEY_ELEMENTS}. */
function _bounded(
  list: readonly number[],
  launches: readonly {
    readonly inputs: AttentionInputs;
    readonly options: FlashAttentionOptions;
  }[],
): number[][] {
  const parts: number[][] = [];
  let part: number[] = [];
  let held = 0;
  for (const i of list) {
    const l = launches[i]!;
    const elements = l.inputs.k.length / l.options.kvHeads;
    if (part.length > 0 && held + elements > MAX_BATCH_KEY_ELEMENTS) {
      parts.push(part);
      part = [];
      held = 0;
    }
    part.push(i);
    held += elements;
  }
  if (part.length > 0) parts.push(part);
  return parts;
}

async function _moe(
  x: Uint16Array,
  ctx: _Ctx,
  a: {
    readonly t: (n: string) => Promise<Uint16Array>;
    readonly moeIndex: number;
    readonly expertRows: number[][][];
  },
): Promise<Uint16Array> {
  const c = ctx.ckpt.config;
  const h = c.hidden;
  const out = new Uint16Array(x.length);
  const norm = await a.t("post_attention_layernorm.weight");
  const router = await a.t("mlp.gate.weight");
  const experts = new Map<number, Promise<ExpertWeights>>();
  const load = layerExperts(a.t);
  const expert = (e: number) => {
    let w = experts.get(e);
    if (w === undefined) experts.set(e, w = load(e));
    return w;
  };
  for (const [pass, group] of ctx.byPass) {
    const shape = ctx.passes[pass]!;
    const complete = group.length === shape.entries.length;
    const claimed = shape.expertRows?.[a.moeIndex];
    const r0 = group[0]!.row0;
    const r1 = r0 + group.reduce((s, b) => s + b.rows, 0);
    const own = new Array<number>(c.moe!.experts).fill(0);
    // The pass's other rows each route to top-k distinct experts: at most one row each to any.
    const others = shape.rows - (r1 - r0);
    const r = await runMoeBlock(x.subarray(r0 * h, r1 * h), {
      hidden: h,
      moe: c.moe!,
      runtime: ctx.o.runtime,
      datapath: ctx.datapath,
      reduceStack: ctx.reduceStack,
      torchVersion: ctx.torch,
      eps: ctx.eps,
      norm,
      router,
      expert,
      parallel: ctx.o.parallel,
      launch: {
        rows: shape.rows,
        expertRows: (e, n) => {
          own[e] = n;
          const m = claimed?.[e] ?? n;
          if (m < n) {
            throw new RangeError(_expertRowsWhy({ pass, e, layer: a.moeIndex, m, n, others }));
          }
          return m;
        },
      },
    });
    if (complete && claimed !== undefined) {
      const e = claimed.findIndex((m, i) => m !== own[i]);
      if (e >= 0) {
        throw new RangeError(
          `Cannot replay: pass ${pass} records ${claimed[e]} rows for expert ${e} of MoE ` +
            `layer ${a.moeIndex}, its rows route ${own[e]} there`,
        );
      }
    } else if (claimed !== undefined) {
      // Every expert, those the computed rows route nothing to included.
      const e = claimed.findIndex((m, i) => m - own[i]! > others);
      if (e >= 0) {
        throw new RangeError(
          _expertRowsWhy({ pass, e, layer: a.moeIndex, m: claimed[e]!, n: own[e]!, others }),
        );
      }
    }
    a.expertRows[pass]!.push(own);
    out.set(r.out, r0 * h);
  }
  return out;
}

/**
 * A MoE layer on vLLM's fused path: every computed row at once (rows never mix; each launch's
 * size sets its norm and router kernels), then each pass's expert counts from its rows' routing,
 * checked against the recorded ones as `_moe` checks them.
 */
async function _fusedMoe(
  x: Uint16Array,
  ctx: _Ctx,
  a: {
    readonly t: (n: string) => Promise<Uint16Array>;
    readonly layer: number;
    readonly moeIndex: number;
    readonly expertRows: number[][][];
  },
): Promise<Uint16Array> {
  const c = ctx.ckpt.config;
  const r = await runFusedMoeBlock(x, {
    hidden: c.hidden,
    moe: c.moe!,
    runtime: ctx.o.runtime,
    datapath: ctx.datapath,
    reduceStack: ctx.reduceStack,
    normKernel: normKernelOf(ctx.ops.layer, { name: "post_attention_layernorm", layer: a.layer }),
    eps: ctx.eps,
    norm: await a.t("post_attention_layernorm.weight"),
    router: await a.t("mlp.gate.weight"),
    launchRows: ctx.launchRows,
    launchRow: ctx.launchRow,
    parallel: ctx.o.parallel,
    expert: layerExperts(a.t),
  });
  const k = c.moe!.topK;
  for (const [pass, group] of ctx.byPass) {
    const own = new Array<number>(c.moe!.experts).fill(0);
    const r0 = group[0]!.row0;
    const r1 = r0 + group.reduce((s, b) => s + b.rows, 0);
    for (let i = r0 * k; i < r1 * k; i++) own[r.routing.experts[i]!]! += 1;
    const claimed = ctx.passes[pass]!.expertRows?.[a.moeIndex];
    const complete = group.length === ctx.passes[pass]!.entries.length;
    // As `_moe`: the pass's other rows add at most one row each to any expert.
    const others = ctx.passes[pass]!.rows - (r1 - r0);
    const e = claimed === undefined
      ? -1
      : claimed.findIndex((m, i) => complete ? m !== own[i] : m < own[i]! || m - own[i]! > others);
    if (e >= 0) {
      throw new RangeError(
        _expertRowsWhy({ pass, e, layer: a.moeIndex, m: claimed![e]!, n: own[e]!, others }),
      );
    }
    a.expertRows[pass]!.push(own);
  }
  return r.out;
}

/**
 * Why a pass's recorded rows for one expert cannot be: fewer than its computed rows route there,
 * or more than those plus one for each of the pass's other rows (each routes to top-k distinct
 * experts).
 */
function _expertRowsWhy(
  o: { pass: number; e: number; layer: number; m: number; n: number; others: number },
): string {
  const head = `Cannot replay: pass ${o.pass} records ${o.m} rows for expert ${o.e} of MoE ` +
    `layer ${o.layer}, `;
  return o.m < o.n
    ? `${head}its computed rows route ${o.n} there`
    : `${head}more than the ${o.n} its computed rows route there and one for each of its ` +
      `${o.others} other rows (each routes to distinct experts)`;
}

async function _greedy(final: Uint16Array, ctx: _Ctx): Promise<Map<RowBlock, number>> {
  const c = ctx.ckpt.config;
  const emitting = ctx.blocks.filter((b) => b.emits);
  const out = new Map<RowBlock, number>();
  if (emitting.length === 0) return out;
  // The LM head in chunks of rows (a 151,936-entry vocabulary makes each logits row 300 KB).
  const weight = await ctx.ckpt.tensor("lm_head.weight");
  // Under tensor parallelism each rank computes its block of the vocabulary (column-parallel,
  // dispatched by its own shape) and the blocks are gathered: no arithmetic across ranks.
  const tp = ctx.o.parallel;
  // vLLM pads the LM head's rows to a multiple of 64 (zero rows past the vocabulary, whose
  // logits are sliced off); each rank's GEMM is dispatched by its block of the padded rows.
  const pad = ctx.ops.layer.vocabPadding;
  const vPad = Math.ceil(c.vocab / pad) * pad;
  const vr = rankBlock(vPad, tp, "vocabulary");
  const padded = vPad === c.vocab ? weight : _padRows(weight, { rows: vPad, width: c.hidden });
  try {
    await _greedyChunks(final, ctx, { emitting, padded, vPad, vr, out });
  } finally {
    ctx.o.releaseTensor?.(weight); // the vocabulary's weight (311 MB for Qwen3) read once a call
  }
  return out;
}

/** The LM head and argmax of `_greedy`, chunk by chunk. */
async function _greedyChunks(
  final: Uint16Array,
  ctx: _Ctx,
  g: {
    readonly emitting: readonly RowBlock[];
    readonly padded: Uint16Array;
    readonly vPad: number;
    readonly vr: number;
    readonly out: Map<RowBlock, number>;
  },
): Promise<void> {
  const c = ctx.ckpt.config;
  const tp = ctx.o.parallel;
  const { emitting, padded, vPad, vr, out } = g;
  for (let i0 = 0; i0 < emitting.length; i0 += LOGITS_CHUNK) {
    const chunk = emitting.slice(i0, i0 + LOGITS_CHUNK);
    const x = pickRows(final, chunk.map((b) => b.row0 + b.rows - 1), c.hidden);
    // vLLM's model runner computes logits at every scheduled request's last row (a partial
    // prefill's too, its token then dropped: `logits_indices = query_start_loc[1:] - 1`), so its
    // LM head launches at the pass's entries. HF Transformers 4.5x's continuous batching computes
    // them at every row of the pass (`_model_forward` returns `self.model(**batch_data).logits`
    // with the default `logits_to_keep=0`; the sampled rows are picked from them afterwards by
    // `logits_indices`), so its LM head launches at the pass's rows.
    const launchRows = Int32Array.from(chunk, (b) => {
      const p = ctx.passes[b.pass]!;
      return ctx.vllm ? p.entries.length : p.rows;
    });
    const head = (first: number) =>
      linearRows(x, {
        runtime: ctx.o.runtime,
        datapath: ctx.datapath,
        name: "lm_head",
        n: vr,
        k: c.hidden,
        weight: tp === undefined ? padded : rowBlock(padded, { first, count: vr, width: c.hidden }),
        launchRows,
      });
    let logits: Uint16Array;
    if (tp === undefined) logits = await head(0);
    else {
      logits = new Uint16Array(chunk.length * vPad);
      for (let r = 0; r < tp.size; r++) {
        const block = { first: r * vr, count: vr, width: vPad };
        putColumnBlock(logits, await head(r * vr), block);
      }
    }
    chunk.forEach((b, i) => out.set(b, argmaxBf16(logits.subarray(i * vPad, i * vPad + c.vocab))));
  }
}

/** A weight [rows0, width] extended with zero rows to [rows, width]. */
function _padRows(
  w: Uint16Array,
  o: { readonly rows: number; readonly width: number },
): Uint16Array {
  const out = new Uint16Array(o.rows * o.width);
  out.set(w);
  return out;
}

/**
 * `torch.argmax` of a BF16 row: the first index of the largest value; a NaN counts as larger
 * than every number (the first NaN wins); -0 equals +0.
 *
 * @param row BF16 patterns
 * @returns the index
 * @example
 * ```ts
 * import { argmaxBf16 } from "./serving_forward.ts";
 * if (argmaxBf16(new Uint16Array([0x3f80, 0x4000, 0x4000])) !== 1) throw new Error(); // 1, 2, 2
 * if (argmaxBf16(new Uint16Array([0x8000, 0x0000])) !== 0) throw new Error(); // -0 == +0
 * ```
 */
export function argmaxBf16(row: Uint16Array): number {
  let best = -1;
  let bestKey = -Infinity;
  for (let i = 0; i < row.length; i++) {
    const b = row[i]!;
    if ((b & 0x7fff) > 0x7f80) return i;
    // Monotone key of a BF16 pattern: sign-magnitude to a signed integer (-0 and +0 equal).
    const key = b & 0x8000 ? -(b & 0x7fff) : b;
    if (best < 0 || key > bestKey) {
      best = i;
      bestKey = key;
    }
  }
  return best;
}
