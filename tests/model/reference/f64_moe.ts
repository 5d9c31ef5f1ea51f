/**
 * The Qwen3-MoE sparse block in float64, from HF `Qwen3MoeSparseMoeBlock.forward`: router logits
 * `gate(x)`, softmax over all experts (HF: in float32), `topk`, optional renormalisation
 * (`norm_topk_prob`), then each chosen expert's gated MLP output times its weight, summed.
 *
 * @module
 */
import { gatedMlp, type GatedMlpWeights, linearRows } from "./f64_ops.ts";

/** One token's routing. */
export interface Route {
  /** Chosen experts, most probable first (ties: lower index first). */
  readonly experts: readonly number[];
  /** Their weights (probabilities, renormalised to sum 1 when `normTopkProb`). */
  readonly weights: readonly number[];
  /**
   * Probability gap between the last chosen and the first unchosen expert (before
   * renormalisation; Infinity when every expert is chosen): how far the choice is from a tie.
   */
  readonly margin: number;
}

/**
 * Routes one token.
 *
 * @param logits the router logits, one per expert
 * @param o `topK` and `normTopkProb`
 * @returns the route
 * @throws {RangeError} when `topK` is not in 1..experts
 * @example
 * ```ts
 * import { routeToken } from "./f64_moe.ts";
 * const r = routeToken([0, Math.log(3), 0], { topK: 1, normTopkProb: false });
 * if (r.experts[0] !== 1 || Math.abs(r.weights[0]! - 0.6) > 1e-15) throw new Error();
 * ```
 */
export function routeToken(
  logits: ArrayLike<number>,
  o: { topK: number; normTopkProb: boolean },
): Route {
  const n = logits.length;
  if (!Number.isInteger(o.topK) || o.topK < 1 || o.topK > n) {
    throw new RangeError(`Cannot route: top-k ${o.topK} of ${n} experts`);
  }
  let max = -Infinity;
  for (let e = 0; e < n; e++) max = Math.max(max, logits[e]!);
  const p = Array.from({ length: n }, (_, e) => Math.exp(logits[e]! - max));
  const sum = p.reduce((a, b) => a + b, 0);
  const order = p.map((_, e) => e).sort((a, b) => p[b]! - p[a]! || a - b);
  const experts = order.slice(0, o.topK);
  let weights = experts.map((e) => p[e]! / sum);
  const next = order[o.topK];
  const margin = next === undefined ? Infinity : weights[o.topK - 1]! - p[next]! / sum;
  if (o.normTopkProb) {
    const s = weights.reduce((a, b) => a + b, 0);
    weights = weights.map((w) => w / s);
  }
  return { experts, weights, margin };
}

/**
 * The sparse block over rows.
 *
 * @param x rows `[tokens, hidden]` (the post-attention norm's output)
 * @param o `hidden`, the router weight `gate` (`[experts, hidden]`), `expert(e)` giving expert
 *   `e`'s weights, `topK`, `normTopkProb`, and an optional `onRoute(token, route)`
 * @returns rows `[tokens, hidden]`
 * @throws {RangeError} as {@link routeToken}
 * @example
 * ```ts
 * import { moeBlock } from "./f64_moe.ts";
 * const one = Float64Array.of(1);
 * const y = moeBlock(Float64Array.of(2), { hidden: 1, gate: Float64Array.of(1, 1),
 *   expert: () => ({ gate: one, up: one, down: one }), topK: 1, normTopkProb: true });
 * if (y[0] !== 4 / (1 + Math.exp(-2))) throw new Error();
 * ```
 */
export function moeBlock(
  x: Float64Array,
  o: {
    hidden: number;
    gate: Float64Array;
    expert: (e: number) => GatedMlpWeights;
    topK: number;
    normTopkProb: boolean;
    onRoute?: ((token: number, route: Route) => void) | undefined;
  },
): Float64Array {
  const experts = o.gate.length / o.hidden;
  const logits = linearRows(x, { w: o.gate, out: experts });
  const out = new Float64Array(x.length);
  for (let t = 0; t < x.length / o.hidden; t++) {
    const route = routeToken(logits.subarray(t * experts, (t + 1) * experts), o);
    o.onRoute?.(t, route);
    const row = x.subarray(t * o.hidden, (t + 1) * o.hidden);
    route.experts.forEach((e, i) => {
      const y = gatedMlp(row, { w: o.expert(e), hidden: o.hidden });
      for (let j = 0; j < o.hidden; j++) {
        out[t * o.hidden + j] = out[t * o.hidden + j]! + route.weights[i]! * y[j]!;
      }
    });
  }
  return out;
}
