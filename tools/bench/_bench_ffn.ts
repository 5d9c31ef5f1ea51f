/**
 * FFN part of `bench_blocks.ts`: the stages of `runFfnBlock` timed one by one.
 *
 * @module
 */
import { runProjection } from "./_run_projection.ts";
import { addBf16, mulBf16, rmsNorm, siluBf16 } from "../../src/kernels/mod.ts";
import type { GemmResult } from "../../src/kernels/mod.ts";
import {
  type BlockRuntime,
  type DenseLayerShape,
  type FfnBlockWeights,
  planFfnBlock,
  runFfnBlock,
} from "../../src/model/mod.ts";
import { normalBf16, printBlockTable, type StageRow, StageTimer } from "./_bench_blocks_support.ts";

let cached: FfnBlockWeights | undefined;

/** Synthetic FFN weights: projections N(0, 0.02), norm weight 1 + N(0, 0.02) (then BF16). */
function weights(shape: DenseLayerShape): FfnBlockWeights {
  const { hidden: h, intermediate: f } = shape;
  cached ??= {
    norm: normalBf16(11, { count: h, sigma: 0.02, mean: 1 }),
    gate: normalBf16(12, { count: f * h, sigma: 0.02 }),
    up: normalBf16(13, { count: f * h, sigma: 0.02 }),
    down: normalBf16(14, { count: h * f, sigma: 0.02 }),
  };
  return cached;
}

/**
 * Times the FFN block's stages in each variant (SFU) and prints the table.
 *
 * @param x block input [tokens, hidden]
 * @param o shape, tokens, runs, variants (name, runtime)
 * @returns when the table is printed
 * @example
 * ```ts ignore
 * await benchFfn(x, { shape: QWEN3_4B_LAYER, tokens: 256, runs: 3, variants: [["ieee", runtime]] });
 * ```
 */
export async function benchFfn(
  x: Uint16Array,
  o: {
    shape: DenseLayerShape;
    tokens: number;
    runs: number;
    variants: readonly (readonly [string, BlockRuntime])[];
  },
): Promise<void> {
  const { shape, tokens: m } = o;
  const { hidden: h, intermediate: f } = shape;
  const w = weights(shape);
  const plans = o.variants.map(([name, runtime]) => {
    const p = planFfnBlock(m, { shape, runtime });
    if (!p.supported) console.log(`  FFN ${name}: plan refused: ${p.reason}`);
    return p.supported ? p.plan : undefined;
  });
  const shared = new StageTimer();
  const timers = o.variants.map(() => new StageTimer());
  let first: Uint16Array | undefined;
  for (let r = 0; r < o.runs; r++) {
    let gate: GemmResult | undefined, up: GemmResult | undefined, down: GemmResult | undefined;
    for (const [v, [, runtime]] of o.variants.entries()) {
      const plan = plans[v], t = timers[v]!;
      if (plan === undefined) continue;
      const norm = await t.time("input RMSNorm", () =>
        rmsNorm(x, {
          rows: m,
          hidden: h,
          weight: w.norm,
          sfu: runtime.sfu,
          stack: plan.reduceStack,
          eps: plan.eps,
        }));
      const proj = (name: "gate_proj" | "up_proj" | "down_proj", a: Uint16Array, wt: Uint16Array) =>
        shared.time(name, () =>
          runProjection(a, {
            plan,
            runtime,
            call: { name, m, n: name === "down_proj" ? h : f, k: name === "down_proj" ? f : h },
            weight: wt,
          }));
      gate ??= await proj("gate_proj", norm.output, w.gate);
      up ??= await proj("up_proj", norm.output, w.up);
      const downInput = await t.time(
        "SiLU + product",
        () => mulBf16(siluBf16(gate!.out, { mufu: runtime.sfu }), up!.out),
      );
      down ??= await proj("down_proj", downInput, w.down);
      const out = await t.time("residual add", () => addBf16(x, down!.out));
      if (v === 0) first = out;
    }
  }
  const names = o.variants.map(([n]) => n);
  const row = (stage: string, products = 0): StageRow => ({
    stage,
    products,
    ms: timers.map((t) => products > 0 ? shared.median(stage) : t.median(stage)),
  });
  printBlockTable(`FFN block, ${m} tokens (GEMM stages timed once, shared by the variants)`, {
    variants: names,
    rows: [
      row("input RMSNorm"),
      row("gate_proj", m * f * h),
      row("up_proj", m * f * h),
      row("SiLU + product"),
      row("down_proj", m * h * f),
      row("residual add"),
    ],
  });
  if (m <= 1024 && plans[0] !== undefined && first !== undefined) {
    const t0 = performance.now();
    const e2e = await runFfnBlock(x, { plan: plans[0], runtime: o.variants[0]![1], weights: w });
    const same = e2e.out.every((b, i) => b === first![i]);
    console.log(
      `  runFfnBlock end to end (${names[0]}): ${(performance.now() - t0).toFixed(0)} ms; ` +
        `output ${same ? "bit-identical to" : "DIFFERS from"} the staged run`,
    );
  }
}
