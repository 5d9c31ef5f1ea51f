/**
 * The sparse MoE block of a Qwen3-MoE decoder layer as HF Transformers 4.5x runs it
 * (`Qwen3MoeSparseMoeBlock`, spec `stack_pytorch_hf.md` §1.7 and the paper's MoE appendix):
 * ```
 * h       = RMSNorm(x; post_attention_layernorm)                 [M, H]  (every row, pads too)
 * logits  = bf16(h Wr^T)                                          [M, E]  (mlp.gate, a GEMM)
 * p       = softmax(float(logits), dim=-1)                        FP32, PyTorch's kernel
 * w, idx  = topk(p, k)          values descending, ties to the lower expert id
 * w       = w / w.sum(-1)       if norm_topk_prob: reduce-kernel sum, IEEE division
 * w       = bf16(w)
 * y       = 0 (BF16 [M, H])
 * for expert e ascending, if any row chose it:
 *   rows  = (slot, token) pairs choosing e, slot-major then token   (torch.where order)
 *   out   = down(bf16(silu(gate(h[rows]))) * up(h[rows]))          GEMMs with M = len(rows)
 *   y[rows] = y[rows] (+) bf16(out * w[rows, slot])                index_add_: one rounding
 * x'      = bf16(x + y)
 * ```
 * Each expert's GEMM row count is the number of (token, slot) pairs routed to it across the
 * whole batch, so it depends on the batch composition (the dispatch decides kernels from it).
 *
 * @module
 */
import { isHostResourceError } from "../../errors.ts";
import { type Datapath, divF32 } from "../../hardware/mod.ts";
import {
  addBf16,
  mulBf16,
  type ReduceStack,
  reduceSumRows,
  rmsNorm,
  siluBf16,
  softmaxRows,
} from "../../kernels/mod.ts";
import { f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import type { MoeConfig } from "../checkpoint/mod.ts";
import { addBf16Once } from "./bf16_add_once.ts";
import {
  type BlockRuntime,
  columnBlock,
  ForwardUnsupported,
  type LayerLinear,
  linearOf,
  linearRows,
  moeCalls,
  orderByPlace,
  type ProjectionName,
  rankBlock,
  reduceRows,
  rowBlock,
  type SublayerCalls,
  type TensorParallel,
} from "../decoder/mod.ts";

/** One expert's weights (HF layouts). */
export interface ExpertWeights {
  /** `gate_proj.weight` [Im, H]. */
  readonly gate: Uint16Array;
  /** `up_proj.weight` [Im, H]. */
  readonly up: Uint16Array;
  /** `down_proj.weight` [H, Im]. */
  readonly down: Uint16Array;
}

/**
 * The loader of a layer's experts by id, from the layer's tensors (HF names).
 *
 * @param t the layer's tensors
 * @returns expert e's gate, up and down weights
 * @example
 * ```ts ignore
 * const expert = layerExperts(t);
 * const w = await expert(3);
 * ```
 */
export function layerExperts(
  t: (name: string) => Promise<Uint16Array>,
): (e: number) => Promise<ExpertWeights> {
  return async (e) => ({
    gate: await t(`mlp.experts.${e}.gate_proj.weight`),
    up: await t(`mlp.experts.${e}.up_proj.weight`),
    down: await t(`mlp.experts.${e}.down_proj.weight`),
  });
}

/** What the MoE block needs besides its input. */
export interface MoeBlockOptions {
  /** Hidden size. */
  readonly hidden: number;
  /** The MoE part of the configuration (experts, top-k, renormalisation). */
  readonly moe: MoeConfig;
  /** Where GEMMs run. */
  readonly runtime: BlockRuntime;
  /** Tensor-core datapath of the GEMMs. */
  readonly datapath: Datapath;
  /** Reduction settings of the stack's norms and router softmax. */
  readonly reduceStack: ReduceStack;
  /** PyTorch version of the stack (selects its reduction presets). */
  readonly torchVersion: string;
  /** RMSNorm epsilon. */
  readonly eps: number;
  /** `post_attention_layernorm.weight` [H]. */
  readonly norm: Uint16Array;
  /** `mlp.gate.weight` [E, H]. */
  readonly router: Uint16Array;
  /** Loads expert e's weights (called once per visited expert, ascending). */
  readonly expert: (e: number) => Promise<ExpertWeights>;
  /**
   * The tensor-parallel split, absent on one GPU: each rank holds a block of every expert's
   * intermediate (gate/up rows, down columns) and, under the HF plan, each expert's down_proj
   * output is all-reduced on its own (a message of the expert's GEMM rows) before its routing
   * weight; the router and the norm are replicated.
   */
  readonly parallel?: TensorParallel | undefined;
  /**
   * The whole batch when `x` holds only some of its rows (one sequence of a serving pass):
   * `rows` of the batch (norm and top-k-sum launches, router GEMM dispatch) and, for each expert
   * the computed rows reach, its GEMM row count across the batch (`own` is the computed rows'
   * share; the callback may throw when the recorded count cannot contain it).
   */
  readonly launch?: {
    readonly rows: number;
    readonly expertRows: (expert: number, own: number) => number;
  };
}

/** The routing of a batch: top-k experts and BF16 weights per row. */
export interface MoeRouting {
  /** Expert ids [M, k], per row in descending probability. */
  readonly experts: Int32Array;
  /** BF16 routing weights [M, k]. */
  readonly weights: Uint16Array;
}

/**
 * Runs the MoE block on [rows, hidden].
 *
 * @param x block input, BF16 patterns
 * @param o sizes, runtime, weights and the expert loader
 * @returns the block output, the routing and each visited expert's GEMM row count
 * @throws {ForwardUnsupported} when a GEMM shape is not covered or the softmax row length is not
 *   modelled for the stack's torch version
 * @example
 * ```ts ignore
 * const r = await runMoeBlock(x, { hidden, moe, runtime, datapath, ... });
 * ```
 */
export async function runMoeBlock(
  x: Uint16Array,
  o: MoeBlockOptions,
): Promise<{ out: Uint16Array; routing: MoeRouting; expertRows: Map<number, number> }> {
  const { hidden: h, moe, runtime } = o;
  const m = x.length / h;
  if (o.parallel?.expertParallel === true) {
    throw new ForwardUnsupported("expert parallelism with HF's ModuleList experts is not modelled");
  }
  const launchRows = o.launch?.rows ?? m;
  const calls = moeCalls(o);
  // A rank's expert GEMMs are those of its view (its block of the expert width).
  const tp = o.parallel;
  const rankCalls = tp === undefined ? calls : moeCalls({
    hidden: h,
    moe: { ...moe, intermediate: rankBlock(moe.intermediate, tp, "MoE intermediate size") },
  });
  const norm = rmsNorm(x, {
    rows: m,
    launchRows,
    hidden: h,
    weight: o.norm,
    sfu: runtime.sfu,
    stack: o.reduceStack,
    eps: o.eps,
  });
  const logits = await _linear(norm.output, {
    ...o,
    linear: linearOf(calls, "router"),
    weight: o.router,
    gemmRows: launchRows,
  });
  const routing = routeTopK(logits, { ...o, rows: m, launchRows });
  const y = new Uint16Array(m * h);
  const expertRows = new Map<number, number>();
  const k = moe.topK;
  for (let e = 0; e < moe.experts; e++) {
    const pairs: [number, number][] = []; // (token, slot), slot-major then token
    for (let s = 0; s < k; s++) {
      for (let t = 0; t < m; t++) if (routing.experts[t * k + s] === e) pairs.push([t, s]);
    }
    if (pairs.length === 0) continue;
    expertRows.set(e, pairs.length);
    const w = await o.expert(e);
    const xe = new Uint16Array(pairs.length * h);
    pairs.forEach(([t], i) => xe.set(norm.output.subarray(t * h, (t + 1) * h), i * h));
    const launchM = o.launch?.expertRows(e, pairs.length) ?? pairs.length;
    const out = await _expertMlp(xe, { ...o, rows: pairs.length, launchM, w, calls, rankCalls });
    const scale = new Uint16Array(out.length);
    pairs.forEach(([t, s], i) => scale.fill(routing.weights[t * k + s]!, i * h, (i + 1) * h));
    const scaled = mulBf16(out, scale);
    pairs.forEach(([t], i) => {
      for (let j = 0; j < h; j++) y[t * h + j] = addBf16Once(y[t * h + j]!, scaled[i * h + j]!);
    });
  }
  return { out: addBf16(x, y), routing, expertRows };
}

/**
 * Router softmax, top-k, optional renormalisation and the BF16 cast, as HF 4.5x computes them.
 *
 * @param logits router logits [rows, E], BF16 patterns
 * @param o the MoE config, rows, torch version (softmax kernel), reduce stack, runtime (SFU)
 * @returns experts and BF16 weights per row
 * @throws {ForwardUnsupported} when the torch version's softmax kernel for E is not modelled, or
 *   a row's probabilities hold NaN
 * @example
 * ```ts ignore
 * const r = routeTopK(logits, { moe, rows, torchVersion: "2.8.0", reduceStack, runtime });
 * ```
 */
export function routeTopK(
  logits: Uint16Array,
  o: {
    readonly moe: MoeConfig;
    readonly rows: number;
    /** Rows of the whole batch when `logits` hold only some (top-k sum launch; default rows). */
    readonly launchRows?: number;
    readonly torchVersion: string;
    readonly reduceStack: ReduceStack;
    readonly runtime: BlockRuntime;
  },
): MoeRouting {
  const { moe, rows: m } = o;
  const e = moe.experts, k = moe.topK;
  const x32 = new Uint32Array(logits.length);
  for (let i = 0; i < logits.length; i++) x32[i] = (logits[i]! << 16) >>> 0;
  let p: Uint32Array;
  try {
    p = softmaxRows(x32, { dim: e, torchVersion: o.torchVersion, mufu: o.runtime.sfu });
  } catch (err) {
    if (err instanceof RangeError && !isHostResourceError(err)) {
      throw new ForwardUnsupported(`router softmax over ${e} experts: ${err.message}`);
    }
    throw err;
  }
  const experts = new Int32Array(m * k);
  const top = new Uint32Array(m * k);
  const order = Array.from({ length: e }, (_, i) => i);
  for (let t = 0; t < m; t++) {
    const row = p.subarray(t * e, (t + 1) * e);
    // torch.topk orders NaN above every number, and which of tied NaNs its CUDA selection keeps
    // is not modelled (a NaN router logit or an infinite one makes the whole row NaN).
    if (row.some((bits) => Number.isNaN(f32FromBits(bits)))) {
      throw new ForwardUnsupported(
        `router probabilities of token ${t} hold NaN (torch.topk's choice among NaNs is not modelled)`,
      );
    }
    // Probabilities are non-negative FP32: value order is numeric order; ties to the lower id.
    const sorted = order.slice().sort((a, b) =>
      f32FromBits(row[b]!) - f32FromBits(row[a]!) || a - b
    );
    for (let s = 0; s < k; s++) {
      experts[t * k + s] = sorted[s]!;
      top[t * k + s] = row[sorted[s]!]!;
    }
  }
  if (moe.normTopkProb) {
    const sums = reduceSumRows(top, {
      rows: m,
      length: k,
      stack: o.reduceStack,
      launchRows: o.launchRows ?? m,
    });
    for (let t = 0; t < m; t++) {
      for (let s = 0; s < k; s++) top[t * k + s] = divF32(top[t * k + s]!, sums[t]!);
    }
  }
  const weights = new Uint16Array(m * k);
  for (let i = 0; i < top.length; i++) weights[i] = fp32ToBf16(top[i]!);
  return { experts, weights };
}

async function _expertMlp(
  x: Uint16Array,
  o: MoeBlockOptions & {
    readonly rows: number;
    readonly launchM: number;
    readonly w: ExpertWeights;
    /** The block's calls, and those of one rank's view (the same without tensor parallelism). */
    readonly calls: SublayerCalls;
    readonly rankCalls: SublayerCalls;
  },
): Promise<Uint16Array> {
  const { hidden: h, rows, launchM: m, w } = o;
  const f = o.moe.intermediate;
  const size = (name: ProjectionName) => {
    const l = linearOf(o.calls, name);
    return l.n * l.k;
  };
  if (
    w.gate.length !== size("gate_proj") || w.up.length !== size("up_proj") ||
    w.down.length !== size("down_proj")
  ) {
    throw new ForwardUnsupported("expert weights do not match the config's sizes");
  }
  const tp = o.parallel;
  const gateL = linearOf(o.rankCalls, "gate_proj"), upL = linearOf(o.rankCalls, "up_proj");
  const downL = linearOf(o.rankCalls, "down_proj");
  const fr = downL.k;
  const partials: Uint16Array[] = [];
  for (let r = 0; r < (tp?.size ?? 1); r++) {
    const block = { first: r * fr, count: fr };
    const col = (weight: Uint16Array) =>
      tp === undefined ? weight : rowBlock(weight, { ...block, width: h });
    const gate = await _linear(x, { ...o, linear: gateL, weight: col(w.gate), gemmRows: m });
    const up = await _linear(x, { ...o, linear: upL, weight: col(w.up), gemmRows: m });
    const act = mulBf16(siluBf16(gate, { mufu: o.runtime.sfu }), up);
    partials.push(
      await _linear(act, {
        ...o,
        linear: downL,
        weight: tp === undefined ? w.down : columnBlock(w.down, { ...block, width: f }),
        gemmRows: m,
      }),
    );
  }
  if (tp === undefined) return partials[0]!;
  if (tp.layout.moe !== "per-expert-all-reduce") {
    throw new ForwardUnsupported(`MoE experts under layout '${tp.layout.id}' are not modelled`);
  }
  // The expert's message is its GEMM rows; the computed rows are its first ones only when they
  // are all of them, which an order that depends on an element's place needs.
  if (orderByPlace(tp) && rows !== m) {
    throw new ForwardUnsupported(
      `all-reduce '${tp.allReduce.kind}' of an expert's output orders elements by their place ` +
        "in the expert's rows, which a replay of some of a pass's sequences does not know",
    );
  }
  return reduceRows(partials, { tp, width: h, launchRows: new Int32Array(rows).fill(rows) });
}

/** A MoE GEMM (router or expert) through the one linear operation, in launches of `gemmRows`. */
function _linear(
  x: Uint16Array,
  o: MoeBlockOptions & {
    readonly linear: LayerLinear;
    readonly weight: Uint16Array;
    readonly gemmRows: number;
  },
): Promise<Uint16Array> {
  const { linear } = o;
  return linearRows(x, {
    runtime: o.runtime,
    datapath: o.datapath,
    name: linear.name,
    n: linear.n,
    k: linear.k,
    weight: o.weight,
    launchRows: new Int32Array(x.length / linear.k).fill(o.gemmRows),
  });
}
