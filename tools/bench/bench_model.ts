/**
 * Model benchmark: `runPrefillForward` on the exact shapes of the published configs
 * (`profiles/models/`), the targets of tracker issue 14: the full Qwen3-0.6B forward (28 layers)
 * at 128 tokens, the full Qwen3-4B forward (36 layers) at 250 tokens, and one Qwen3-30B-A3B MoE
 * layer (128 experts, top 8) at 256 tokens. A100 profile, stack `hf-qwen3-flash-attn-torch2.8`
 * (Dao FA2, tesla-table SFU) with one CUTLASS K-walk recipe for every GEMM; on 1 thread (the
 * calling thread alone) and/or every core (GEMM and FA2 pools of `navigator.hardwareConcurrency`
 * threads). Prints, per case and thread count, the median of `runs` (>= 3) timed runs with the
 * fastest and slowest, after one untimed first run; the load average at the start and the end;
 * the process's peak resident set (VmHWM) after each case; and whether every run gave the same
 * fingerprint. Refuses (exit 2) when the 1-minute load average exceeds 1.0 at the start, unless
 * `--force`: the host may be shared, and such figures measure the contention.
 *
 * Weights: by default from a virtual checkpoint (synthesised on first use, `synthWeight`, never
 * read from disk): every layer reuses layer 0's tensors and expert e reuses expert e mod 8's, so
 * the timings are of the arithmetic (GEMM row counts and routing are the real ones). With
 * `--checkpoint <dir>` (e.g. from `bitaudit model synth --config profiles/models/qwen3-4b...`),
 * each timed run opens that directory, streams every tensor from disk and computes the weights
 * digest as `bitaudit model forward` does (the case's layer count and token count still apply;
 * the config must be the case's model).
 *
 * With `--tp 1,2,4` each case also runs as a tensor-parallel pass of that many ranks (HF tp_plan
 * layout, NCCL tree all-reduce along the chain 0 <- 1 <- ...): the verifier computes every rank,
 * so the products are the same and the cost is the reduce and the per-rank weight blocks; the
 * line per size gives its median and the ratio to TP 1 in the same run.
 *
 * With `--stacks hf,vllm` each case also runs on vLLM 0.11's eager stack (`vllm-0.11-eager-fa2`:
 * merged projections, vLLM's CUDA norms, RoPE cache and `silu_and_mul`, paged FA2, fused MoE; its
 * TP layout `vllm-megatron` with the one-stage custom all-reduce), with the same recipe and SFU
 * policy: the line per stack gives its median and the ratio to the first stack in the same run.
 *
 * Beside each median: the attention core's share of the forward (the time inside the FA2 calls,
 * median over the runs), and, for the dense cases on one GPU, the ratio of the forward to what
 * native FP32 sgemm (NumPy's BLAS in a `python3` subprocess, `tools/wasm/native_sgemm.ts`; the
 * verifier never runs native code) needs for the forward's GEMM products with the same thread
 * count, measured in the same run after each timed run: each distinct layer GEMM shape timed
 * natively (3 runs, median), times the layers; the ratio is the median of the per-run ratios
 * (each forward against the native time measured right after it), with their range.
 *
 * Usage: `deno task bench:model [runs] [--force] [--only 0.6b,4b,30b] [--threads 1,all]
 * [--layers n] [--tokens n] [--checkpoint dir] [--tp 1,2,4] [--stacks hf,vllm] [--no-warmup]`
 * (`--layers`/`--tokens` override every selected case's, e.g. for a short smoke run; defaults: 3
 * runs, 0.6b and 4b, all cores, TP 1, the HF stack; `--no-warmup` times the first run too, for
 * cases of many minutes where the warm-up is noise, and then admits a single run, e.g. a prefill of
 * 32,768 tokens: its figure is that run, not a median).
 *
 * @module
 */
import { digestFilesInWorker } from "../../src/cli/digest_files_in_worker.ts";
import { createSfu } from "../../src/hardware/mod.ts";
import { createFa2Pool, createGemmEngine, createGemmPool } from "../../src/engine/mod.ts";
import { decodeSfuTables, parseGpuProfile } from "../../src/hardware/mod.ts";
import {
  type Fa2Forward,
  flashAttentionForward,
  type KWalker,
  parseRecipe,
  parseStackProfile,
  referenceKWalker,
  tensorParallelLayout,
} from "../../src/kernels/mod.ts";
import {
  type BlockRuntime,
  type DecoderCheckpoint,
  type DecoderConfig,
  fixedRecipeDispatch,
  parseDecoderConfig,
  runPrefillForward,
  synthWeight,
  type TensorParallel,
} from "../../src/model/mod.ts";
import { openCheckpointDir } from "../../src/resolve/mod.ts";
import { nativeSgemm } from "../wasm/native_sgemm.ts";

import { flagValue, loadText, peakRssMiB } from "./_host.ts";
const root = new URL("../../", import.meta.url);
const readJson = async (p: string) => JSON.parse(await Deno.readTextFile(new URL(p, root)));
const args = [...Deno.args];
const flag = (name: string) => flagValue(args, name);
const runs = Number(args[0]?.startsWith("--") || args[0] === undefined ? 3 : args[0]);
const force = args.includes("--force");
const only = (flag("only") ?? "0.6b,4b").split(",");
const threadSet = (flag("threads") ?? "all").split(",");
const layersOverride = flag("layers") === undefined ? undefined : Number(flag("layers"));
const tokensOverride = flag("tokens") === undefined ? undefined : Number(flag("tokens"));
const diskDir = flag("checkpoint");
const tpSet = (flag("tp") ?? "1").split(",").map(Number);
const stackSet = (flag("stacks") ?? "hf").split(",") as ("hf" | "vllm")[];
const warmup = !args.includes("--no-warmup");

function usage(why: string): never {
  console.error(`error [USAGE]: Cannot run the model benchmark: ${why}`);
  Deno.exit(2);
}
if (!Number.isInteger(runs) || !(runs >= 3 || (runs === 1 && !warmup)) || runs > 100) {
  usage(`runs must be 3..100 (or 1 with --no-warmup), got ${runs}`);
}
if (threadSet.some((t) => t !== "1" && t !== "all")) usage("--threads takes 1, all or 1,all");
if (tpSet.some((t) => ![1, 2, 4, 8].includes(t))) usage("--tp takes sizes among 1, 2, 4, 8");
if (stackSet.some((x) => x !== "hf" && x !== "vllm")) usage("--stacks takes hf, vllm or hf,vllm");
for (const [name, v] of [["layers", layersOverride], ["tokens", tokensOverride]] as const) {
  if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= 100_000)) {
    usage(`--${name} must be a positive integer`);
  }
}
if (Deno.loadavg()[0]! > 1.0 && !force) {
  usage(
    `the 1-minute load average is ${loadText()} (> 1.0): the host is busy and the figures would ` +
      "measure the contention (--force runs anyway)",
  );
}

/** A checkpoint whose tensors are synthesised on demand (layer 0's for every layer). */
function virtualCheckpoint(config: DecoderConfig): DecoderCheckpoint {
  const cache = new Map<string, Uint16Array>();
  const shapeCount = (name: string): number => {
    const h = config.hidden, d = config.headDim;
    const m = config.moe;
    const table: [RegExp, number][] = [
      [/layernorm|model\.norm/, h],
      [/q_proj/, config.heads * d * h],
      [/[kv]_proj/, config.kvHeads * d * h],
      [/o_proj/, h * config.heads * d],
      [/[qk]_norm/, d],
      [/mlp\.gate\.weight/, (m?.experts ?? 0) * h],
      [/experts\.\d+\.(gate|up|down)_proj/, (m?.intermediate ?? 0) * h],
      [/mlp\.(gate|up|down)_proj/, config.intermediate * h],
    ];
    return table.find(([re]) => re.test(name))![1];
  };
  const tensor = (name: string) => {
    const key = name.replace(/layers\.\d+\./, "layers.0.").replace(
      /experts\.(\d+)\./,
      (_, e) => `experts.${Number(e) % 8}.`,
    );
    if (!cache.has(key)) {
      cache.set(key, synthWeight("bench", { name: key, count: shapeCount(key) }));
    }
    return Promise.resolve(cache.get(key)!);
  };
  return {
    config,
    configSha256: "0".repeat(64),
    files: [],
    sharded: false,
    storedTiedHead: false,
    weightFormats: {},
    castTensors: {},
    storedDtypes: ["BF16"],
    tensor,
    rows: (_name, rows) => {
      const out = new Uint16Array(rows.length * config.hidden);
      rows.forEach((r, i) =>
        out.set(
          synthWeight("bench", { name: `embed.${r}`, count: config.hidden }),
          i * config.hidden,
        )
      );
      return Promise.resolve(out);
    },
    file: () => {
      throw new Error("virtual checkpoint has no files");
    },
  };
}

const engine = createGemmEngine(await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root)));
const cores = navigator.hardwareConcurrency;
// As `bitaudit model forward` runs: the calling thread runs the operators between GEMMs.
const gemmPool = createGemmPool(engine, { workers: cores, callerWalks: false });
const fa2Pool = createFa2Pool(engine, { workers: cores });
const profile = parseGpuProfile(await readJson("profiles/gpu/a100.json"));
// The SFU minimum is lowered to `model-only`: a TP rank's fewer heads can make FA2 pick split-KV,
// whose combine needs MUFU.LG2, a model-only table; the benchmark times the arithmetic either way.
const benchStack = async (file: string) => {
  const json = await readJson(`profiles/stack/${file}.json`);
  return parseStackProfile({
    ...json,
    gemm: { kernelSource: "recipe" },
    sfu: { ...json.sfu, minimumStatus: "model-only" },
  });
};
const stacks = {
  hf: await benchStack("hf-qwen3-flash-attn-torch2.8"),
  vllm: await benchStack("vllm-0.11-eager-fa2"),
};
const recipe = parseRecipe(await readJson("profiles/recipes/cutlass-kwalk-128x128x64.json"));
const sfu = createSfu({
  mode: "tesla-table",
  tables: decodeSfuTables(await Deno.readFile(new URL("tables/sfu/tesla_sfu_v1.bin", root))),
});
const oneThread: KWalker = (dp, job) =>
  engine.supports(dp) ? Promise.resolve(engine.kWalk(dp, job)) : referenceKWalker(dp, job);
const allCores: KWalker = (dp, job) =>
  engine.supports(dp) ? gemmPool.kWalk(dp, job) : referenceKWalker(dp, job);
/** Milliseconds spent inside FA2 calls since the last reset (the attention core). */
const core = { ms: 0 };
const timed = (f: Fa2Forward): Fa2Forward => async (inputs, o) => {
  const t0 = performance.now();
  try {
    return await f(inputs, o);
  } finally {
    core.ms += performance.now() - t0;
  }
};
const runtime = (threads: "1" | "all", which: "hf" | "vllm"): BlockRuntime => ({
  profile,
  stack: stacks[which],
  gemm: fixedRecipeDispatch(recipe),
  walker: threads === "1" ? oneThread : allCores,
  attention: timed(
    threads === "1"
      ? (inputs, o) => flashAttentionForward(inputs, { ...o, kWalk: engine.kWalkAuto })
      : fa2Pool.forward,
  ),
  sfu,
});

/**
 * Seconds native sgemm needs for one forward's GEMM products (dense layers, one GPU): each
 * distinct layer shape timed, times the layers; or why not.
 */
async function nativeForwardSeconds(
  config: DecoderConfig,
  o: { readonly tokens: number; readonly layers: number; readonly threads: number },
): Promise<number | string> {
  if (config.moe !== undefined) return "MoE layers: no native reference";
  const { hidden: h, headDim: d, intermediate: f } = config;
  const m = o.tokens;
  const shapes: [number, number, number][] = [
    [m, config.heads * d, h], // q_proj
    [m, config.kvHeads * d, h], // k_proj, v_proj
    [m, config.kvHeads * d, h],
    [m, h, config.heads * d], // o_proj
    [m, f, h], // gate_proj, up_proj
    [m, f, h],
    [m, h, f], // down_proj
  ];
  const rates = new Map<string, number>();
  let seconds = 0;
  for (const shape of shapes) {
    const key = shape.join("x");
    if (!rates.has(key)) {
      const r = await nativeSgemm(shape, { runs: 3, threads: o.threads });
      if (typeof r === "string") return r;
      rates.set(key, r.median);
    }
    seconds += shape[0] * shape[1] * shape[2] / rates.get(key)!;
  }
  return seconds * o.layers;
}

/**
 * The split of `tp` ranks, or none for one rank: HF's tp_plan with an NCCL tree along the chain,
 * or vLLM's layout with its one-stage custom all-reduce.
 */
const split = (tp: number, which: "hf" | "vllm"): TensorParallel | undefined =>
  tp === 1 ? undefined : which === "vllm"
    ? {
      size: tp,
      layout: tensorParallelLayout("vllm-megatron"),
      allReduce: { kind: "vllm-custom-1stage" },
    }
    : {
      size: tp,
      layout: tensorParallelLayout("hf-tp-plan"),
      allReduce: {
        kind: "nccl-tree",
        protocol: "simple",
        trees: [{ down: Array.from({ length: tp }, (_, r) => r + 1 < tp ? [r + 1] : []) }],
      },
    };

const cases: { id: string; label: string; config: string; layers: number; tokens: number }[] = [
  { id: "0.6b", label: "Qwen3-0.6B forward", config: "qwen3-0.6b", layers: 28, tokens: 128 },
  { id: "4b", label: "Qwen3-4B forward", config: "qwen3-4b", layers: 36, tokens: 250 },
  { id: "30b", label: "Qwen3-30B-A3B MoE", config: "qwen3-30b-a3b", layers: 1, tokens: 256 },
];
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s.at(-1)! };
};
const sec = (ms: number) => (ms / 1000).toFixed(2);
console.log(
  `bench:model, ${runs} runs per case, ${cores} cores, Deno ${Deno.version.deno}, weights ${
    diskDir === undefined ? "virtual (layer 0's for every layer)" : `streamed from ${diskDir}`
  }${force ? ", --force" : ""}`,
);
console.log(`load average at start: ${loadText()}`);
for (const c of cases.filter((x) => only.includes(x.id))) {
  const layers = layersOverride ?? c.layers;
  const tokenCount = tokensOverride ?? c.tokens;
  const config = parseDecoderConfig({
    ...(await readJson(`profiles/models/${c.config}.config.json`)),
    num_hidden_layers: layers,
  });
  const virtual = virtualCheckpoint(config);
  const tokens = Array.from({ length: tokenCount }, (_, i) => (i * 7919 + 13) % config.vocab);
  const once = async (threads: "1" | "all", tp = 1, which: "hf" | "vllm" = stackSet[0]!) => {
    const t0 = performance.now();
    let fingerprint: string;
    const run = { threads, which, parallel: split(tp, which) };
    if (diskDir === undefined) {
      fingerprint = await _forward(virtual, tokens, run);
    } else {
      using opened = await openCheckpointDir(diskDir);
      const disk = opened.ckpt;
      if (disk.config.hidden !== config.hidden || disk.config.layers < layers) {
        usage(`${diskDir} is not a ${c.config} checkpoint with >= ${layers} layers`);
      }
      const ckpt = { ...disk, config: { ...disk.config, layers } };
      using digest = digestFilesInWorker(diskDir, disk.files); // during the forward
      fingerprint = await _forward(ckpt, tokens, { ...run, releaseTensor: opened.releaseTensor });
      await digest.files;
    }
    return { ms: performance.now() - t0, fingerprint };
  };
  if (warmup) await once(threadSet.includes("all") ? "all" : "1"); // makes the virtual tensors
  const times = new Map<string, number[]>();
  const shares = new Map<string, number[]>();
  const variants = stackSet.flatMap((which) => tpSet.map((tp) => ({ which, tp })));
  const key = (v: { which: string; tp: number }) => `${v.which}/${v.tp}`;
  const prints = new Map(variants.map((v) => [key(v), new Set<string>()]));
  // Native sgemm's time for the same products after each run's forwards (same thread count):
  // the ratio is taken per run, so that the host's drift over minutes pairs off.
  const natives = new Map<string, (number | string)[]>();
  for (let i = 0; i < runs; i++) {
    for (const t of threadSet as ("1" | "all")[]) {
      for (const v of variants) {
        core.ms = 0;
        const r = await once(t, v.tp, v.which);
        times.set(`${t}/${key(v)}`, [...(times.get(`${t}/${key(v)}`) ?? []), r.ms]);
        shares.set(`${t}/${key(v)}`, [...(shares.get(`${t}/${key(v)}`) ?? []), core.ms / r.ms]);
        prints.get(key(v))!.add(r.fingerprint);
      }
      const threads = t === "1" ? 1 : cores;
      const native = await nativeForwardSeconds(config, { tokens: tokenCount, layers, threads });
      natives.set(t, [...(natives.get(t) ?? []), native]);
    }
  }
  for (const v of variants) {
    const tp = v.tp;
    const first = variants[0]!;
    const parts = (threadSet as ("1" | "all")[]).map((t) => {
      const xs = times.get(`${t}/${key(v)}`)!;
      const s = stats(xs);
      const base = times.get(`${t}/${key(first)}`)!;
      const ratio = key(v) === key(first)
        ? ""
        : `, ${(s.median / stats(base).median).toFixed(3)}x ${
          stackSet.length > 1 ? `${first.which} ` : ""
        }TP ${first.tp}`;
      const share = stats(shares.get(`${t}/${key(v)}`)!).median;
      const native = natives.get(t) ?? [];
      const refused = native.find((n) => typeof n === "string");
      const nat = native.filter((n) => typeof n === "number");
      const paired = stats(xs.map((x, i) => x / 1000 / nat[i]!));
      const vsNative = tp !== 1 || native.length === 0
        ? ""
        : refused !== undefined
        ? `, native sgemm n/a (${refused})`
        : `, x${paired.median.toFixed(1)} native sgemm (${paired.min.toFixed(1)}-${
          paired.max.toFixed(1)
        } per run; native ${stats(nat).median.toPrecision(3)} s, ${stats(nat).min.toPrecision(3)}-${
          stats(nat).max.toPrecision(3)
        }, for the GEMM products)`;
      return `${t === "1" ? 1 : cores} thread(s) ${sec(s.median)} s (${sec(s.min)}-${
        sec(s.max)
      }; runs ${xs.map(sec).join(", ")}${ratio}), attention core ${
        (100 * share).toFixed(1)
      }%${vsNative}`;
    });
    const rss = peakRssMiB();
    console.log(
      `${c.label}${
        stackSet.length > 1 ? ` on ${stacks[v.which].id}` : ""
      }, ${layers} layers, ${tokenCount} tokens${tp === 1 ? "" : `, TP ${tp}`}: ${
        parts.join("; ")
      }; fingerprints identical: ${prints.get(key(v))!.size === 1}; peak RSS so far ${
        rss === null ? "n/a" : `${rss.toFixed(0)} MiB`
      }`,
    );
  }
}
console.log(`load average at end: ${loadText()}`);
gemmPool.close();
fa2Pool.close();

async function _forward(
  ckpt: DecoderCheckpoint,
  tokens: number[],
  o: {
    readonly threads: "1" | "all";
    readonly which: "hf" | "vllm";
    readonly parallel: TensorParallel | undefined;
    readonly releaseTensor?: (t: Uint16Array) => void;
  },
): Promise<string> {
  const r = await runPrefillForward(ckpt, {
    ...(o.releaseTensor === undefined ? {} : { releaseTensor: o.releaseTensor }),
    parallel: o.parallel,
    sequences: [tokens],
    runtime: runtime(o.threads, o.which),
    multiProcessorCount: 108,
  });
  if (!r.supported) throw new Error(r.reason);
  return r.result.fingerprint;
}
