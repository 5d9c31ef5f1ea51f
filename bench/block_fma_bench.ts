/**
 * Block-FMA throughput: products per second of the tensor-core K-walk on the 128x2560x1024 bf16
 * problem (the baseline for the GEMM engine), A100 and H100 datapaths.
 *
 * Run: `deno task bench` (products/s = M*N*K / time per iteration; the plain reference runs on a
 * 4x32x1024 slice of the same problem because the full problem takes minutes there).
 *
 * @module
 */
import { createGemmEngine } from "../src/engine/mod.ts";
import { findDatapath, kWalkReference, parseGpuProfile } from "../src/hardware/mod.ts";
import { synthBf16 } from "../src/prover/mod.ts";

const root = new URL("../", import.meta.url);
const wasm = await Deno.readFile(new URL("tables/wasm/gemm_engine.wasm", root));
const engine = createGemmEngine(wasm);
const [M, N, K] = [128, 2560, 1024];
const a = synthBf16("bench", { label: "a", count: M * K });
const b = synthBf16("bench", { label: "b", count: N * K });
const slice = { a: a.subarray(0, 4 * K), b: b.subarray(0, 32 * K), m: 4, n: 32, k: K };

for (const id of ["a100", "h100-sxm"]) {
  const profile = parseGpuProfile(
    JSON.parse(await Deno.readTextFile(new URL(`profiles/gpu/${id}.json`, root))),
  );
  const dp = findDatapath(profile, { input: "bf16", output: "fp32" })!;
  Deno.bench(`${id} wasm engine, 1 thread, 128x2560x1024 (335,544,320 products)`, () => {
    engine.kWalk(dp, { a, b, m: M, n: N, k: K });
  });
  Deno.bench(`${id} plain TS reference, 4x32x1024 slice (131,072 products)`, () => {
    kWalkReference(dp, slice);
  });
}
