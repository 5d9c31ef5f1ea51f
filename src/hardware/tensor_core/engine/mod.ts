/**
 * The fast bit-exact GEMM engine: a WebAssembly SIMD kernel (sources in `wasm/`, compiled module
 * `tables/wasm/gemm_engine.wasm`) for the K-walk of 16-bit-input, fp32-output, round-toward-zero
 * tensor-core datapaths, a worker pool, and the plain reference it must match bit for bit.
 *
 * @example
 * ```ts
 * import { engineSupports, kWalkReference } from "./mod.ts";
 * import { BF16, FP32 } from "../../../numerics/mod.ts";
 * const a100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * // With the module bytes from the asset store: createGemmEngine(bytes).kWalkAuto(a100, ops)
 * // gives the same bits as the reference below.
 * const one = new Uint16Array([0x3f80, 0x3f80]);
 * const c = kWalkReference(a100, { a: one, b: one, m: 1, n: 1, k: 2 });
 * if (!engineSupports(a100) || c[0] !== 0x40000000) throw new Error();
 * ```
 * @module
 */
export * from "./k_walk_operands.ts";
export * from "./k_walk_reference.ts";
export * from "./gemm_engine.ts";
export * from "./gemm_pool.ts";
export type { GatheredWalk, KernelParams } from "./wasm_kernel.ts";
export * from "./worker_group.ts";
