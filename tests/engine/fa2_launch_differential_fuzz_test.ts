/**
 * Differential fuzz of whole FA2 launches on the pool against the TypeScript forward
 * (`flashAttentionForward` with `kWalkReference` and the TypeScript softmax): the pool is given no
 * `kWalk`, so it runs the wasm GEMM kernel and the wasm tile softmax, on the calling thread (one
 * thread) and in workers (two). Q, K and V mix zeros, tiny and huge values, infinities and NaNs,
 * or stay where the softmax rounds, with keys that grow along the sequence (row maxima rising tile
 * by tile); launches are prefill and decode, causal or not (causal queries past the keys see
 * none), GQA, head dims 64 to 256, split-KV by the heuristic or a caller's `numSplits`, several
 * varlen sequences, paged KV (with vllm-flash-attn's per-sequence split ranges), odd softmax
 * scales. A second test runs decode batches over one KV cache (K and V views inside a larger
 * buffer): the TypeScript batch, the pool's batch and the pool's launches one by one with kept
 * tiles, each launch against its own `flashAttentionForward`. Fixed seed; `BITAUDIT_FUZZ_SCALE`
 * multiplies the cases; a failure names the seed and the case index.
 */
import { createFa2Pool, type Fa2Pool } from "../../src/engine/mod.ts";
import {
  type AttentionInputs,
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2BatchLaunch,
  fa2KvCache,
  flashAttentionBatch,
  flashAttentionForward,
  type FlashAttentionOptions,
  type FlashAttentionResult,
} from "../../src/kernels/mod.ts";
import { ENGINE, profile, TESLA } from "../kernels/attention/_fa2_fixture.ts";
import { Draw, firstDiff, halfAt, Tally } from "./_differential_fuzz.ts";
import { fuzzRuns } from "../hostile/_fuzz.ts";

/** Fixed seed of every test in this file. */
const SEED = 1131;

/** GPU profiles and their SM counts (tile sizes and the split heuristic differ). */
const GPUS = ([["a100", 108], ["h100-sxm", 132], ["l4", 58], ["a40", 84], ["l40s", 142]] as const)
  .map(([id, sms]) => ({ profile: profile(id), multiProcessorCount: sms }));
const BUILDS = [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED];

/**
 * The rates of a case's value classes in Q, K and V: infinities and NaNs, zeros, tiny values
 * (2^-133 ... 2^-60), huge values (2^20 ... 2^127); the rest lies around a centre. Cases without
 * extremes keep scores where the softmax rounds (its maxima rise from tile to tile, rescaling the
 * row sums and O); cases with them make rows of NaN, infinity, one-hot P and zero sums.
 */
interface Mix {
  readonly special: number;
  readonly zero: number;
  readonly tiny: number;
  readonly huge: number;
}

function drawMix(r: Draw): Mix {
  const extremes = r.chance(0.6);
  return {
    special: extremes ? r.pick([0, 0.001, 0.004]) : 0,
    zero: r.pick([0, 0.05]),
    tiny: extremes ? r.pick([0, 0.04]) : 0,
    huge: extremes ? r.pick([0, 0.002, 0.025]) : 0,
  };
}

/**
 * A BF16 tensor of `length` elements: the classes of `mix`, the rest with leading bits in
 * [top(i) - 6, top(i) + 1] for element i.
 */
function tensor(r: Draw, length: number, mix: Mix, top: (i: number) => number): Uint16Array {
  return Uint16Array.from({ length }, (_, i) => {
    let u = r.next() / 2 ** 32;
    if ((u -= mix.special) < 0) return r.pick([0x7f80, 0xff80, 0x7fc0, 0xffc1]);
    if ((u -= mix.zero) < 0) return r.bit() << 15;
    if ((u -= mix.tiny) < 0) return halfAt(r, "bf16", r.int(-133, -60));
    if ((u -= mix.huge) < 0) return halfAt(r, "bf16", r.int(20, 127));
    return halfAt(r, "bf16", top(i) + r.int(-6, 1));
  });
}

/** The mix and the centres as text, for labels. */
function mixLabel(mix: Mix, center: number, rise: number): string {
  return `mix ${JSON.stringify(mix)} center ${center} rise ${rise}`;
}

/** The first difference between two launches' results ("" when equal). */
function resultDiff(want: FlashAttentionResult, got: FlashAttentionResult): string {
  return firstDiff("out", want.out, got.out, 4) || firstDiff("outF32", want.outF32, got.outF32) ||
    firstDiff("lse", want.lse, got.lse) ||
    (want.splits === got.splits ? "" : `splits ${want.splits} wanted, ${got.splits} got`);
}

/** Case `index`: a launch's inputs and options, and a label that names its draws. */
function launchCase(
  index: number,
): { x: AttentionInputs; o: FlashAttentionOptions; label: string; keyless: boolean } {
  const r = new Draw(SEED, index);
  const gpu = r.pick(GPUS);
  const build = BUILDS[index % 2]!;
  const d = r.pick([64, 64, 128, 96, 256]);
  const kvHeads = r.pick([1, 1, 2]);
  const heads = kvHeads * r.pick([1, 2, 3]);
  const causal = r.chance(0.6);
  const decode = r.chance(0.25);
  // Sequences: one, or two of a varlen launch; causal queries past the keys see none of them.
  const seqs = Array.from({ length: !decode && r.chance(0.2) ? 2 : 1 }, () => {
    const sq = decode ? r.int(1, 2) : r.int(1, 40);
    const sk = decode ? r.int(1, 300) : Math.max(causal && r.chance(0.85) ? sq : 1, r.int(1, 140));
    return [sq, sk] as const;
  });
  const sq = seqs.reduce((n, [q]) => n + q, 0);
  const sk = seqs.reduce((n, [, k]) => n + k, 0);
  const mix = drawMix(r);
  const center = r.pick([-3, -2, -1, 0, 1, 2, 4, 8, 20, -40]);
  // Keys growing along the sequence (leading bits up by `rise`): the row maxima rise tile by tile.
  const rise = r.pick([0, 0, 2, 4]);
  const vTop = r.pick([-3, 0, 5, 60, 120]);
  const x = {
    q: tensor(r, sq * heads * d, mix, () => center),
    k: tensor(r, sk * kvHeads * d, mix, (i) => center + Math.floor(rise * i / (sk * kvHeads * d))),
    v: tensor(r, sk * kvHeads * d, mix, () => vTop),
  };
  const cu = (i: 0 | 1) => seqs.reduce((c, s) => [...c, c[c.length - 1]! + s[i]], [0]);
  const o: FlashAttentionOptions = {
    heads,
    kvHeads,
    headDim: d,
    causal,
    build,
    mufu: TESLA,
    ...gpu,
    returnFp32: true,
    returnLse: r.chance(0.5),
    ...(r.chance(0.15) ? { softmaxScale: r.pick([1, 0.5, 1e-3, 30, 1e-30]) } : {}),
    ...(r.chance(0.1) ? { numSplits: r.int(1, 4) } : {}),
    // A paged launch is vllm-flash-attn's, which takes split ranges from each sequence's keys.
    ...(r.chance(0.1) ? { pagedKv: true, splitRange: "sequence" as const } : {}),
    ...(seqs.length > 1 ? { cuSeqlensQ: cu(0), cuSeqlensK: cu(1) } : {}),
  };
  const shape = seqs.map(([q, k]) => `${q}x${k}`).join("+");
  const extra = {
    softmaxScale: o.softmaxScale,
    numSplits: o.numSplits,
    pagedKv: o.pagedKv,
    splitRange: o.splitRange,
  };
  const label = `seed ${SEED} case ${index} ${gpu.profile.id} ${build.id} d=${d} ` +
    `h=${heads}/${kvHeads} causal=${causal} ${shape} ${mixLabel(mix, center, rise)} v ${vTop} ` +
    `lse=${o.returnLse} ${JSON.stringify(extra)}`;
  return { x, o, label, keyless: causal && seqs.some(([q, k]) => q > k) };
}

/** Runs `fn` with pools of the given thread counts (every launch on threads: inlineBelow 0). */
async function withPools(
  workers: readonly number[],
  fn: (pools: Fa2Pool[]) => Promise<void>,
): Promise<void> {
  const pools = workers.map((w) => createFa2Pool(ENGINE, { workers: w, inlineBelow: 0 }));
  try {
    await fn(pools);
  } finally {
    for (const p of pools) p.close();
  }
}

Deno.test("Fa2Pool.forward() with its wasm tile softmax (no kWalk) equals flashAttentionForward() on fuzzed launches, 1 and 2 threads", async () => {
  // The pool runs the wasm softmax only where the kernel models the build and SFU.
  for (const b of BUILDS) if (ENGINE.fa2TileSoftmax(b, TESLA) === undefined) throw new Error(b.id);
  const tally = new Tally("Fa2Pool.forward() vs flashAttentionForward()", SEED);
  await withPools([1, 2], async (pools) => {
    const count = fuzzRuns(20);
    for (let i = 0; i < count; i++) {
      const { x, o, label, keyless } = launchCase(i);
      const want = flashAttentionForward(x, o);
      for (const pool of pools) {
        tally.check(
          `${label} on ${pool.size} thread(s)`,
          resultDiff(want, await pool.forward(x, o)),
        );
      }
      tally.saw(o.build.id);
      if (want.splits > 1) tally.saw("split-KV");
      if (o.cuSeqlensQ !== undefined) tally.saw("varlen");
      if (keyless) tally.saw("causal rows without keys");
      if (want.outF32!.some((v) => (v & 0x7fffffff) > 0x7f800000)) tally.saw("NaN in O");
    }
  });
  tally.assertClean([
    ...BUILDS.map((b) => b.id),
    "split-KV",
    "varlen",
    "causal rows without keys",
    "NaN in O",
  ]);
});

/**
 * Case `index` of the batch test: the decode steps (and short prefill chunks) of one sequence,
 * each reading a prefix of the same K and V rows, which lie inside a larger buffer half the time.
 */
function batchCase(index: number): { launches: Fa2BatchLaunch[]; label: string } {
  const r = new Draw(SEED + 1, index);
  const gpu = r.pick([GPUS[0]!, GPUS[1]!, GPUS[4]!]);
  const build = BUILDS[index % 2]!;
  const d = r.pick([64, 128]);
  const kvHeads = r.pick([1, 2]);
  const heads = kvHeads * r.pick([1, 2, 4]);
  const mix = drawMix(r);
  const center = r.pick([-3, -2, -1, 0, 1, 3, 8]);
  const rise = r.pick([0, 0, 2, 4]);
  const vTop = r.pick([0, 5, 60]);
  const maxSk = r.int(1, 330);
  const row = kvHeads * d;
  const offset = r.chance(0.5) ? 0 : r.int(1, 50) * row;
  const view = (t: Uint16Array) => {
    const buffer = new Uint16Array(t.length + offset);
    buffer.set(t, offset);
    return buffer.subarray(offset);
  };
  const k = view(tensor(r, maxSk * row, mix, (i) => center + Math.floor(rise * i / (maxSk * row))));
  const v = view(tensor(r, maxSk * row, mix, () => vTop));
  const options: FlashAttentionOptions = {
    heads,
    kvHeads,
    headDim: d,
    causal: r.chance(0.8),
    build,
    mufu: TESLA,
    ...gpu,
    returnFp32: true,
    returnLse: r.chance(0.5),
  };
  const steps: string[] = [];
  const launches = Array.from({ length: r.int(1, 5) }, () => {
    const sk = r.int(1, maxSk);
    const sq = r.chance(0.7) ? 1 : r.int(1, Math.min(sk, 20));
    steps.push(`${sq}x${sk}`);
    const q = tensor(r, sq * heads * d, mix, () => center);
    return { inputs: { q, k: k.subarray(0, sk * row), v: v.subarray(0, sk * row) }, options };
  });
  const label = `seed ${SEED + 1} case ${index} ${gpu.profile.id} ${build.id} d=${d} ` +
    `h=${heads}/${kvHeads} causal=${options.causal} steps ${steps.join(",")} offset ${offset} ` +
    `${mixLabel(mix, center, rise)} v ${vTop}`;
  return { launches, label };
}

Deno.test("flashAttentionBatch() and Fa2Pool.forwardBatch() / forward() with kept KV tiles equal one flashAttentionForward() per launch on fuzzed decode batches", async () => {
  const tally = new Tally("FA2 batches vs flashAttentionForward()", SEED + 1);
  await withPools([2, 3], async (pools) => {
    const count = fuzzRuns(30);
    for (let i = 0; i < count; i++) {
      const { launches, label } = batchCase(i);
      const want = launches.map((l) => flashAttentionForward(l.inputs, l.options));
      const check = (runner: string, got: readonly FlashAttentionResult[]) =>
        got.forEach((g, j) =>
          tally.check(`${label}: ${runner} launch ${j}`, resultDiff(want[j]!, g))
        );
      const withCache = () => {
        const kvCache = fa2KvCache();
        return launches.map((l) => ({ ...l, options: { ...l.options, kvCache } }));
      };
      // The TypeScript batch with the engine's K-walk (its own softmax), then a pool's batch and
      // its launches one by one over a kept cache (the wasm softmax).
      check(
        "flashAttentionBatch()",
        flashAttentionBatch(
          withCache().map((l) => ({ ...l, options: { ...l.options, kWalk: ENGINE.kWalkAuto } })),
        ),
      );
      const pool = pools[i % pools.length]!;
      check(`Fa2Pool.forwardBatch() on ${pool.size} threads`, await pool.forwardBatch(withCache()));
      const kept: FlashAttentionResult[] = [];
      for (const l of withCache()) kept.push(await pool.forward(l.inputs, l.options));
      check(`Fa2Pool.forward() with kept tiles on ${pool.size} threads`, kept);
      tally.saw(launches[0]!.options.build.id);
      if (launches.length > 1) tally.saw("several steps");
      if (want.some((w) => w.splits > 1)) tally.saw("split-KV");
    }
  });
  tally.assertClean([...BUILDS.map((b) => b.id), "several steps", "split-KV"]);
});
