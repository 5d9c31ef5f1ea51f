/**
 * GEMM engine benchmark: products per second of the WebAssembly kernel on the calling thread
 * alone and on every core (the calling thread plus cores - 1 pool workers), for the bf16 -> fp32
 * K-walk of the A100 and H100 SXM profiles at the Qwen3-4B down_proj shapes (M x N x K =
 * 128x2560x9728 and 250x2560x9728), with B (the weights) on shared memory as the model forward
 * reads checkpoint tensors, so no thread copies it per call. Each figure is the median of `runs` (>= 3) timed runs after
 * one untimed warm-up, with the spread (slowest - fastest). Measured in the same run and printed
 * beside it: a native FP32 sgemm of the same shape with the same thread count (NumPy's BLAS,
 * `native_sgemm.ts`), each engine run followed by one native run, and the ratio native / engine
 * as the median of those pairs' ratios with their spread (the host's speed drifts over seconds;
 * a pair shares its drift, two medians taken a minute apart do not); and the plain-TS reference
 * (timed on a 1 x 8 x K slice and scaled by products). The machine's load average is printed at the start
 * and the end; a run whose 1-minute load average exceeds 1.0 at the start is refused (exit 2)
 * unless `--force` is given.
 *
 * Usage: `deno run -A tools/wasm/bench_gemm.ts [runs] [--force] [--gpu a100,h100-sxm]
 * [--shapes 128x2560x9728,250x2560x9728]`.
 *
 * @module
 */
import { createGemmEngine, createGemmPool } from "../../src/engine/mod.ts";
import {
  type Datapath,
  findDatapath,
  kWalkReference,
  parseGpuProfile,
} from "../../src/hardware/mod.ts";
import { type NativeSgemmSession, openNativeSgemm } from "./native_sgemm.ts";

/** Highest 1-minute load average at the start of a reported run. */
const MAX_LOAD = 1.0;

const flag = (name: string) => {
  const i = Deno.args.indexOf(`--${name}`);
  return i < 0 ? undefined : Deno.args[i + 1];
};
const runs = Number(Deno.args[0]?.startsWith("--") ? 3 : Deno.args[0] ?? 3);
const gpus = (flag("gpu") ?? "a100,h100-sxm").split(",");
const shapes = (flag("shapes") ?? "128x2560x9728,250x2560x9728").split(",")
  .map((s) => s.split("x").map(Number) as [number, number, number]);
if (!Number.isInteger(runs) || runs < 3 || runs > 100) usage(`runs must be 3..100, got ${runs}`);
if (shapes.some((s) => s.length !== 3 || s.some((v) => !Number.isInteger(v) || v < 1 || v > 1e5))) {
  usage("shapes must be MxNxK with positive integers");
}
const root = new URL("../../", import.meta.url);
const engine = createGemmEngine(await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root)));
const cores = navigator.hardwareConcurrency;

function usage(why: string): never {
  console.error(`error [USAGE]: Cannot run the GEMM benchmark: ${why}`);
  Deno.exit(2);
}

const loadText = () => Deno.loadavg().map((v) => v.toFixed(2)).join(", ");

/** Median, slowest and fastest of rates. */
function stats(xs: number[]): { median: number; min: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] as number, min: s[0] as number, max: s.at(-1)! };
}

const g = (v: number) => (v / 1e9).toFixed(3);
const spread = (s: { min: number; max: number }) => `${g(s.min)}-${g(s.max)}`;

let seed = 12345;
function bf16Normal(): number {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return ((seed >>> 31) << 15) | ((118 + ((seed >>> 8) % 12)) << 7) | (seed & 0x7f);
}

/**
 * Engine rates with `workers` computing threads, each timed run followed by one native run
 * (when a native session is open): the rates of both and the ratios native / engine per pair.
 */
async function pairedRates(
  dp: Datapath,
  shape: [number, number, number],
  workers: number,
  native: NativeSgemmSession | undefined,
) {
  const [m, n, k] = shape;
  const a = new Uint16Array(m * k).map(bf16Normal);
  // B (the weights) on shared memory, as `bitaudit model forward` and audits read checkpoint
  // tensors: the pool's threads read it in place; A (activations) is copied per call as there.
  const b = new Uint16Array(new SharedArrayBuffer(n * k * 2));
  b.set(new Uint16Array(n * k).map(bf16Normal)); // (map() would return a non-shared array)
  const pool = createGemmPool(engine, { workers });
  try {
    await pool.kWalk(dp, { a, b, m, n, k }); // untimed warm-up: wasm tier-up, worker start
    const rates: number[] = [];
    const natives: number[] = [];
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      await pool.kWalk(dp, { a, b, m, n, k });
      rates.push(m * n * k / ((performance.now() - t) / 1000));
      if (native !== undefined) natives.push(await native.run());
    }
    const ratios = natives.map((v, i) => v / (rates[i] as number));
    return {
      engine: stats(rates),
      native: natives.length === 0 ? undefined : stats(natives),
      ratio: ratios.length === 0 ? undefined : stats(ratios),
    };
  } finally {
    pool.close();
  }
}

/** Plain-TS reference rate on a 1 x 8 x K slice. */
function referenceRate(dp: Datapath, k: number): number {
  const a = new Uint16Array(k).map(bf16Normal);
  const b = new Uint16Array(8 * k).map(bf16Normal);
  const t = performance.now();
  kWalkReference(dp, { a, b, m: 1, n: 8, k });
  return 8 * k / ((performance.now() - t) / 1000);
}

const load0 = Deno.loadavg()[0] as number;
console.log(
  `bench_gemm: ${runs} runs per point, ${cores} cores, ${Deno.build.os}/${Deno.build.arch}, ` +
    `load average ${loadText()} at the start`,
);
if (load0 > MAX_LOAD && !Deno.args.includes("--force")) {
  console.error(
    `error [LOAD_HIGH]: Cannot report a benchmark: the 1-minute load average ${
      load0.toFixed(2)
    } exceeds ${
      MAX_LOAD.toFixed(1)
    } (rerun on an idle machine, or pass --force and quote the load)`,
  );
  Deno.exit(2);
}
for (const id of gpus) {
  const profile = parseGpuProfile(
    JSON.parse(await Deno.readTextFile(new URL(`profiles/gpu/${id}.json`, root))),
  );
  const dp = findDatapath(profile, { input: "bf16", output: "fp32" });
  if (dp === undefined) usage(`no bf16->fp32 datapath in profile '${id}'`);
  for (const shape of shapes) {
    const medians: number[] = [];
    for (const workers of [1, cores]) {
      const session = await openNativeSgemm(shape, workers);
      const nat = typeof session === "string" ? undefined : session;
      try {
        const r = await pairedRates(dp, shape, workers, nat);
        medians.push(r.engine.median);
        const native = r.native === undefined || r.ratio === undefined || nat === undefined
          ? `native sgemm n/a (${session})`
          : `native sgemm ${g(r.native.median)} G MAC/s (${spread(r.native)}, ${nat.blas}): x${
            r.ratio.median.toFixed(1)
          } native/engine (median of ${runs} paired runs, ${r.ratio.min.toFixed(1)}-${
            r.ratio.max.toFixed(1)
          })`;
        console.log(
          `${id} bf16 ${shape.join("x")} ${workers} thread(s): ${
            g(r.engine.median)
          } G products/s ` +
            `(${spread(r.engine)}); ${native}`,
        );
      } finally {
        await nat?.close();
      }
    }
    const ref = referenceRate(dp, shape[2]);
    console.log(
      `${id} bf16 ${shape.join("x")}: speed-up x${
        ((medians[1] as number) / (medians[0] as number)).toFixed(2)
      } on ${cores} threads; x${
        ((medians[0] as number) / ref).toFixed(0)
      } the plain-TS reference (${(ref / 1e6).toFixed(2)} M products/s on 1x8x${shape[2]})`,
    );
  }
}
console.log(`load average ${loadText()} at the end`);
