/**
 * Execution: runs the pure core's kernels and plans fast, and changes no bit. The compiled
 * WebAssembly SIMD GEMM kernel (sources in `wasm/`, module `tables/wasm/gemm_engine.wasm`) for
 * the K-walk of 16-bit-input, fp32-output, round-toward-zero tensor-core datapaths (with the
 * plain `kWalkReference` of `src/hardware` for the rest); worker groups and shared-memory
 * scheduling; the GEMM pool (column chunks of C over threads); the FA2 pool (query heads of an
 * attention launch over threads, each running `planFa2`'s plan head by head, the SFU rebuilt on
 * each worker from its plain-data description); and the GEMM walker that verification and the
 * prover use. Every fast path is tested bit for bit against the plain reference path.
 *
 * Nothing here reads files: the kernel module's bytes come digest-checked from `src/resolve`
 * (`loadGemmEngine`).
 *
 * @example
 * ```ts
 * import { createGemmEngine, createGemmWalker, engineSupports } from "./mod.ts";
 * import { findDatapath, kWalkReference, parseGpuProfile } from "../hardware/mod.ts";
 * const root = new URL("../../", import.meta.url);
 * const engine = createGemmEngine(
 *   Deno.readFileSync(new URL("tables/wasm/gemm_engine.wasm", root)),
 * );
 * const a100 = parseGpuProfile(
 *   JSON.parse(Deno.readTextFileSync(new URL("profiles/gpu/a100.json", root))),
 * );
 * const dp = findDatapath(a100, { input: "bf16", output: "fp32" })!;
 * const a = new Uint16Array(4 * 32).map((_, i) => 0x3f80 + i);
 * const b = new Uint16Array(3 * 32).map((_, i) => 0xbf00 + 7 * i);
 * const ops = { a, b, m: 4, n: 3, k: 32 };
 * const ref = kWalkReference(dp, ops);
 * if (!engineSupports(dp) || engine.kWalk(dp, ops).some((c, i) => c !== ref[i])) {
 *   throw new Error("the engine gives the reference's bits");
 * }
 * const w = createGemmWalker(engine, { threads: 1 });
 * try {
 *   const c = await w.walker(dp, ops);
 *   if (w.engine !== "wasm" || c.some((x, i) => x !== ref[i])) throw new Error();
 * } finally {
 *   w.close();
 * }
 * ```
 * @module
 */
export { createFa2Pool, FA2_POOL_INLINE_BELOW, type Fa2Pool } from "./fa2_pool.ts";
export { createGemmEngine, engineSupports, type GemmEngine, prepareWalk } from "./gemm_engine.ts";
export { createGemmPool, type GemmPool, POOL_INLINE_BELOW } from "./gemm_pool.ts";
export { createGemmWalker, type GemmWalker } from "./gemm_walker.ts";
export { type GatheredWalk, type KernelParams } from "./wasm_kernel.ts";
export { type SharedBuffers, sharedBuffers } from "./shared_buffers.ts";
export { startWorkerGroup, type WorkerGroup, type WorkerReply } from "./worker_group.ts";
export { checkWorkerScript, workerRefusal } from "./worker_script_access.ts";
