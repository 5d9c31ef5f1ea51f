/**
 * How a block claim runs the one decoder layer (`../decoder/`): in the layer context of its plan
 * (its datapath, reduce tree and eps, every row in one launch of the plan's tokens, and a
 * dispatch that answers with the plan's recipes only, so the kernels that run are those the plan
 * fixed), with the block's weights as the layer's tensors (each checked against the size the
 * layer's calls give it), collecting the intermediates the layer reports by name.
 *
 * @module
 */
import type { GemmResult, RmsNormResult } from "../../kernels/mod.ts";
import {
  type BlockRuntime,
  type GemmDispatch,
  layerCalls,
  type LayerContext,
  type LayerNormName,
  type LayerObserver,
  type LayerTensor,
  type ProjectionName,
  type SublayerCalls,
} from "../decoder/mod.ts";
import { _expectLength, type BlockPlanBase } from "./block_support.ts";
import { denseLayerConfig, type DenseLayerShape } from "./layer_shape.ts";

/** What a block plan fixes that its layer context needs. */
export type BlockLayerPlan = BlockPlanBase & {
  readonly shape: DenseLayerShape;
  readonly eps: number;
};

/** One weight of a block: its field in the block's weights, the layer's name of it, its values. */
export type BlockWeight = readonly [field: string, tensor: string, value: Uint16Array];

/**
 * Runs a planned block as the one decoder layer's sublayer: checks the input and the weights
 * against the sublayer's calls, runs it in the plan's layer context (the plan's kernels, every
 * row in one launch of `plan.tokens`) and collects what the layer reports.
 *
 * @param x block input [tokens, hidden], BF16 patterns
 * @param o the plan, the runtime it was made with, which sublayer, its `tensors` (checked in
 *   order) and `run`, which runs the sublayer in the context with the tensors
 * @returns the sublayer's output and its intermediates
 * @throws {TypeError} naming x or the first weight whose length is not its call's
 * @example
 * ```ts ignore
 * const { out, seen } = await runBlockSublayer(x, {
 *   plan, runtime, sublayer: "mlp", tensors: [["norm", "post_attention_layernorm.weight", w]],
 *   run: (ctx, t) => denseMlpSublayer(x, { ctx, t }),
 * });
 * ```
 */
export async function runBlockSublayer(
  x: Uint16Array,
  o: {
    readonly plan: BlockLayerPlan;
    readonly runtime: BlockRuntime;
    readonly sublayer: "attention" | "mlp";
    readonly tensors: readonly BlockWeight[];
    readonly run: (ctx: LayerContext, t: LayerTensor) => Promise<Uint16Array>;
  },
): Promise<{ readonly out: Uint16Array; readonly seen: BlockIntermediates }> {
  const { plan } = o;
  const config = denseLayerConfig(plan.shape);
  _expectLength("x", x, plan.tokens * config.hidden);
  const t = _tensors(layerCalls(config)[o.sublayer], o.tensors);
  const seen = _intermediates();
  const ctx: LayerContext = {
    config,
    runtime: { ...o.runtime, gemm: _plannedDispatch(plan) },
    datapath: plan.datapath,
    reduceStack: plan.reduceStack,
    kernels: plan.ops.layer,
    layer: 0,
    eps: plan.eps,
    launchRows: new Int32Array(plan.tokens).fill(plan.tokens),
    onIntermediate: seen.onIntermediate,
  };
  return { out: await o.run(ctx, t), seen };
}

/** The plan's recipe of each projection at the plan's token count; nothing else is covered. */
function _plannedDispatch(plan: BlockPlanBase): GemmDispatch {
  return (call) => {
    const recipe = plan.recipes[call.name];
    return recipe !== undefined && call.m === plan.tokens
      ? { covered: true, recipe }
      : { covered: false, reason: `${call.name}: the plan fixes no recipe for M = ${call.m}` };
  };
}

/**
 * The block's weights by the layer's names, each checked against its call: a linear's weight
 * (`self_attn.q_proj.weight`) holds N x K values, a norm's (`self_attn.q_norm.weight`) its length.
 */
function _tensors(calls: SublayerCalls, weights: readonly BlockWeight[]): LayerTensor {
  const byName = new Map<string, Uint16Array>();
  for (const [field, tensor, value] of weights) {
    const module = tensor.replace(/^(self_attn|mlp)\./, "").replace(/\.weight$/, "");
    const linear = calls.linears.find((l) => l.name === module);
    const norm = calls.reductions.find((r) => r.name === module);
    const size = linear !== undefined ? linear.n * linear.k : norm?.length;
    if (size === undefined) throw new RangeError(`Cannot run block: no call uses '${tensor}'`);
    _expectLength(`weights.${field}`, value, size);
    byName.set(tensor, value);
  }
  return (name) => {
    const t = byName.get(name);
    if (t === undefined) {
      return Promise.reject(new RangeError(`Cannot run block: it has no tensor '${name}'`));
    }
    return Promise.resolve(t);
  };
}

/** The intermediates a block's layer reported, by name. */
export interface BlockIntermediates {
  /** The observer to give the layer. */
  readonly onIntermediate: LayerObserver;
  /** An RMSNorm's result. */
  readonly norm: (name: LayerNormName) => RmsNormResult;
  /** A linear's GEMM result. */
  readonly linear: (name: ProjectionName) => GemmResult;
  /** A tensor between kernels. */
  readonly tensor: (name: "q_rope" | "k_rope" | "act" | "down_input") => Uint16Array;
}

/** A collector of a block's intermediates (one rank, one launch: each name reported once). */
function _intermediates(): BlockIntermediates {
  const norms = new Map<LayerNormName, RmsNormResult>();
  const linears = new Map<ProjectionName, GemmResult>();
  const tensors = new Map<string, Uint16Array>();
  const get = <K, V>(map: ReadonlyMap<K, V>, name: K): V => {
    const v = map.get(name);
    if (v === undefined) throw new Error(`Cannot run block: the layer reported no '${name}'`);
    return v;
  };
  return {
    onIntermediate: (i) => {
      if (i.rank !== 0 || (i.kind !== "tensor" && i.rows !== undefined)) {
        throw new Error(`Cannot run block: '${i.name}' ran on several ranks or launches`);
      }
      if (i.kind === "norm") norms.set(i.name, i.result);
      else if (i.kind === "linear") linears.set(i.name, i.result);
      else tensors.set(i.name, i.value);
    },
    norm: (name) => get(norms, name),
    linear: (name) => get(linears, name),
    tensor: (name) => get(tensors, name),
  };
}
