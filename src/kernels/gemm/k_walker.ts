/**
 * The K-walk interface GEMM recipes are built on, and its plain reference implementation.
 *
 * @module
 */
import { type Datapath, type KWalkGemmOperands, kWalkReference } from "../../hardware/mod.ts";

/** One K-walk over a whole output matrix (operands as the tensor-core engine takes them). */
export type KWalkJob = KWalkGemmOperands;

/**
 * Computes fp32 accumulators [M, N] for a job. Implementations (the plain reference, the wasm
 * engine, a worker pool) must return identical bits.
 */
export type KWalker = (dp: Datapath, job: KWalkJob) => Promise<Uint32Array>;

/**
 * The readable reference walker: one `dotKWalk` per output element over the concatenated
 * segments (the engine's `kWalkReference`). Slow; the fast engines are checked against it.
 *
 * @param dp datapath (16-bit input formats)
 * @param job the job
 * @returns fp32 accumulator patterns [M, N]
 * @example
 * ```ts
 * import { referenceKWalker } from "./k_walker.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const dp = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const one = 0x3f80;
 * const c = await referenceKWalker(dp, { a: new Uint16Array([one, one]), b: new Uint16Array([one, one]), m: 1, n: 1, k: 2 });
 * if (c[0] !== 0x40000000) throw new Error();
 * ```
 */
export function referenceKWalker(dp: Datapath, job: KWalkJob): Promise<Uint32Array> {
  try {
    return Promise.resolve(kWalkReference(dp, job));
  } catch (e) {
    return Promise.reject(e);
  }
}
