/**
 * Attention part of `bench_blocks.ts`: the stages of `runAttentionBlock` timed one by one, the
 * FlashAttention-2 core on a slice scaled by its work count (or whole with `fullCore`).
 *
 * @module
 */
import { runProjection } from "./_run_projection.ts";
import type { GemmResult } from "../../src/kernels/mod.ts";
import { addBf16, applyRope, qkNorm, rmsNorm, ropeTables } from "../../src/kernels/mod.ts";
import {
  type AttentionBlockWeights,
  type DenseLayerShape,
  planAttentionBlock,
  type ProjectionName,
} from "../../src/model/mod.ts";
import { normalBf16, printBlockTable, type StageRow, StageTimer } from "./_bench_blocks_support.ts";
import { type BenchAttentionOptions, coreSlice, runCoreSlice } from "./_core_slice.ts";

export type { BenchAttentionOptions };

let cached: AttentionBlockWeights | undefined;

function weights(s: DenseLayerShape): AttentionBlockWeights {
  const { hidden: h, heads, kvHeads, headDim: d } = s;
  cached ??= {
    norm: normalBf16(21, { count: h, sigma: 0.02, mean: 1 }),
    q: normalBf16(22, { count: heads * d * h, sigma: 0.02 }),
    k: normalBf16(23, { count: kvHeads * d * h, sigma: 0.02 }),
    v: normalBf16(24, { count: kvHeads * d * h, sigma: 0.02 }),
    o: normalBf16(25, { count: h * heads * d, sigma: 0.02 }),
    qNorm: normalBf16(26, { count: d, sigma: 0.02, mean: 1 }),
    kNorm: normalBf16(27, { count: d, sigma: 0.02, mean: 1 }),
  };
  return cached;
}

/**
 * Times the attention block's stages in each variant and prints the table.
 *
 * @param x block input [tokens, hidden]
 * @param o shape, tokens, runs, variants, SM count, FA2 tiles, core slice
 * @returns when the table is printed
 * @example
 * ```ts ignore
 * await benchAttention(x, { shape, tokens: 256, runs: 3, variants, sms: 108, tiles,
 *   coreHeads: 1, fullCore: false });
 * ```
 */
export async function benchAttention(x: Uint16Array, o: BenchAttentionOptions): Promise<void> {
  const { shape, tokens: m } = o;
  const { hidden: h, heads, kvHeads, headDim: d } = shape;
  const w = weights(shape);
  const plans = o.variants.map(([name, runtime]) => {
    const p = planAttentionBlock(m, {
      shape,
      runtime,
      rope: { theta: 1_000_000 },
      multiProcessorCount: o.sms,
    });
    if (!p.supported) console.log(`  attention ${name}: plan refused: ${p.reason}`);
    return p.supported ? p.plan : undefined;
  });
  if (plans.every((p) => p === undefined)) return await _retryLonger(o);
  const slice = coreSlice(o, plans.find((p) => p !== undefined)!.splits);
  const shared = new StageTimer();
  const timers = o.variants.map(() => new StageTimer());
  for (let r = 0; r < o.runs; r++) {
    const g: Partial<Record<ProjectionName, GemmResult>> = {};
    for (const [v, [, runtime]] of o.variants.entries()) {
      const plan = plans[v], t = timers[v]!;
      if (plan === undefined) continue;
      const proj = async (name: ProjectionName, a: Uint16Array, wt: Uint16Array, n: number) =>
        g[name] ??= await shared.time(
          name,
          () =>
            runProjection(a, { plan, runtime, call: { name, m, n, k: a.length / m }, weight: wt }),
        );
      const common = { sfu: runtime.sfu, stack: plan.reduceStack, eps: plan.eps };
      const norm = await t.time(
        "input RMSNorm",
        () => rmsNorm(x, { ...common, rows: m, hidden: h, weight: w.norm }),
      );
      const q = await proj("q_proj", norm.output, w.q, heads * d);
      const k = await proj("k_proj", norm.output, w.k, kvHeads * d);
      const v2 = await proj("v_proj", norm.output, w.v, kvHeads * d);
      const [qn, kn] = await t.time("QK-norm", () => [
        qkNorm(q.out, { ...common, tokens: m, heads, headDim: d, weight: w.qNorm }),
        qkNorm(k.out, { ...common, tokens: m, heads: kvHeads, headDim: d, weight: w.kNorm }),
      ]);
      const tables = await t.time(
        "RoPE tables",
        () => ropeTables(plan.invFreq, Array.from({ length: m }, (_, i) => i)),
      );
      const [qr, kr] = await t.time("RoPE apply", () => [
        applyRope(qn!.output, { tables, heads }),
        applyRope(kn!.output, { tables, heads: kvHeads }),
      ]);
      // An untimed first pass: a slice is short enough for JIT warm-up to distort it.
      if (r === 0 && slice.factor > 1) await runCoreSlice(qr!, kr!, v2.out, plan, runtime, o);
      const core = await t.time(
        "attention core",
        () => runCoreSlice(qr!, kr!, v2.out, plan, runtime, o),
      );
      await proj("o_proj", core, w.o, h);
      await t.time("residual add", () => addBf16(x, g.o_proj!.out));
    }
  }
  const row = (stage: string, products = 0, scale = 1, note?: string): StageRow => ({
    stage,
    products,
    ms: timers.map((t) => (products > 0 ? shared.median(stage) : t.median(stage)) * scale),
    ...(note === undefined ? {} : { note }),
  });
  printBlockTable(`attention block, ${m} tokens (GEMM stages timed once, shared by the variants)`, {
    variants: o.variants.map(([n]) => n),
    rows: [
      row("input RMSNorm"),
      row("q_proj", m * heads * d * h),
      row("k_proj", m * kvHeads * d * h),
      row("v_proj", m * kvHeads * d * h),
      row("QK-norm"),
      row("RoPE tables"),
      row("RoPE apply"),
      row("attention core", 0, slice.factor, slice.note),
      row("o_proj", m * h * heads * d),
      row("residual add"),
    ],
  });
  if (slice.factor !== 1) {
    console.log(
      `  core slice timed: ${slice.note}; raw slice ms: ${
        timers.map((t) => t.median("attention core").toFixed(0)).join(" / ")
      }`,
    );
  }
}

/**
 * When every variant is refused (the split-KV case), benches the smallest longer prefill the
 * plan accepts (up to twice the tokens), with the same input stream, and says so.
 */
async function _retryLonger(o: BenchAttentionOptions): Promise<void> {
  const runtime = o.variants[0]![1];
  for (let t = o.tokens + 1; t <= 2 * o.tokens; t++) {
    const p = planAttentionBlock(t, {
      shape: o.shape,
      runtime,
      rope: { theta: 1_000_000 },
      multiProcessorCount: o.sms,
    });
    if (!p.supported) continue;
    console.log(
      `  every variant refused at ${o.tokens} tokens; the smallest count above it that the plan ` +
        `accepts on ${o.sms} SMs is ${t}: attention benched at ${t} tokens instead`,
    );
    const x = normalBf16(1, { count: t * o.shape.hidden, sigma: 1 });
    return await benchAttention(x, { ...o, tokens: t });
  }
  console.log(`  every variant refused up to ${2 * o.tokens} tokens: attention not benched`);
}
