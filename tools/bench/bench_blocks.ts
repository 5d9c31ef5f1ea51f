/**
 * Block benchmark: the FFN and attention blocks of one Qwen3-4B layer (`QWEN3_4B_LAYER`) at 256
 * and 4,000 tokens on the A100 and H100 SXM profiles, synthetic BF16 tensors (weights N(0, 0.02),
 * norm weights 1 + N(0, 0.02), input N(0, 1)), GEMMs through the CUTLASS recipe
 * `profiles/recipes/cutlass-kwalk-128x128x64.json` on the wasm engine with a pool of every core.
 * Each stage runs exactly as `runFfnBlock` / `runAttentionBlock` compose it (the FFN is also run
 * end to end once and its output compared bit for bit) and is timed alone: median of `runs`
 * runs (1 for sizes above 1,024 tokens). Variants: SFU `ieee` and `tesla-table`, and for
 * attention the `fa2-pytorch-bundled` and `fa2-dao-fastmath` backends. The GEMM stages do not
 * depend on the variant and are timed once per GPU and size, inside the first variant.
 *
 * The attention core (FlashAttention-2 on an `Fa2Pool` of every core: query heads spread over the
 * threads, tile products on the wasm engine, the online softmax in TypeScript) is timed on a
 * slice and scaled by the FA2 work count (`fa2RowWork`): the first `--core-heads` heads (default:
 * one per core, so that every thread has a head; every head has the same work), all rows at
 * <= 1,024 tokens, above that only their last full query tile (m-block) and the partial one
 * after it, the heaviest rows under the causal mask. Slices run through the varlen entry with one sequence (the standard kernel's row
 * walk); a launch the split heuristic splits, and every launch with `--full-core`, runs the whole
 * core as the block does instead. Usage:
 * `deno run -A tools/bench/bench_blocks.ts [runs] [--tokens 256,4000] [--gpu a100,h100-sxm]
 * [--core-heads N] [--full-core]`.
 *
 * @module
 */
import {
  createSfu,
  decodeSfuTables,
  findDatapath,
  parseGpuProfile,
} from "../../src/hardware/mod.ts";
import type { Sfu } from "../../src/hardware/mod.ts";
import { createFa2Pool, createGemmEngine, createGemmPool } from "../../src/engine/mod.ts";
import { fa2Tiles, type KWalker, parseRecipe, parseStackProfile } from "../../src/kernels/mod.ts";
import { referenceKWalker } from "../../src/kernels/mod.ts";
import { type BlockRuntime, fixedRecipeDispatch, QWEN3_4B_LAYER } from "../../src/model/mod.ts";
import { normalBf16 } from "./_bench_blocks_support.ts";
import { benchAttention } from "./_bench_attention.ts";
import { benchFfn } from "./_bench_ffn.ts";

const root = new URL("../../", import.meta.url);
const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i < 0 ? undefined : Deno.args[i + 1];
};
const runs = Number(Deno.args[0]?.startsWith("--") ? 3 : Deno.args[0] ?? 3);
const tokensList = (flag("tokens") ?? "256,4000").split(",").map(Number);
const gpus = (flag("gpu") ?? "a100,h100-sxm").split(",");
const coreHeads = Number(flag("core-heads") ?? navigator.hardwareConcurrency);
const fullCore = Deno.args.includes("--full-core");
const SMS: Record<string, number> = { "a100": 108, "h100-sxm": 132 };

const readJson = async (p: string) => JSON.parse(await Deno.readTextFile(new URL(p, root)));
const recipe = parseRecipe(await readJson("profiles/recipes/cutlass-kwalk-128x128x64.json"));
const engine = createGemmEngine(await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root)));
const cores = navigator.hardwareConcurrency;
const pool = createGemmPool(engine, { workers: cores });
const fa2Pool = createFa2Pool(engine, { workers: cores });
const walker: KWalker = (dp, job) =>
  engine.supports(dp) ? pool.kWalk(dp, job) : referenceKWalker(dp, job);
const tesla = createSfu({
  mode: "tesla-table",
  tables: decodeSfuTables(await Deno.readFile(new URL("tables/sfu/tesla_sfu_v1.bin", root))),
});
const SFUS: [string, Sfu, string][] = [
  ["ieee", createSfu({ mode: "ieee" }), "ieee-exact"],
  // model-only: a split-KV launch (e.g. 256 tokens on 132 SMs) needs MUFU.LG2; this bench stack
  // accepts it so that the launch is timed (a verifier stack asking for more refuses it).
  ["tesla-table", tesla, "model-only"],
];

/** A runtime for one variant. */
function runtimeFor(gpu: string, sfu: [string, Sfu, string], attention: string): BlockRuntime {
  const profile = parseGpuProfile(
    JSON.parse(Deno.readTextFileSync(new URL(`profiles/gpu/${gpu}.json`, root))),
  );
  const stack = parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: `bench-${sfu[0]}-${attention}`,
    name: "bench",
    components: {},
    gemm: { kernelSource: "recipe" },
    sfu: { mode: sfu[1].mode, minimumStatus: sfu[2] },
    operators: { torch: "2.8.0", attention },
    sources: [],
  });
  return {
    profile,
    stack,
    gemm: fixedRecipeDispatch(recipe),
    walker,
    attention: fa2Pool.forward,
    sfu: sfu[1],
  };
}

const uptime = async () =>
  new TextDecoder().decode((await new Deno.Command("uptime").output()).stdout).trim();
console.log(
  `bench_blocks: ${runs} runs per stage (1 above 1,024 tokens), ${cores} cores (pool of ${pool.size}), ${Deno.build.os}/${Deno.build.arch}, deno ${Deno.version.deno}`,
);
console.log(
  `GEMM recipe: cutlass-kwalk-128x128x64 (family kwalk, fixedRecipeDispatch); load before: ${await uptime()}`,
);
const shape = QWEN3_4B_LAYER;
try {
  for (const gpu of gpus) {
    const profile = parseGpuProfile(await readJson(`profiles/gpu/${gpu}.json`));
    if (findDatapath(profile, { input: "bf16", output: "fp32" }) === undefined) {
      throw new Error(`no datapath in ${gpu}`);
    }
    const tiles = fa2Tiles(profile.architecture, { headDim: shape.headDim, causal: true });
    for (const tokens of tokensList) {
      const n = tokens > 1024 ? 1 : runs;
      const x = normalBf16(1, { count: tokens * shape.hidden, sigma: 1 });
      console.log(
        `\n=== ${gpu} (${profile.architecture}, ${
          SMS[gpu]
        } SMs), ${tokens} tokens, median of ${n} ===`,
      );
      await benchFfn(x, {
        shape,
        tokens,
        runs: n,
        variants: SFUS.map((s) => [s[0], runtimeFor(gpu, s, "fa2-pytorch-bundled")]),
      });
      const attVariants: [string, BlockRuntime][] = [];
      for (const s of SFUS) {
        for (const a of ["fa2-pytorch-bundled", "fa2-dao-fastmath"]) {
          attVariants.push([`${s[0]}/${a.slice(4)}`, runtimeFor(gpu, s, a)]);
        }
      }
      await benchAttention(x, {
        shape,
        tokens,
        runs: n,
        variants: attVariants,
        sms: SMS[gpu] ?? 108,
        tiles,
        coreHeads,
        fullCore,
      });
    }
  }
} finally {
  pool.close();
  fa2Pool.close();
}
console.log(`\nload after: ${await uptime()}`);
