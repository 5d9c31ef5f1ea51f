/**
 * One decoder layer, written once for every driver (prefill forward, serving replay) and every
 * family: the order of operations is HF Transformers' decoder layer (spec `model.md` §2,
 * `stack_pytorch_hf.md` §1.1-§1.4), and what varies between families comes from the config
 * (`DecoderConfig`): QK-norm or not, which projections carry a bias, dense MLP or MoE.
 *
 * Attention sublayer: input RMSNorm; q, k, v projections (+ bias); per-head QK-norm of q and k
 * (Qwen3 families); RoPE at each row's position; the attention core, which the driver supplies
 * (a prefill batch's FA2 or eager launch, or a serving pass's varlen attention over its KV cache);
 * the o projection (+ bias); the residual add. MLP sublayer (dense): post-attention RMSNorm;
 * gate and up projections; `silu(gate) * up`; the down projection; the residual add. The MoE
 * sublayer's routing and experts are the driver's (`runMoeBlock`), since which rows share an
 * expert launch depends on the pass.
 *
 * Rows run in launches of recorded sizes (`row_ops.ts`), so one implementation gives both a
 * prefill's bits (every row in one launch) and a serving pass's. Every GEMM's N and K and every
 * norm's launch come from the layer's calls (`layerCalls`, of the rank's view under tensor
 * parallelism), the description the decode signature and the block plans read too. With an
 * observer (`onIntermediate`) the layer reports each intermediate with the kernel's whole result,
 * which block claims return; without one it keeps nothing more.
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import {
  addBf16,
  applyRope,
  type GemmResult,
  mulBf16,
  type ReduceStack,
  type RmsNormResult,
  type RopeTables,
  siluBf16,
} from "../../kernels/mod.ts";
import type { BlockRuntime, ProjectionName } from "./block_runtime.ts";
import {
  layerCalls,
  type LayerConfig,
  type LayerLinear,
  type LayerNormName,
  type LayerReduction,
  linearOf,
  reductionOf,
} from "./layer_calls.ts";
import type { LayerObserver } from "./layer_observer.ts";
import { type LaunchRows, linearRows, normRows, type RowsResult } from "./row_ops.ts";
import {
  columnBlock,
  rankBlock,
  type RankHeads,
  rankHeads,
  reduceRows,
  rowBlock,
  type TensorParallel,
} from "./tensor_parallel.ts";

/** A layer's tensor by its name inside the layer (`self_attn.q_proj.weight`). */
export type LayerTensor = (name: string) => Promise<Uint16Array>;

/** What every sublayer of a forward shares. */
export interface LayerContext {
  /** The model description (what a layer reads of it). */
  readonly config: LayerConfig;
  /** Profile, stack, GEMM dispatch, K-walker, SFU, attention runner. */
  readonly runtime: BlockRuntime;
  /** Tensor-core datapath of the GEMMs. */
  readonly datapath: Datapath;
  /** Reduction settings of the stack's norms. */
  readonly reduceStack: ReduceStack;
  /** RMSNorm epsilon (also QK-norm's). */
  readonly eps: number;
  /** Each activation row's launch size. */
  readonly launchRows: LaunchRows;
  /**
   * Each activation row's place in its launch (a serving pass's rows, where the all-reduce order
   * depends on it); default: the rows are one launch, in order.
   */
  readonly launchRow?: Int32Array | undefined;
  /** The tensor-parallel split; absent on one GPU. */
  readonly parallel?: TensorParallel | undefined;
  /** Receives every intermediate (block claims); absent: none is kept. */
  readonly onIntermediate?: LayerObserver | undefined;
}

/**
 * The attention core of a driver, run once per tensor-parallel rank on the rank's heads: RoPE'd
 * q [rows, qn * d], RoPE'd k and v [rows, kvn * d] in, the core output [rows, qn * d] (rows the
 * driver leaves out stay zero) and the KV split count out. Without tensor parallelism `rank`
 * covers every head.
 */
export type AttentionCore = (
  q: Uint16Array,
  k: Uint16Array,
  v: Uint16Array,
  rank: RankHeads,
) => Promise<{ readonly core: Uint16Array; readonly splits: number }>;

/**
 * Runs the attention sublayer.
 *
 * @param x the layer input [rows, hidden] (BF16 patterns)
 * @param o the context, the layer's tensors `t`, the RoPE `tables` of the rows' positions and
 *   the driver's attention `core`
 * @returns the sublayer output `x + o_proj(core)` and the KV split count
 * @throws {ForwardUnsupported} when a GEMM shape is not covered, or what `core` throws
 * @example
 * ```ts ignore
 * const { out } = await attentionSublayer(x, { ctx, t, tables, core });
 * ```
 */
export async function attentionSublayer(
  x: Uint16Array,
  o: {
    readonly ctx: LayerContext;
    readonly t: LayerTensor;
    readonly tables: RopeTables;
    readonly core: AttentionCore;
  },
): Promise<{ out: Uint16Array; splits: number }> {
  const { ctx, t } = o;
  const { config: c } = ctx;
  const d = c.headDim;
  const tp = ctx.parallel;
  const ranks = rankHeads(c, tp);
  const one = ranks.length === 1;
  // A rank's calls are those of its view of the config (its heads and KV heads, as `rankView`
  // gives them); every rank holds as many heads, so one rank's calls are every rank's.
  const r0 = ranks[0]!;
  const calls = layerCalls(one ? c : { ...c, heads: r0.qn, kvHeads: r0.kvn }).attention;
  const norm = _norm(x, ctx, {
    call: reductionOf(calls, "input_layernorm")!,
    rank: 0,
    weight: await t("input_layernorm.weight"),
  });
  const bias = async (l: LayerLinear) => l.bias ? await t(`self_attn.${l.name}.bias`) : undefined;
  // Each rank's block of a column-parallel projection: its heads from head `first`.
  const proj = async (name: "q_proj" | "k_proj" | "v_proj", first: number, rank: number) => {
    const l = linearOf(calls, name);
    const w = await t(`self_attn.${name}.weight`), b = await bias(l);
    const block = { first: first * d, count: l.n };
    return await linearRows(norm, {
      ...ctx,
      name,
      n: l.n,
      k: l.k,
      weight: one ? w : rowBlock(w, { ...block, width: l.k }),
      bias: b === undefined || one ? b : rowBlock(b, { ...block, width: 1 }),
      onResult: _linearSeen(ctx, name, rank),
    });
  };
  const oL = linearOf(calls, "o_proj");
  const oWeight = await t("self_attn.o_proj.weight");
  const oBias = await bias(oL);
  const partials: Uint16Array[] = [];
  let splits = 1;
  for (const [i, r] of ranks.entries()) {
    // The three projections are posted together: with a walker whose calling thread stays free,
    // q's norm and RoPE run while k and v are walked (each output is computed alone: same bits).
    const qP = proj("q_proj", r.q0, i);
    const kP = proj("k_proj", r.kv0, i);
    const vP = proj("v_proj", r.kv0, i);
    kP.catch(() => {}); // awaited below; a failure of q must not leave these unhandled
    vP.catch(() => {});
    const rope = { ctx, t, tables: o.tables, rank: i };
    const qr = await _headNormRope(await qP, {
      ...rope,
      which: "q",
      heads: r.qn,
      norm: reductionOf(calls, "q_norm"),
    });
    const kr = await _headNormRope(await kP, {
      ...rope,
      which: "k",
      heads: r.kvn,
      norm: reductionOf(calls, "k_norm"),
    });
    const core = await o.core(qr, kr, await vP, r);
    splits = Math.max(splits, core.splits);
    partials.push(
      await linearRows(core.core, {
        ...ctx,
        name: "o_proj",
        n: oL.n,
        k: oL.k,
        weight: one
          ? oWeight
          : columnBlock(oWeight, { first: r.q0 * d, count: oL.k, width: c.heads * d }),
        bias: one ? oBias : _rank0Bias(tp, r.q0 === 0, oBias),
        onResult: _linearSeen(ctx, "o_proj", i),
      }),
    );
  }
  const out = _rowParallelOut(partials, { ctx, bias: oBias });
  return { out: addBf16(x, out), splits };
}

/** The bias a row-parallel rank's GEMM applies (rank 0's epilogue under such a layout). */
function _rank0Bias(
  tp: TensorParallel | undefined,
  first: boolean,
  bias: Uint16Array | undefined,
): Uint16Array | undefined {
  return tp?.layout.rowParallelBias === "rank0-epilogue" && first ? bias : undefined;
}

/**
 * A row-parallel projection's output from the ranks' partials: the one partial without tensor
 * parallelism; else the all-reduce, then the bias as a BF16 add where the layout adds it after.
 */
function _rowParallelOut(
  partials: readonly Uint16Array[],
  o: { readonly ctx: LayerContext; readonly bias: Uint16Array | undefined },
): Uint16Array {
  const { ctx } = o;
  const tp = ctx.parallel;
  if (tp === undefined) return partials[0]!;
  const width = ctx.config.hidden;
  const out = reduceRows(partials, {
    tp,
    width,
    launchRows: ctx.launchRows,
    launchRow: ctx.launchRow,
  });
  if (o.bias === undefined || tp.layout.rowParallelBias !== "after-all-reduce") return out;
  const b = new Uint16Array(out.length);
  for (let i = 0; i < out.length; i += width) b.set(o.bias, i);
  return addBf16(out, b);
}

/**
 * Runs the dense MLP sublayer.
 *
 * @param x the sublayer input [rows, hidden] (the attention sublayer's output)
 * @param o the context and the layer's tensors `t`
 * @returns `x + down(silu(gate(n)) * up(n))` with `n` the post-attention RMSNorm of `x`
 * @throws {ForwardUnsupported} when a GEMM shape is not covered
 * @example
 * ```ts ignore
 * x = await denseMlpSublayer(x, { ctx, t });
 * ```
 */
export async function denseMlpSublayer(
  x: Uint16Array,
  o: { readonly ctx: LayerContext; readonly t: LayerTensor },
): Promise<Uint16Array> {
  const { ctx, t } = o;
  const { config: c } = ctx;
  const tp = ctx.parallel;
  // A rank's calls are those of its view of the config (its block of the intermediate size).
  const calls = layerCalls(
    tp === undefined
      ? c
      : { ...c, intermediate: rankBlock(c.intermediate, tp, "intermediate size") },
  ).mlp;
  const biasOf = async (l: LayerLinear) => l.bias ? await t(`mlp.${l.name}.bias`) : undefined;
  const norm = _norm(x, ctx, {
    call: reductionOf(calls, "post_attention_layernorm")!,
    rank: 0,
    weight: await t("post_attention_layernorm.weight"),
  });
  const downL = linearOf(calls, "down_proj");
  const fr = downL.k;
  const downW = await t("mlp.down_proj.weight"), downB = await biasOf(downL);
  const partials: Uint16Array[] = [];
  for (let r = 0; r < (tp?.size ?? 1); r++) {
    // Rank r's block of gate and up (rows r * fr ..), and of down's columns.
    const block = { first: r * fr, count: fr };
    const col = async (name: "gate_proj" | "up_proj") => {
      const l = linearOf(calls, name);
      const w = await t(`mlp.${name}.weight`), b = await biasOf(l);
      return await linearRows(norm, {
        ...ctx,
        name,
        n: l.n,
        k: l.k,
        weight: tp === undefined ? w : rowBlock(w, { ...block, width: l.k }),
        bias: b === undefined || tp === undefined ? b : rowBlock(b, { ...block, width: 1 }),
        onResult: _linearSeen(ctx, name, r),
      });
    };
    // Both projections are posted before either is awaited: SiLU of the gate runs while up is
    // walked (each output alone: same bits).
    const gateP = col("gate_proj");
    const upP = col("up_proj");
    upP.catch(() => {}); // awaited below; a failure of gate must not leave it unhandled
    const act = siluBf16(await gateP, { mufu: ctx.runtime.sfu });
    ctx.onIntermediate?.({ kind: "tensor", name: "act", rank: r, value: act });
    const downInput = mulBf16(act, await upP);
    ctx.onIntermediate?.({ kind: "tensor", name: "down_input", rank: r, value: downInput });
    partials.push(
      await linearRows(downInput, {
        ...ctx,
        name: "down_proj",
        n: downL.n,
        k: downL.k,
        weight: tp === undefined ? downW : columnBlock(downW, { ...block, width: c.intermediate }),
        bias: tp === undefined ? downB : _rank0Bias(tp, r === 0, downB),
        onResult: _linearSeen(ctx, "down_proj", r),
      }),
    );
  }
  return addBf16(x, _rowParallelOut(partials, { ctx, bias: downB }));
}

/** QK-norm (where the layer's calls have it) and RoPE of q or k. */
async function _headNormRope(
  a: Uint16Array,
  o: {
    readonly ctx: LayerContext;
    readonly t: LayerTensor;
    readonly which: "q" | "k";
    readonly heads: number;
    readonly tables: RopeTables;
    readonly rank: number;
    readonly norm: (LayerReduction & { readonly name: LayerNormName }) | undefined;
  },
): Promise<Uint16Array> {
  const { ctx, norm } = o;
  const normed = norm === undefined ? a : _norm(a, ctx, {
    call: norm,
    rank: o.rank,
    weight: await o.t(`self_attn.${norm.name}.weight`),
  });
  const value = applyRope(normed, { tables: o.tables, heads: o.heads });
  ctx.onIntermediate?.({ kind: "tensor", name: `${o.which}_rope`, rank: o.rank, value });
  return value;
}

/** An RMSNorm of the layer's calls over the activation rows (each launch's configuration). */
function _norm(
  x: Uint16Array,
  ctx: LayerContext,
  o: {
    readonly call: LayerReduction & { readonly name: LayerNormName };
    readonly rank: number;
    readonly weight: Uint16Array;
  },
): Uint16Array {
  const { call, rank } = o;
  const seen = ctx.onIntermediate;
  const onResult: RowsResult<RmsNormResult> | undefined = seen === undefined
    ? undefined
    : (result, rows) => seen({ kind: "norm", name: call.name, rank, rows, result });
  return normRows(x, {
    width: call.length,
    perRow: call.perRow,
    weight: o.weight,
    runtime: ctx.runtime,
    stack: ctx.reduceStack,
    eps: ctx.eps,
    launchRows: ctx.launchRows,
    onResult,
  });
}

/** Reports a linear's GEMM results to the context's observer, if any. */
function _linearSeen(
  ctx: LayerContext,
  name: ProjectionName,
  rank: number,
): RowsResult<GemmResult> | undefined {
  const seen = ctx.onIntermediate;
  return seen === undefined
    ? undefined
    : (result, rows) => seen({ kind: "linear", name, rank, rows, result });
}
