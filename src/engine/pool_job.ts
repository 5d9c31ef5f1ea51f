/**
 * A job of the GEMM pool: gathered operands on SharedArrayBuffers and a shared counter from which
 * the calling thread and every worker claim column chunks until none is left. Each output is
 * computed alone by the same kernel, so the bits do not depend on who walks which chunk.
 *
 * @module
 */
import type { KernelParams, WasmKernel } from "./wasm_kernel.ts";

/** A job message: gathered operands on SharedArrayBuffers and a shared chunk counter. */
export interface PoolJob {
  /** Job id echoed in the reply. */
  readonly id: number;
  /** Kernel parameters. */
  readonly params: KernelParams;
  /** Gathered A [m][kp] (shared). */
  readonly a: Uint16Array;
  /** Gathered B [n][kp] (shared). */
  readonly b: Uint16Array;
  /** Accumulators C [m][n] (shared), read and overwritten. */
  readonly c: Uint32Array;
  /** Rows of A and C. */
  readonly m: number;
  /** Rows of B, columns of C. */
  readonly n: number;
  /** Padded K length. */
  readonly kp: number;
  /** Next unclaimed column at index 0 (shared by every thread of the job). */
  readonly counter: Int32Array;
  /** Columns per claimed chunk (a multiple of 4 in [4, 256]). */
  readonly width: number;
}

/**
 * Chunk width for `threads` threads sharing `n` columns: about sixteen chunks per thread (so a
 * thread slowed by other load leaves at most a small tail), panel-aligned, at most 256.
 *
 * @param n columns of C
 * @param threads threads sharing the job (>= 1)
 * @returns a multiple of 4 in [4, 256]
 * @example
 * ```ts
 * import { chunkWidth } from "./pool_job.ts";
 * if (chunkWidth(2560, 2) !== 80 || chunkWidth(9728, 2) !== 256 || chunkWidth(3, 4) !== 4) {
 *   throw new Error();
 * }
 * ```
 */
export function chunkWidth(n: number, threads: number): number {
  return Math.min(256, Math.max(4, Math.ceil(n / (threads * 16) / 4) * 4));
}

/**
 * Walks the chunks of a pool job that this thread claims, until none is left.
 *
 * @param kernel this thread's kernel instance
 * @param job the job
 * @returns the number of chunks this thread walked
 * @example
 * ```ts ignore
 * walkPoolJob(kernel, job); // on every thread sharing job.counter
 * ```
 */
export function walkPoolJob(kernel: WasmKernel, job: PoolJob): number {
  let walked = 0;
  const claim = () => {
    const j0 = Atomics.add(job.counter, 0, job.width);
    if (j0 < job.n) walked++;
    return j0;
  };
  kernel.walkClaimed(job.params, job, { width: job.width, claim });
  return job.m === 0 ? 0 : walked;
}
