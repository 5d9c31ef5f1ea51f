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
 * prefill's bits (every row in one launch) and a serving pass's.
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import {
  addBf16,
  applyRope,
  mulBf16,
  type ReduceStack,
  type RopeTables,
  siluBf16,
} from "../../kernels/mod.ts";
import type { BlockRuntime } from "../blocks/mod.ts";
import type { DecoderConfig } from "../checkpoint/mod.ts";
import { type LaunchRows, linearRows, normRows } from "./row_ops.ts";

/** A layer's tensor by its name inside the layer (`self_attn.q_proj.weight`). */
export type LayerTensor = (name: string) => Promise<Uint16Array>;

/** What every sublayer of a forward shares. */
export interface LayerContext {
  /** The model description. */
  readonly config: DecoderConfig;
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
}

/**
 * The attention core of a driver: RoPE'd q [rows, heads * d], RoPE'd k and v [rows, kvHeads * d]
 * in, the core output [rows, heads * d] (rows the driver leaves out stay zero) and the KV split
 * count out.
 */
export type AttentionCore = (
  q: Uint16Array,
  k: Uint16Array,
  v: Uint16Array,
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
  const { hidden: h, heads, kvHeads, headDim: d } = c;
  const norm = _norm(x, ctx, { width: h, perRow: 1, weight: await t("input_layernorm.weight") });
  const proj = async (name: "q_proj" | "k_proj" | "v_proj", n: number) =>
    linearRows(norm, {
      ...ctx,
      name,
      n,
      k: h,
      weight: await t(`self_attn.${name}.weight`),
      bias: c.bias.qkv ? await t(`self_attn.${name}.bias`) : undefined,
    });
  // The three projections are posted together: with a walker whose calling thread stays free,
  // q's norm and RoPE run while k and v are walked (each output is computed alone: same bits).
  const qP = proj("q_proj", heads * d);
  const kP = proj("k_proj", kvHeads * d);
  const vP = proj("v_proj", kvHeads * d);
  kP.catch(() => {}); // awaited below; a failure of q must not leave these unhandled
  vP.catch(() => {});
  const qr = await _headNormRope(await qP, { ctx, t, which: "q", heads, tables: o.tables });
  const kr = await _headNormRope(await kP, {
    ctx,
    t,
    which: "k",
    heads: kvHeads,
    tables: o.tables,
  });
  const { core, splits } = await o.core(qr, kr, await vP);
  const out = await linearRows(core, {
    ...ctx,
    name: "o_proj",
    n: h,
    k: heads * d,
    weight: await t("self_attn.o_proj.weight"),
    bias: c.bias.o ? await t("self_attn.o_proj.bias") : undefined,
  });
  return { out: addBf16(x, out), splits };
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
  const { hidden: h, intermediate: f, bias } = ctx.config;
  const weight = await t("post_attention_layernorm.weight");
  const norm = _norm(x, ctx, { width: h, perRow: 1, weight });
  const p = async (a: Uint16Array, name: "gate_proj" | "up_proj" | "down_proj", n: number) =>
    linearRows(a, {
      ...ctx,
      name,
      n,
      k: name === "down_proj" ? f : h,
      weight: await t(`mlp.${name}.weight`),
      bias: bias.mlp ? await t(`mlp.${name}.bias`) : undefined,
    });
  // Both projections are posted before either is awaited: SiLU of the gate runs while up is
  // walked (each output alone: same bits).
  const gateP = p(norm, "gate_proj", f);
  const upP = p(norm, "up_proj", f);
  upP.catch(() => {}); // awaited below; a failure of gate must not leave it unhandled
  const act = siluBf16(await gateP, { mufu: ctx.runtime.sfu });
  return addBf16(x, await p(mulBf16(act, await upP), "down_proj", h));
}

/** QK-norm (when the family has it) and RoPE of q or k. */
async function _headNormRope(
  a: Uint16Array,
  o: {
    ctx: LayerContext;
    t: LayerTensor;
    which: "q" | "k";
    heads: number;
    tables: RopeTables;
  },
): Promise<Uint16Array> {
  const { ctx } = o;
  const normed = ctx.config.qkNorm
    ? _norm(a, ctx, {
      width: ctx.config.headDim,
      perRow: o.heads,
      weight: await o.t(`self_attn.${o.which}_norm.weight`),
    })
    : a;
  return applyRope(normed, { tables: o.tables, heads: o.heads });
}

function _norm(
  x: Uint16Array,
  ctx: LayerContext,
  o: { width: number; perRow: number; weight: Uint16Array },
): Uint16Array {
  return normRows(x, {
    ...o,
    runtime: ctx.runtime,
    stack: ctx.reduceStack,
    eps: ctx.eps,
    launchRows: ctx.launchRows,
  });
}
