/**
 * Model benchmark: `runQwen3Forward` on the exact shapes of Qwen3-0.6B (full forward, 28 layers,
 * 128 tokens), one Qwen3-4B layer (256 tokens) and one Qwen3-30B-A3B MoE layer (256 tokens, 128
 * experts, top 8), configs from `profiles/models/`, on 1 thread (the calling thread alone) and on
 * every core (GEMM pool and FA2 pool of `navigator.hardwareConcurrency` threads). A100 profile,
 * stack `hf-qwen3-flash-attn-torch2.8` (Dao FA2, tesla-table SFU) with one CUTLASS K-walk recipe
 * for every GEMM. Median of `runs` runs per case (default 3), after an untimed first run of the
 * smallest case.
 *
 * Weights come from a virtual checkpoint (synthesised on first use, `synthWeight`, never read from
 * disk): every layer reuses layer 0's tensors and expert e reuses expert e mod 8's, so that the
 * timings are of the arithmetic (GEMM row counts and routing are the real ones; values do not
 * change the work). The first time a tensor is made is outside the timed runs. The load average
 * is printed with the figures because the host may be shared. Usage:
 * `deno run -A tools/bench/bench_model.ts [runs] [--only 0.6b,4b,30b]`.
 *
 * @module
 */
import { createSfu } from "../../src/hardware/mod.ts";
import { createFa2Pool, createGemmEngine, createGemmPool } from "../../src/engine/mod.ts";
import { decodeSfuTables, parseGpuProfile } from "../../src/hardware/mod.ts";
import {
  flashAttentionForward,
  type KWalker,
  parseRecipe,
  parseStackProfile,
  referenceKWalker,
} from "../../src/kernels/mod.ts";
import {
  type BlockRuntime,
  fixedRecipeDispatch,
  parseQwen3Config,
  type Qwen3Checkpoint,
  type Qwen3Config,
  runQwen3Forward,
  synthWeight,
} from "../../src/model/mod.ts";

const root = new URL("../../", import.meta.url);
const readJson = async (p: string) => JSON.parse(await Deno.readTextFile(new URL(p, root)));
const runs = Number(Deno.args[0]?.startsWith("--") ? 3 : Deno.args[0] ?? 3);
const onlyAt = Deno.args.indexOf("--only");
const only = onlyAt < 0 ? ["0.6b", "4b", "30b"] : Deno.args[onlyAt + 1]!.split(",");

/** A checkpoint whose tensors are synthesised on demand (layer 0's for every layer). */
function virtualCheckpoint(config: Qwen3Config): Qwen3Checkpoint {
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
const gemmPool = createGemmPool(engine, { workers: cores });
const fa2Pool = createFa2Pool(engine, { workers: cores });
const profile = parseGpuProfile(await readJson("profiles/gpu/a100.json"));
const stack = parseStackProfile({
  ...(await readJson("profiles/stack/hf-qwen3-flash-attn-torch2.8.json")),
  gemm: { kernelSource: "recipe" },
});
const recipe = parseRecipe(await readJson("profiles/recipes/cutlass-kwalk-128x128x64.json"));
const sfu = createSfu({
  mode: "tesla-table",
  tables: decodeSfuTables(await Deno.readFile(new URL("tables/sfu/tesla_sfu_v1.bin", root))),
});
const oneThread: KWalker = (dp, job) =>
  engine.supports(dp) ? Promise.resolve(engine.kWalk(dp, job)) : referenceKWalker(dp, job);
const allCores: KWalker = (dp, job) =>
  engine.supports(dp) ? gemmPool.kWalk(dp, job) : referenceKWalker(dp, job);
const runtime = (threads: "1" | "all"): BlockRuntime => ({
  profile,
  stack,
  gemm: fixedRecipeDispatch(recipe),
  walker: threads === "1" ? oneThread : allCores,
  attention: threads === "1"
    ? (inputs, o) => flashAttentionForward(inputs, { ...o, kWalk: engine.kWalkAuto })
    : fa2Pool.forward,
  sfu,
});

const cases: { id: string; label: string; config: string; layers: number; tokens: number }[] = [
  { id: "0.6b", label: "Qwen3-0.6B full forward", config: "qwen3-0.6b", layers: 28, tokens: 128 },
  { id: "4b", label: "Qwen3-4B one layer", config: "qwen3-4b", layers: 1, tokens: 256 },
  {
    id: "30b",
    label: "Qwen3-30B-A3B one MoE layer",
    config: "qwen3-30b-a3b",
    layers: 1,
    tokens: 256,
  },
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`bench:model, ${runs} runs per case, ${cores} cores, Deno ${Deno.version.deno}`);
console.log(`load average at start: ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
for (const c of cases.filter((x) => only.includes(x.id))) {
  const config = parseQwen3Config({
    ...(await readJson(`profiles/models/${c.config}.config.json`)),
    num_hidden_layers: c.layers,
  });
  const ckpt = virtualCheckpoint(config);
  const tokens = Array.from({ length: c.tokens }, (_, i) => (i * 7919 + 13) % config.vocab);
  const once = async (threads: "1" | "all") => {
    const t0 = performance.now();
    const r = await runQwen3Forward(ckpt, {
      sequences: [tokens],
      runtime: runtime(threads),
      multiProcessorCount: 108,
    });
    if (!r.supported) throw new Error(r.reason);
    return { ms: performance.now() - t0, fingerprint: r.result.fingerprint };
  };
  await once("all"); // makes the virtual tensors (untimed)
  const times: Record<string, number[]> = { "1": [], "all": [] };
  const prints = new Set<string>();
  for (let i = 0; i < runs; i++) {
    for (const t of ["1", "all"] as const) {
      const r = await once(t);
      times[t]!.push(r.ms);
      prints.add(r.fingerprint);
    }
  }
  const m1 = median(times["1"]!), ma = median(times["all"]!);
  console.log(
    `${c.label}, ${c.tokens} tokens: 1 thread ${(m1 / 1000).toFixed(2)} s, ${cores} threads ${
      (ma / 1000).toFixed(2)
    } s (x${(m1 / ma).toFixed(2)}); runs 1: ${
      times["1"]!.map((x) => (x / 1000).toFixed(2)).join(", ")
    }; ${cores}: ${
      times["all"]!.map((x) => (x / 1000).toFixed(2)).join(", ")
    }; fingerprints identical: ${prints.size === 1}`,
  );
}
console.log(`load average at end: ${Deno.loadavg().map((x) => x.toFixed(2)).join(" ")}`);
gemmPool.close();
fa2Pool.close();
