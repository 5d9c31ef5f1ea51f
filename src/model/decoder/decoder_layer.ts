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
 * The stack's layer kernels (`LayerContext.kernels`) choose the norm kernels, RoPE and the shape
 * of the projections: under vLLM's custom ops q/k/v run as one `qkv_proj` GEMM of each rank's
 * blocks (q heads, then k, then v) and gate/up as one `gate_up_proj` GEMM (gate rows, then up),
 * whose outputs are split by columns; the first layer's input norm and QK-norm are `rms_norm`,
 * every other norm `fused_add_rms_norm` over the residual sum this layer computes (the same BF16
 * add the fused kernel performs).
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import {
  addBf16,
  type GemmResult,
  type LayerKernels,
  mulBf16,
  type ReduceStack,
  type RmsNormResult,
  siluBf16,
  vllmSiluAndMul,
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
import type { LayerRope } from "./layer_rope.ts";
import {
  concatRows,
  type LaunchRows,
  linearRows,
  type NormKernel,
  normRows,
  type RowsResult,
} from "./row_ops.ts";
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
  /** The stack's norm, RoPE and activation kernels and its projections' shape. */
  readonly kernels: LayerKernels;
  /** The layer's index (vLLM's first layer has no residual yet: its input norm is `rms_norm`). */
  readonly layer: number;
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
 * @param o the context, the layer's tensors `t`, the `rope` of the rows' positions and the
 *   driver's attention `core`
 * @returns the sublayer output `x + o_proj(core)` and the KV split count
 * @throws {ForwardUnsupported} when a GEMM shape is not covered, or what `core` throws
 * @example
 * ```ts ignore
 * const { out } = await attentionSublayer(x, { ctx, t, rope, core });
 * ```
 */
export async function attentionSublayer(
  x: Uint16Array,
  o: {
    readonly ctx: LayerContext;
    readonly t: LayerTensor;
    readonly rope: LayerRope;
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
  const merged = ctx.kernels.projections === "merged";
  const calls = layerCalls(
    one ? c : { ...c, heads: r0.qn, kvHeads: r0.kvn },
    ctx.kernels.projections,
  ).attention;
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
  // vLLM's QKVParallelLinear: one GEMM over the rank's q, k and v blocks, split by columns.
  const qkv = async (r: RankHeads, rank: number) => {
    const l = linearOf(calls, "qkv_proj");
    const part = async (name: "q_proj" | "k_proj" | "v_proj", first: number, count: number) => {
      const w = await t(`self_attn.${name}.weight`);
      const b = l.bias ? await t(`self_attn.${name}.bias`) : undefined;
      return {
        w: one ? w : rowBlock(w, { first: first * d, count: count * d, width: l.k }),
        b: b === undefined || one
          ? b
          : rowBlock(b, { first: first * d, count: count * d, width: 1 }),
      };
    };
    const parts = [
      await part("q_proj", r.q0, r.qn),
      await part("k_proj", r.kv0, r.kvn),
      await part("v_proj", r.kv0, r.kvn),
    ];
    const y = await linearRows(norm, {
      ...ctx,
      name: "qkv_proj",
      n: l.n,
      k: l.k,
      weight: concatRows(parts.map((p) => p.w)),
      bias: l.bias ? concatRows(parts.map((p) => p.b!)) : undefined,
      onResult: _linearSeen(ctx, "qkv_proj", rank),
    });
    const qw = r.qn * d, kw = r.kvn * d;
    return {
      q: columnBlock(y, { first: 0, count: qw, width: l.n }),
      k: columnBlock(y, { first: qw, count: kw, width: l.n }),
      v: columnBlock(y, { first: qw + kw, count: kw, width: l.n }),
    };
  };
  const oL = linearOf(calls, "o_proj");
  const oWeight = await t("self_attn.o_proj.weight");
  const oBias = await bias(oL);
  const partials: Uint16Array[] = [];
  let splits = 1;
  for (const [i, r] of ranks.entries()) {
    // The three projections are posted together: with a walker whose calling thread stays free,
    // q's norm and RoPE run while k and v are walked (each output is computed alone: same bits).
    const fused = merged ? qkv(r, i) : undefined;
    const qP = fused?.then((p) => p.q) ?? proj("q_proj", r.q0, i);
    const kP = fused?.then((p) => p.k) ?? proj("k_proj", r.kv0, i);
    const vP = fused?.then((p) => p.v) ?? proj("v_proj", r.kv0, i);
    kP.catch(() => {}); // awaited below; a failure of q must not leave these unhandled
    vP.catch(() => {});
    const rope = { ctx, t, rope: o.rope, rank: i };
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
  const merged = ctx.kernels.projections === "merged";
  const calls = layerCalls(
    tp === undefined
      ? c
      : { ...c, intermediate: rankBlock(c.intermediate, tp, "intermediate size") },
    ctx.kernels.projections,
  ).mlp;
  const biasOf = async (l: LayerLinear, name: string = l.name) =>
    l.bias ? await t(`mlp.${name}.bias`) : undefined;
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
    let downInput: Uint16Array;
    if (merged) {
      // vLLM's MergedColumnParallelLinear: one GEMM over the rank's gate rows then up rows, and
      // `silu_and_mul` on its [rows, 2 x block] output (the same products as HF's).
      const l = linearOf(calls, "gate_up_proj");
      const part = async (name: "gate_proj" | "up_proj") => {
        const w = await t(`mlp.${name}.weight`), b = l.bias ? await biasOf(l, name) : undefined;
        return {
          w: tp === undefined ? w : rowBlock(w, { ...block, width: l.k }),
          b: b === undefined || tp === undefined ? b : rowBlock(b, { ...block, width: 1 }),
        };
      };
      const gate = await part("gate_proj"), up = await part("up_proj");
      const y = await linearRows(norm, {
        ...ctx,
        name: "gate_up_proj",
        n: l.n,
        k: l.k,
        weight: concatRows([gate.w, up.w]),
        bias: l.bias ? concatRows([gate.b!, up.b!]) : undefined,
        onResult: _linearSeen(ctx, "gate_up_proj", r),
      });
      downInput = vllmSiluAndMul(y, { d: fr, mufu: ctx.runtime.sfu });
    } else {
      // Both projections are posted before either is awaited: SiLU of the gate runs while up is
      // walked (each output alone: same bits).
      const gateP = col("gate_proj");
      const upP = col("up_proj");
      upP.catch(() => {}); // awaited below; a failure of gate must not leave it unhandled
      const act = siluBf16(await gateP, { mufu: ctx.runtime.sfu });
      ctx.onIntermediate?.({ kind: "tensor", name: "act", rank: r, value: act });
      downInput = mulBf16(act, await upP);
    }
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
    readonly rope: LayerRope;
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
  const value = o.rope(normed, o.heads);
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
    kernel: normKernelOf(ctx.kernels, { name: call.name, layer: ctx.layer }),
  });
}

/**
 * The kernel of one of a layer's RMSNorms (or of the model's final norm, `name` `final`) under
 * a stack's layer kernels: PyTorch's reduce kernel, or vLLM's `rms_norm` where no residual is
 * carried (QK-norm, the first layer's input norm) and `fused_add_rms_norm` elsewhere.
 *
 * @param kernels the stack's layer kernels
 * @param o the norm and the layer's index
 * @returns the kernel
 * @example
 * ```ts
 * import { normKernelOf } from "./decoder_layer.ts";
 * const vllm = { norm: "vllm-cuda" } as const;
 * if (normKernelOf(vllm, { name: "input_layernorm", layer: 0 }) !== "vllm-rms-norm") throw new Error();
 * if (normKernelOf(vllm, { name: "input_layernorm", layer: 1 }) !== "vllm-fused-add-rms-norm") throw new Error();
 * if (normKernelOf({ norm: "torch-reduce" }, { name: "final", layer: 0 }) !== "torch") throw new Error();
 * ```
 */
export function normKernelOf(
  kernels: Pick<LayerKernels, "norm">,
  o: { readonly name: LayerNormName | "final"; readonly layer: number },
): NormKernel {
  if (kernels.norm === "torch-reduce") return "torch";
  const plain = o.name === "q_norm" || o.name === "k_norm" ||
    (o.name === "input_layernorm" && o.layer === 0);
  return plain ? "vllm-rms-norm" : "vllm-fused-add-rms-norm";
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
