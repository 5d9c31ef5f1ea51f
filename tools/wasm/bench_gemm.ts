/**
 * GEMM engine benchmark: products per second of the WebAssembly kernel on the calling thread
 * alone and on every core (the calling thread plus cores - 1 pool workers), median of several
 * runs after one untimed warm-up, the speed-up of every core over one, and the ratio to the
 * plain-TS reference measured in the same run (the reference is timed on a 1 x 8 x K slice and
 * scaled by products; said in the output). Usage: `deno run -A tools/wasm/bench_gemm.ts [runs]` (default 3).
 *
 * @module
 */
import { createGemmEngine, createGemmPool } from "../../src/engine/mod.ts";
import { findDatapath, kWalkReference, parseGpuProfile } from "../../src/hardware/mod.ts";

const runs = Number(Deno.args[0] ?? 3);
const root = new URL("../../", import.meta.url);
const engine = createGemmEngine(await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root)));
const cores = navigator.hardwareConcurrency;
const SHAPES: [number, number, number][] = [[128, 2560, 1024], [256, 9728, 2560]];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

let seed = 12345;
function bf16Normal(): number {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return ((seed >>> 31) << 15) | ((118 + ((seed >>> 8) % 12)) << 7) | (seed & 0x7f);
}

console.log(
  `bench_gemm: ${runs} runs per point, ${cores} cores, ${Deno.build.os}/${Deno.build.arch}`,
);
for (const id of ["a100", "h100-sxm"]) {
  const profile = parseGpuProfile(
    JSON.parse(await Deno.readTextFile(new URL(`profiles/gpu/${id}.json`, root))),
  );
  const dp = findDatapath(profile, { input: "bf16", output: "fp32" });
  if (dp === undefined) throw new Error(`no bf16->fp32 datapath in ${id}`);
  for (const [m, n, k] of SHAPES) {
    const a = new Uint16Array(m * k).map(bf16Normal);
    const b = new Uint16Array(n * k).map(bf16Normal);
    const products = m * n * k;
    const rs = 8;
    const t0 = performance.now();
    kWalkReference(dp, { a: a.subarray(0, k), b: b.subarray(0, rs * k), m: 1, n: rs, k });
    const refRate = rs * k / ((performance.now() - t0) / 1000);
    const line: string[] = [];
    const medians: number[] = [];
    for (const workers of [1, cores]) {
      const pool = createGemmPool(engine, { workers });
      try {
        const rates: number[] = [];
        await pool.kWalk(dp, { a, b, m, n, k }); // untimed warm-up: wasm tier-up, worker start
        for (let r = 0; r < runs; r++) {
          const t = performance.now();
          await pool.kWalk(dp, { a, b, m, n, k });
          rates.push(products / ((performance.now() - t) / 1000));
        }
        const med = median(rates);
        medians.push(med);
        line.push(
          `${workers} thread(s) ${(med / 1e9).toFixed(3)} G products/s (x${
            (med / refRate).toFixed(0)
          } vs reference)`,
        );
      } finally {
        pool.close();
      }
    }
    const speedUp = (medians[1] as number) / (medians[0] as number);
    console.log(
      `${id} bf16 ${m}x${n}x${k}: ${line.join("; ")}; speed-up x${speedUp.toFixed(2)}; reference ${
        (refRate / 1e6).toFixed(2)
      } M products/s (timed on 1x${rs}x${k}, scaled by products)`,
    );
  }
}
