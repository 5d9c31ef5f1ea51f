/**
 * Support of `bench_blocks.ts`: a seeded generator of synthetic BF16 tensors with realistic
 * magnitudes, the stage timer, and the FA2 work count used to extrapolate a timed slice of the
 * attention core to the whole core.
 *
 * @module
 */
import { bitsFromF32, fp32ToBf16 } from "../../src/numerics/mod.ts";

/**
 * Deterministic BF16 tensor: N(mean, sigma) from a mulberry32 stream and Box-Muller, rounded to
 * FP32 (`Math.fround`) and then to BF16 with nearest-even. Synthetic data only: nothing here is
 * an exactness claim, the values just have the magnitudes of real activations and weights.
 *
 * @param seed stream seed (any 32-bit integer)
 * @param options element count, standard deviation and mean (default 0)
 * @returns BF16 patterns
 * @example
 * ```ts
 * import { normalBf16 } from "./_bench_blocks_support.ts";
 * const a = normalBf16(7, { count: 4, sigma: 1 });
 * if (a.length !== 4 || a.join() !== normalBf16(7, { count: 4, sigma: 1 }).join()) throw new Error();
 * ```
 */
export function normalBf16(
  seed: number,
  options: { readonly count: number; readonly sigma: number; readonly mean?: number },
): Uint16Array {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296; // in (0, 1): log() is finite
  };
  const out = new Uint16Array(options.count);
  for (let i = 0; i < out.length; i++) {
    const g = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    out[i] = fp32ToBf16(bitsFromF32((options.mean ?? 0) + g * options.sigma));
  }
  return out;
}

/**
 * Wall times of named stages over several runs.
 *
 * @example
 * ```ts
 * import { StageTimer } from "./_bench_blocks_support.ts";
 * const t = new StageTimer();
 * for (let r = 0; r < 3; r++) if (await t.time("x", () => r + 1) !== r + 1) throw new Error();
 * if (t.times.get("x")?.length !== 3 || !(t.median("x") >= 0)) throw new Error();
 * ```
 */
export class StageTimer {
  /** Milliseconds per stage, one entry per run, in first-seen order. */
  readonly times = new Map<string, number[]>();

  /**
   * Times one stage and records it.
   *
   * @param name stage name
   * @param fn the stage
   * @returns what the stage returned
   */
  async time<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    const t0 = performance.now();
    const r = await fn();
    const ms = performance.now() - t0;
    this.times.set(name, [...(this.times.get(name) ?? []), ms]);
    return r;
  }

  /**
   * Median of a stage's runs.
   *
   * @param name stage name
   * @returns median milliseconds (NaN when never timed)
   */
  median(name: string): number {
    const s = [...(this.times.get(name) ?? [])].sort((a, b) => a - b);
    return s.length === 0 ? NaN : s[Math.floor(s.length / 2)] as number;
  }
}

/**
 * FA2 work of query rows of one head under the causal mask (S_q = S_k = tokens), in units of
 * 128-product dots: the Q.K dots of the visible keys (`_scores`) plus the key columns of every
 * visited KV tile in the P.V MMA (`_pv` walks whole tiles; masked columns are fed as zeros).
 * Softmax and epilogue costs ride on the same counts. ASSUMPTION: the time of a row is
 * proportional to this count (the extrapolation of a slice rests on it; stated in the output).
 *
 * @param tokens sequence length
 * @param options tile shape and the first/last+1 query rows counted
 * @returns the work count
 * @example
 * ```ts
 * import { fa2RowWork } from "./_bench_blocks_support.ts";
 * // Row 0 sees 1 key, but its m-block (rows 0..127) walks the two 64-wide tiles of keys 0..127.
 * if (fa2RowWork(256, { blockM: 128, blockN: 64, from: 0, to: 1 }) !== 1 + 128) throw new Error();
 * ```
 */
export function fa2RowWork(
  tokens: number,
  options: { blockM: number; blockN: number; from: number; to: number },
): number {
  const { blockM, blockN } = options;
  let w = 0;
  for (let i = options.from; i < options.to; i++) {
    const mb = Math.floor(i / blockM);
    const nMax = Math.min(
      Math.ceil(tokens / blockN),
      Math.trunc(((mb + 1) * blockM + blockN - 1) / blockN),
    );
    w += (i + 1) + nMax * blockN;
  }
  return w;
}

/**
 * Copies heads `[h0, h1)` of a [tokens, heads, d] tensor into [tokens, h1 - h0, d].
 *
 * @param x the tensor
 * @param options heads, head dim, the head range, the token range (default all)
 * @returns the slice
 * @example
 * ```ts
 * import { sliceHeads } from "./_bench_blocks_support.ts";
 * // 2 tokens, 3 heads, d = 1: keep head 1 of token 1.
 * const s = sliceHeads(new Uint16Array([0, 1, 2, 3, 4, 5]), { heads: 3, d: 1, h0: 1, h1: 2, t0: 1 });
 * if (s.join() !== "4") throw new Error();
 * ```
 */
export function sliceHeads(
  x: Uint16Array,
  options: { heads: number; d: number; h0: number; h1: number; t0?: number; t1?: number },
): Uint16Array {
  const { heads, d, h0, h1 } = options;
  const t0 = options.t0 ?? 0, t1 = options.t1 ?? x.length / (heads * d);
  const w = (h1 - h0) * d;
  const out = new Uint16Array((t1 - t0) * w);
  for (let t = t0; t < t1; t++) {
    out.set(x.subarray((t * heads + h0) * d, (t * heads + h1) * d), (t - t0) * w);
  }
  return out;
}

/** One row of a block table: a stage and its median time in each variant. */
export interface StageRow {
  /** Stage name. */
  readonly stage: string;
  /** Milliseconds per variant (the same value for a shared GEMM stage). */
  readonly ms: readonly number[];
  /** Products of a GEMM stage (m n k); 0 for the other stages. */
  readonly products: number;
  /** Said after the row (e.g. how an extrapolated figure was obtained). */
  readonly note?: string;
}

/**
 * Prints a block's stage table, the totals per variant, the GEMM rate and the dominant stage.
 *
 * @param title the block and size
 * @param options variant names and rows
 * @example
 * ```ts
 * import { printBlockTable } from "./_bench_blocks_support.ts";
 * printBlockTable("demo", {
 *   variants: ["a"],
 *   rows: [{ stage: "gemm", ms: [2], products: 2e6 }, { stage: "norm", ms: [1], products: 0 }],
 * }); // GEMM part: 1 G products/s; dominated by gemm (66.7%)
 * ```
 */
export function printBlockTable(
  title: string,
  options: { readonly variants: readonly string[]; readonly rows: readonly StageRow[] },
): void {
  const { variants, rows } = options;
  const w = Math.max(...rows.map((r) => r.stage.length), 12);
  const cw = Math.max(...variants.map((v) => v.length), 10) + 2;
  const cell = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(2)).padStart(cw);
  console.log(
    `${title}\n  ${"stage (ms)".padEnd(w)} ${variants.map((v) => v.padStart(cw)).join("")}`,
  );
  for (const r of rows) {
    const line = `  ${r.stage.padEnd(w)} ${r.ms.map(cell).join("")}`;
    console.log(r.note === undefined ? line : `${line}   ${r.note}`);
  }
  const totals = variants.map((_, v) => rows.reduce((s, r) => s + (r.ms[v] as number), 0));
  console.log(`  ${"total".padEnd(w)} ${totals.map(cell).join("")}`);
  const gemm = rows.filter((r) => r.products > 0);
  const products = gemm.reduce((s, r) => s + r.products, 0);
  const gemmMs = gemm.reduce((s, r) => s + (r.ms[0] as number), 0);
  console.log(
    `  GEMM part: ${(products / 1e9).toFixed(2)} G products in ${gemmMs.toFixed(0)} ms = ${
      (products / gemmMs / 1e6).toFixed(3)
    } G products/s`,
  );
  variants.forEach((v, i) => {
    const top = [...rows].sort((a, b) => (b.ms[i] as number) - (a.ms[i] as number))[0]!;
    const share = 100 * (top.ms[i] as number) / (totals[i] as number);
    const gemmShare = 100 * gemmMs / (totals[i] as number);
    console.log(
      `  ${v}: dominated by ${top.stage} (${share.toFixed(1)}%); GEMMs ${gemmShare.toFixed(1)}%`,
    );
  });
}
