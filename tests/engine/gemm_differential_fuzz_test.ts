/**
 * Differential fuzz of the wasm GEMM kernel against `kWalkReference()` on the edge cases of
 * `_gemm_edge_cases.ts` (element classes per row, FA2-like P rows, exact cancellation, block
 * exponents at the fixed-point bounds, sums below the alignment floor, sums past 2^128; N across the 256-column chunk, K around
 * 512 and 1024, M across the 16-row blocks): on one thread, on a 2-worker pool that splits every
 * job into row blocks and column chunks, and through `walkColumns` in row blocks of 1 to 17 rows.
 * A fourth test places the exact sum of a K block and its accumulator on and next to each power
 * of two it can reach, where the kernel's fixed-point sum gains a leading bit. Fixed seed;
 * `BITAUDIT_FUZZ_SCALE` multiplies the cases (`deno task test:fuzz`); a failure names the seed
 * and the case index, which `edgeCase` (or `exactSumCase`) rebuilds alone.
 */
import { createGemmPool, prepareWalk } from "../../src/engine/mod.ts";
import { instantiateKernel, kernelParams } from "../../src/engine/wasm_kernel.ts";
import { type Datapath, type KWalkGemmOperands, kWalkReference } from "../../src/hardware/mod.ts";
import { Draw, firstDiff, FRAC_BITS, hex, Tally } from "./_differential_fuzz.ts";
import { fuzzRuns } from "../hostile/_fuzz.ts";
import { fuzzDatapaths } from "./_engine_fuzz.ts";
import { loadEngine } from "./_engine_fixture.ts";
import { type EdgeCase, edgeCase, edgeModes } from "./_gemm_edge_cases.ts";

/** Fixed seed of every test in this file. */
const SEED = 113;

const engine = await loadEngine();
const kernel = instantiateKernel(engine.module);
/** One datapath of each kernel parameter set (input format, k, block size, F, floor). */
const datapaths = await fuzzDatapaths({ distinct: true });

/** How to rebuild a case, for failure messages. */
function caseLabel(c: EdgeCase, runner: string): string {
  const { m, n, k, segments } = c.ops;
  const seg = segments === undefined ? "" : ` segments ${JSON.stringify(segments)}`;
  return `${runner}: seed ${c.seed} case ${c.index} ${c.label} ${c.mode} m=${m} n=${n} k=${k}${seg}`;
}

/** The kind of an FP32 result, for the coverage check. */
function resultKind(x: number): string {
  const mag = x & 0x7fffffff;
  if (mag === 0) return x === 0 ? "+0" : "-0";
  if (mag > 0x7f800000) return "NaN";
  if (mag === 0x7f800000) return "Inf";
  if (mag === 0x7f7fffff) return "max";
  return mag < 0x00800000 ? "subnormal" : "normal";
}

/**
 * Runs `count` cases through `run` and the reference, and asserts equal bits, every mode on
 * every datapath and (with `kinds`) every kind of result.
 */
async function sweep(
  what: string,
  count: number,
  run: (c: EdgeCase) => Uint32Array | Promise<Uint32Array>,
  kinds = false,
): Promise<void> {
  const tally = new Tally(what, SEED);
  for (let i = 0; i < count; i++) {
    const c = edgeCase(datapaths, SEED, i);
    const want = kWalkReference(c.dp, c.ops);
    const got = await run(c);
    const diff = firstDiff("C", want, got);
    const at = diff === "" ? -1 : want.findIndex((w, q) => w !== got[q]);
    const init = at < 0 ? "" : `; init ${hex(c.ops.init?.[at] ?? 0, 8)}`;
    tally.check(caseLabel(c, what), diff + init);
    tally.saw(`${c.label} ${c.mode}`);
    if (kinds) { for (const w of want) tally.saw(resultKind(w)); }
  }
  const modes = datapaths.flatMap(({ label, dp }) => edgeModes(dp).map((m) => `${label} ${m}`));
  tally.assertClean(
    kinds ? [...modes, "+0", "-0", "NaN", "Inf", "max", "subnormal", "normal"] : modes,
  );
}

Deno.test("GemmEngine.kWalk() equals kWalkReference() on GEMM edge cases (one thread)", async () => {
  await sweep("GemmEngine.kWalk()", fuzzRuns(2500), (c) => engine.kWalk(c.dp, c.ops), true);
});

Deno.test("GemmPool.kWalk() (2 workers, row blocks of 16, 256-column chunks) equals kWalkReference() on GEMM edge cases", async () => {
  const pool = createGemmPool(engine, { workers: 2, inlineBelow: 0, rowBlockBytes: 1 });
  try {
    await sweep("GemmPool.kWalk()", fuzzRuns(600), (c) => pool.kWalk(c.dp, c.ops));
  } finally {
    pool.close();
  }
});

Deno.test("walkColumns() in row blocks of 1 to 17 rows equals kWalkReference() on GEMM edge cases", async () => {
  const ROWS = [1, 2, 3, 5, 16, 17];
  await sweep("walkColumns() in row blocks", fuzzRuns(1200), (c) => {
    const job = prepareWalk(c.dp, c.ops);
    kernel.walkColumns(kernelParams(c.dp), job, { j0: 0, j1: c.ops.n, rows: ROWS[c.index % 6]! });
    return job.c;
  });
});

/**
 * The leading bits an exact block sum can carry into, in units of 2^(2t - F): a product is in
 * [2^F, 2^(F+2)), a block of L of them and c below 2^(F+1) sum to less than 2^(F+2+log2 L).
 */
function sumTops(dp: Datapath): number[] {
  const tops: number[] = [];
  for (let p = dp.fracBits + 1; p < dp.fracBits + 3 + Math.log2(dp.blockSize); p++) tops.push(p);
  return tops;
}

/**
 * Case `index` of the exact-sum run on `dp`: one K block of A (one sign) times B (positive), all
 * elements with leading bit 2^t, so that each product is an integer in units of 2^(2t - F)
 * (F >= 2 x fraction bits), and an accumulator c of the block's sign that brings the sum to
 * 2^p + d exactly (d small, or a few units of a higher bit), p in {@link sumTops}. Null when no
 * such p is in reach of the block's sum with 0 < c < 2^(F+1) units, or c is not an FP32 value.
 */
function exactSumCase(
  dp: Datapath,
  index: number,
  tops?: readonly [number, number],
): { ops: KWalkGemmOperands; p: number } | null {
  const r = new Draw(SEED, index);
  const bf = dp.input.name === "bf16";
  const fb = FRAC_BITS[bf ? "bf16" : "fp16"];
  const F = dp.fracBits;
  const t = tops !== undefined ? r.int(tops[0], tops[1]) : bf ? r.int(-50, 49) : r.int(-10, 9);
  const sign = r.bit();
  const field = (t + (bf ? 127 : 15)) << fb;
  const full = (1 << fb) - 1;
  // A quarter of the blocks full, with the largest significands: their sums reach the top bit.
  const atTop = r.chance(0.25);
  const frac = () =>
    atTop ? full - r.int(0, 1) : r.chance(0.25) ? r.next() & full : full - r.int(0, 2);
  const a = new Uint16Array(dp.k);
  const b = new Uint16Array(dp.k);
  let sum = 0; // the block's sum in units of 2^(2t - F): below 2^31, exact in float64
  const live = atTop ? dp.blockSize : r.int(1, dp.blockSize);
  for (let kk = 0; kk < live; kk++) {
    const [fa, fbb] = [frac(), frac()];
    a[kk] = (sign << 15) | field | fa;
    b[kk] = field | fbb;
    sum += ((fa | (full + 1)) * (fbb | (full + 1))) * 2 ** (F - 2 * fb);
  }
  const step = r.chance(0.5) ? 1 : 2 ** r.int(0, 7);
  const offset = r.int(-4, 4) * step;
  const reach = sumTops(dp).filter((p) => {
    const need = 2 ** p + offset - sum;
    return need > 0 && need < 2 ** (F + 1);
  });
  if (reach.length === 0) return null;
  const p = r.pick(reach);
  const c = (2 ** p + offset - sum) * 2 ** (2 * t - F);
  if (Math.fround(c) !== c) return null;
  const f = new Float32Array([sign === 1 ? -c : c]);
  const init = new Uint32Array(f.buffer);
  return { ops: { a, b, m: 1, n: 1, k: dp.k, init }, p };
}

Deno.test("GemmEngine.kWalk() equals kWalkReference() on block sums placed exactly on and next to each power of two they can carry into", () => {
  const perDatapath = fuzzRuns(1500);
  const tally = new Tally("GemmEngine.kWalk() on exact block sums", SEED);
  const keys: string[] = [];
  for (const { label, dp } of datapaths) {
    let hits = 0;
    for (let i = 0; hits < perDatapath && i < 50 * perDatapath; i++) {
      const x = exactSumCase(dp, i);
      if (x === null) continue;
      hits++;
      const want = kWalkReference(dp, x.ops);
      const got = engine.kWalk(dp, x.ops);
      const ops = `a ${Array.from(x.ops.a, (v) => hex(v, 4))} b ${
        Array.from(x.ops.b, (v) => hex(v, 4))
      }`;
      tally.check(
        `seed ${SEED} case ${i} ${label} 2^${x.p}: ${ops} c ${hex(x.ops.init![0]!, 8)}`,
        firstDiff("C", want, got),
      );
      tally.saw(`${label} 2^${x.p}`);
    }
    if (hits === perDatapath) tally.saw(`${label} all cases`);
    keys.push(`${label} all cases`, ...sumTops(dp).map((p) => `${label} 2^${p}`));
  }
  tally.assertClean(keys);
});

Deno.test("GemmEngine.kWalk() equals kWalkReference() on exact block sums at the top of the FP32 range, where the rounded sum scaled back may overflow", () => {
  // Elements with leading bit 2^58..2^63: block sums near 2^(2t + 2..5), i.e. up to 2^131, so the
  // fast path's rounding (RZ, then the scale 2^(E-F)) meets results on both sides of 2^128 with
  // the sum's nearest FP32 above it (a rounding to undo after the scaling).
  const perDatapath = fuzzRuns(300);
  const tally = new Tally("GemmEngine.kWalk() on exact block sums near overflow", SEED);
  const keys: string[] = [];
  for (const { label, dp } of datapaths) {
    if (dp.input.name !== "bf16") continue; // FP16 products stay far below 2^128
    let hits = 0;
    for (let i = 0; hits < perDatapath && i < 50 * perDatapath; i++) {
      const x = exactSumCase(dp, i, [58, 63]);
      if (x === null) continue;
      hits++;
      const want = kWalkReference(dp, x.ops);
      const got = engine.kWalk(dp, x.ops);
      tally.check(
        `seed ${SEED} case ${i} ${label} 2^${x.p}: c ${hex(x.ops.init![0]!, 8)}`,
        firstDiff("C", want, got),
      );
      tally.saw(
        want[0] === 0x7f800000 || want[0] === 0xff800000 ? `${label} Inf` : `${label} finite`,
      );
    }
    keys.push(`${label} Inf`, `${label} finite`);
  }
  tally.assertClean(keys);
});
