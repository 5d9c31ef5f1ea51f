/**
 * The attention core of `bench_blocks.ts`: the whole FlashAttention-2 forward as the block runs
 * it, or a slice of it (first heads, all rows or their last full query tile onwards) with its work
 * factor.
 *
 * @module
 */
import { type Fa2Tiles, flashAttentionForward } from "../../src/kernels/mod.ts";
import type { AttentionBlockPlan, BlockRuntime, DenseLayerShape } from "../../src/model/mod.ts";
import { fa2RowWork, sliceHeads } from "./_bench_blocks_support.ts";

/** Options of `benchAttention` (the core slice reads its shape, tiles and slice flags). */
export interface BenchAttentionOptions {
  readonly shape: DenseLayerShape;
  readonly tokens: number;
  readonly runs: number;
  readonly variants: readonly (readonly [string, BlockRuntime])[];
  readonly sms: number;
  readonly tiles: Fa2Tiles;
  readonly coreHeads: number;
  readonly fullCore: boolean;
}

/** A timed slice of the core. */
export interface CoreSlice {
  /** Query heads [h0, h1) and rows [t0, t1) timed. */
  readonly h1: number;
  readonly t0: number;
  /** Full work / slice work. */
  readonly factor: number;
  readonly note: string;
}

/**
 * The slice of the core to time and its work factor (see the module doc of `bench_blocks.ts`).
 *
 * A split-KV launch (`splits` > 1) is always timed whole: a slice would go through the varlen
 * entry, which runs the standard kernel, and a head slice through `mha_fwd` would change the
 * split heuristic's answer.
 *
 * @param o the bench options
 * @param splits KV splits of the launch (from the plan)
 * @returns the slice
 * @throws {RangeError} when `coreHeads` would split a GQA group of query heads unevenly
 * @example
 * ```ts ignore
 * const s = coreSlice({ ...options, tokens: 4000 }, 1); // heads 0..coreHeads-1, rows 3840..3999
 * ```
 */
export function coreSlice(o: BenchAttentionOptions, splits: number): CoreSlice {
  const { tokens: m, tiles, shape } = o;
  const full = shape.heads * fa2RowWork(m, { ...tiles, from: 0, to: m });
  if (splits > 1) {
    return {
      h1: shape.heads,
      t0: 0,
      factor: 1,
      note: `whole core (mha_fwd, split-KV launch: ${splits} splits + combine)`,
    };
  }
  if (o.fullCore) return { h1: shape.heads, t0: 0, factor: 1, note: "whole core (mha_fwd)" };
  const group = shape.heads / shape.kvHeads;
  const h1 = o.coreHeads;
  if (!(h1 >= 1 && h1 <= shape.heads && (h1 <= group || h1 % group === 0))) {
    throw new RangeError(`Cannot slice the core: --core-heads ${h1} splits a GQA group badly`);
  }
  if (m <= 1024) {
    const f = full / (h1 * fa2RowWork(m, { ...tiles, from: 0, to: m }));
    return { h1, t0: 0, factor: f, note: `x${f.toFixed(2)} from heads 0..${h1 - 1}, all rows` };
  }
  // The last full m-block and the partial one after it, if any: a partial block alone (e.g. the
  // 32 rows of 4,000 = 31 x 128 + 32) runs narrow tiles and would overstate the cost per work.
  const t0 = Math.floor((m - tiles.blockM) / tiles.blockM) * tiles.blockM;
  const f = full / (h1 * fa2RowWork(m, { ...tiles, from: t0, to: m }));
  return {
    h1,
    t0,
    factor: f,
    note: `x${f.toFixed(1)} (work count) from heads 0..${h1 - 1}, rows ${t0}..${
      m - 1
    } (last full m-block onwards)`,
  };
}

/**
 * The core as the block runs it, or the slice: then the o_proj input is the slice's output
 * where computed and, elsewhere, the V row of the same token and KV head. ASSUMPTION: the wasm
 * GEMM's time does not depend on those values beyond their magnitude (V rows have the core
 * output's magnitude: each output row is a convex combination of V rows).
 *
 * @param q Q after RoPE [tokens, heads, d]
 * @param k K after RoPE [tokens, kvHeads, d]
 * @param v V [tokens, kvHeads, d]
 * @param plan the attention plan
 * @param runtime the runtime
 * @param o the bench options
 * @returns the o_proj input [tokens, heads, d]
 * @example
 * ```ts ignore
 * const oProjInput = runCoreSlice(qRope, kRope, v.out, plan, runtime, options);
 * ```
 */
export async function runCoreSlice(
  q: Uint16Array,
  k: Uint16Array,
  v: Uint16Array,
  plan: AttentionBlockPlan,
  runtime: BlockRuntime,
  o: BenchAttentionOptions,
): Promise<Uint16Array> {
  const { heads, kvHeads, headDim: d } = o.shape;
  const base = {
    headDim: d,
    causal: true,
    build: plan.build,
    profile: runtime.profile,
    mufu: runtime.sfu,
  };
  const forward = runtime.attention ?? flashAttentionForward;
  const s = coreSlice(o, plan.splits);
  if (s.factor === 1) {
    return (await forward({ q, k, v }, {
      ...base,
      heads,
      kvHeads,
      multiProcessorCount: plan.multiProcessorCount,
    })).out;
  }
  const m = o.tokens, group = heads / kvHeads;
  const kvh1 = Math.ceil(s.h1 / group);
  const part = (await forward({
    q: sliceHeads(q, { heads, d, h0: 0, h1: s.h1, t0: s.t0 }),
    k: sliceHeads(k, { heads: kvHeads, d, h0: 0, h1: kvh1 }),
    v: sliceHeads(v, { heads: kvHeads, d, h0: 0, h1: kvh1 }),
  }, { ...base, heads: s.h1, kvHeads: kvh1, cuSeqlensQ: [0, m - s.t0], cuSeqlensK: [0, m] })).out;
  const out = new Uint16Array(m * heads * d);
  for (let t = 0; t < m; t++) {
    for (let hh = 0; hh < heads; hh++) {
      const kvh = Math.floor(hh / group);
      const src = t >= s.t0 && hh < s.h1
        ? part.subarray(((t - s.t0) * s.h1 + hh) * d, ((t - s.t0) * s.h1 + hh + 1) * d)
        : v.subarray((t * kvHeads + kvh) * d, (t * kvHeads + kvh + 1) * d);
      out.set(src, (t * heads + hh) * d);
    }
  }
  return out;
}
