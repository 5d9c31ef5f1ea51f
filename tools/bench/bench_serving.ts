/**
 * Serving benchmark (tracker issue 13): the verifier's replay of one served sequence, a prompt of
 * `--prompt` tokens (default 512, one prefill pass) followed by `--decode` greedy decode steps
 * (default 64), each decode step in a pass of `--batch` decoding sequences (default 8; the
 * neighbours are shape facts only), LM head and greedy check included; on the Qwen3-0.6B
 * checkpoint given by `--checkpoint` (e.g. from `bitaudit model synth --config
 * profiles/models/qwen3-0.6b.config.json`), A100 profile, the continuous-batching stack with one
 * CUTLASS K-walk recipe for every GEMM. On 1 thread (the calling thread alone) and on every core
 * (GEMM and FA2 pools). Prints the median of `runs` (>= 3) timed runs with the spread after one
 * untimed run, the load average at the start and the end, the peak resident set, and beside it a
 * one-shot prefill of the same tokens measured in the same run (`runPrefillForward`), as the ratio
 * replay / prefill. Refuses (exit 2) when the 1-minute load average exceeds 1.0 at the start,
 * unless `--force`.
 *
 * With `--single replay` or `--single prefill` it times one run of that side alone on every core,
 * without a warm-up, and prints it with the process's peak resident set: for requests on a whole
 * model, where three runs of each side take hours (a single run, not a median).
 *
 * Usage: `deno task bench:serving [runs] --checkpoint dir [--prompt n] [--decode n] [--batch n]
 * [--threads 1,all] [--single replay|prefill] [--force]`.
 *
 * @module
 */
import { createFa2Pool, createGemmEngine, createGemmPool } from "../../src/engine/mod.ts";
import { createSfu, decodeSfuTables, parseGpuProfile } from "../../src/hardware/mod.ts";
import {
  type AttentionInputs,
  type Fa2BatchLaunch,
  flashAttentionBatch,
  flashAttentionForward,
  type FlashAttentionOptions,
  type KWalker,
  parseRecipe,
  parseStackProfile,
  referenceKWalker,
} from "../../src/kernels/mod.ts";
import {
  type BlockRuntime,
  fixedRecipeDispatch,
  type PassShape,
  runPrefillForward,
  runServingForward,
} from "../../src/model/mod.ts";
import { openCheckpointDir } from "../../src/resolve/mod.ts";

import { flagValue, loadText, peakRssMiB } from "./_host.ts";
const root = new URL("../../", import.meta.url);
const readJson = async (p: string) => JSON.parse(await Deno.readTextFile(new URL(p, root)));
const args = [...Deno.args];
const flag = (name: string) => flagValue(args, name);
function usage(why: string): never {
  console.error(`error [USAGE]: Cannot run the serving benchmark: ${why}`);
  Deno.exit(2);
}
const int = (name: string, dflt: number, max: number) => {
  const v = flag(name);
  const n = v === undefined ? dflt : /^[0-9]{1,7}$/.test(v) ? Number(v) : NaN;
  if (!(Number.isInteger(n) && n >= 1 && n <= max)) usage(`--${name} must be 1..${max}`);
  return n;
};
const runs = args[0] === undefined || args[0].startsWith("--") ? 3 : Number(args[0]);
if (!Number.isInteger(runs) || runs < 3 || runs > 100) usage(`runs must be 3..100`);
const dir = flag("checkpoint") ?? usage("--checkpoint <dir> is required");
const prompt = int("prompt", 512, 32768);
const decode = int("decode", 64, 4096);
const batch = int("batch", 8, 4096);
const threadSet = (flag("threads") ?? "1,all").split(",");
if (threadSet.some((t) => t !== "1" && t !== "all")) usage("--threads takes 1, all or 1,all");
if (Deno.loadavg()[0]! > 1.0 && !args.includes("--force")) {
  usage(`the 1-minute load average is ${loadText()} (> 1.0); --force runs anyway`);
}

const engine = createGemmEngine(await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root)));
const cores = navigator.hardwareConcurrency;
const gemmPool = createGemmPool(engine, { workers: cores });
const fa2Pool = createFa2Pool(engine, { workers: cores });
const stack = parseStackProfile({
  ...(await readJson("profiles/stack/hf-qwen3-continuous-batching-torch2.8-lg2-model.json")),
  gemm: { kernelSource: "recipe" },
});
const oneThread: KWalker = (dp, job) =>
  engine.supports(dp) ? Promise.resolve(engine.kWalk(dp, job)) : referenceKWalker(dp, job);
const allCores: KWalker = (dp, job) =>
  engine.supports(dp) ? gemmPool.kWalk(dp, job) : referenceKWalker(dp, job);
const base = {
  profile: parseGpuProfile(await readJson("profiles/gpu/a100.json")),
  stack,
  gemm: fixedRecipeDispatch(
    parseRecipe(await readJson("profiles/recipes/cutlass-kwalk-128x128x64.json")),
  ),
  sfu: createSfu({
    mode: "tesla-table",
    tables: decodeSfuTables(await Deno.readFile(new URL("tables/sfu/tesla_sfu_v1.bin", root))),
  }),
};
const runtime = (threads: string): BlockRuntime => ({
  ...base,
  walker: threads === "1" ? oneThread : allCores,
  attention: threads === "1"
    ? Object.assign(
      (inputs: AttentionInputs, o: FlashAttentionOptions) =>
        flashAttentionForward(inputs, { ...o, kWalk: engine.kWalkAuto }),
      {
        batch: (launches: readonly Fa2BatchLaunch[]) =>
          flashAttentionBatch(
            launches.map((l) => ({ ...l, options: { ...l.options, kWalk: engine.kWalkAuto } })),
          ),
      },
    )
    : fa2Pool.forward, // decode steps of a sequence as one batch (`forward.batch`)
});

using opened = await openCheckpointDir(dir);
const ckpt = opened.ckpt;
const vocab = ckpt.config.vocab;
const tokens = Array.from({ length: prompt + decode + 1 }, (_, i) => (i * 7919 + 13) % vocab);
// One prefill pass, then decode steps among `batch` decoding sequences of similar contexts.
const passes: PassShape[] = [{
  entries: [{ query: prompt, cached: 0 }],
  rows: prompt,
  logitsRows: 1,
}];
for (let s = 0; s < decode; s++) {
  const cached = prompt + s;
  passes.push({
    entries: Array.from({ length: batch }, (_, i) => ({ query: 1, cached: cached + 3 * i })),
    rows: batch,
    logitsRows: batch,
  });
}
const work = {
  passes,
  sequences: [{ tokens, prompt, steps: passes.map((_, pass) => ({ pass, entry: 0 })) }],
};
const replay = async (threads: string) => {
  const t0 = performance.now();
  const r = await runServingForward(ckpt, work, {
    runtime: runtime(threads),
    multiProcessorCount: 108,
    releaseTensor: opened.releaseTensor, // as the verifier does: buffers recycled layer by layer
  });
  if (!r.supported) throw new Error(r.reason);
  return {
    ms: performance.now() - t0,
    print: r.result.sequences[0]!.fingerprint,
    splits: r.result.maxSplits,
  };
};
const prefill = async (threads: string) => {
  const t0 = performance.now();
  const r = await runPrefillForward(ckpt, {
    sequences: [tokens.slice(0, prompt + decode)],
    runtime: {
      ...runtime(threads),
      stack: { ...stack, operators: { ...stack.operators!, batching: "pad-to-longest" } },
    },
    multiProcessorCount: 108,
    releaseTensor: opened.releaseTensor,
  });
  if (!r.supported) throw new Error(r.reason);
  return performance.now() - t0;
};
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s.at(-1)! };
};
const sec = (ms: number) => (ms / 1000).toFixed(2);
console.log(
  `bench:serving, ${runs} runs, ${cores} cores, Deno ${Deno.version.deno}, checkpoint ${dir} ` +
    `(${ckpt.config.layers} layers, hidden ${ckpt.config.hidden}); prompt ${prompt} + ${decode} ` +
    `greedy decode steps in passes of ${batch}`,
);
console.log(`load average at start: ${loadText()}`);
const single = flag("single");
if (single !== undefined) {
  if (single !== "replay" && single !== "prefill") usage("--single takes replay or prefill");
  const t0 = performance.now();
  const r = single === "replay" ? await replay("all") : undefined;
  if (single === "prefill") await prefill("all");
  const rss = peakRssMiB();
  console.log(
    `${cores} thread(s), one run: ${single} ${sec(performance.now() - t0)} s${
      r === undefined ? "" : `, up to ${r.splits} KV splits`
    }; peak RSS ${rss === null ? "n/a" : `${rss.toFixed(0)} MiB`}`,
  );
}
for (const t of single === undefined ? threadSet : []) {
  const first = await replay(t);
  const r: number[] = [], p: number[] = [];
  const prints = new Set([first.print]);
  for (let i = 0; i < runs; i++) {
    const x = await replay(t);
    r.push(x.ms);
    prints.add(x.print);
    p.push(await prefill(t));
  }
  const rs = stats(r), ps = stats(p);
  const ratios = r.map((x, i) => x / p[i]!);
  const rss = peakRssMiB();
  console.log(
    `${t === "1" ? 1 : cores} thread(s): replay ${sec(rs.median)} s (${sec(rs.min)}-${
      sec(rs.max)
    }), ` +
      `one-shot prefill of the ${prompt + decode} tokens ${sec(ps.median)} s (${sec(ps.min)}-` +
      `${sec(ps.max)}), replay / prefill x${stats(ratios).median.toFixed(2)}; up to ` +
      `${first.splits} KV splits; fingerprints identical: ${prints.size === 1}; peak RSS ${
        rss === null ? "n/a" : `${rss.toFixed(0)} MiB`
      }`,
  );
}
console.log(`load average at end: ${loadText()}`);
gemmPool.close();
fa2Pool.close();
