/**
 * A job of the GEMM pool: gathered operands on SharedArrayBuffers and a shared counter from which
 * the calling thread and every worker claim units (a row block's column chunk) until none is
 * left, row block by row block. Each output is computed alone by the same kernel, so the bits do
 * not depend on who walks which unit.
 *
 * @module
 */
import { type KernelParams, type WalkUnit, walkUnit, type WasmKernel } from "./wasm_kernel.ts";

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
  /** Index of the next unclaimed unit at index 0 (shared by every thread of the job). */
  readonly counter: Int32Array;
  /** Chunk boundaries: chunk i is columns [bounds[i], bounds[i + 1]) (see {@link chunkBounds}). */
  readonly bounds: Int32Array;
  /** The widest chunk (a multiple of 4 in [4, 256]). */
  readonly width: number;
  /**
   * Rows of a row block (>= 1; e.g. `walkRowBlock(kp)`): unit u is row block
   * floor(u / chunks), chunk u mod chunks.
   */
  readonly rows: number;
}

/** Narrowest chunk of a guided schedule, in columns (one panel). */
const _MIN_CHUNK = 8;
/** Widest chunk (the kernel packs at most this many columns at once). */
const _MAX_CHUNK = 256;

/**
 * Guided chunk schedule for `threads` threads sharing `n` columns: each chunk is about
 * 1 / (2 x threads) of the columns still left, panel-aligned, between 8 and 256 columns, so the
 * early chunks are wide (few claims, little packing overhead) and the last ones narrow (a thread
 * that finishes early waits at most one narrow chunk for the others).
 *
 * @param n columns of C
 * @param threads threads sharing the job (>= 1)
 * @returns the boundaries, from 0 to n
 * @example
 * ```ts
 * import { chunkBounds } from "./pool_job.ts";
 * const b = chunkBounds(2560, 2);
 * if (b[0] !== 0 || b.at(-1) !== 2560 || b[1] !== 256 || b.at(-1)! - b.at(-2)! !== 8) {
 *   throw new Error();
 * }
 * ```
 */
export function chunkBounds(n: number, threads: number): Int32Array {
  const bounds = [0];
  for (let j = 0; j < n;) {
    const guided = Math.ceil((n - j) / (2 * threads) / _MIN_CHUNK) * _MIN_CHUNK;
    j += Math.min(n - j, Math.min(_MAX_CHUNK, Math.max(_MIN_CHUNK, guided)));
    bounds.push(j);
  }
  return Int32Array.from(bounds);
}

/**
 * The widest chunk of a schedule, rounded up to a multiple of 4 (the kernel's memory is laid out
 * for it).
 *
 * @param bounds chunk boundaries from {@link chunkBounds}
 * @returns a multiple of 4 in [4, 256]
 * @example
 * ```ts
 * import { chunkBounds, widestChunk } from "./pool_job.ts";
 * if (widestChunk(chunkBounds(20, 2)) !== 8) throw new Error();
 * ```
 */
export function widestChunk(bounds: Int32Array): number {
  let w = 4;
  for (let i = 1; i < bounds.length; i++) w = Math.max(w, bounds[i]! - bounds[i - 1]!);
  return Math.ceil(w / 4) * 4;
}

/**
 * Walks the units of a pool job that this thread claims, until none is left.
 *
 * @param kernel this thread's kernel instance
 * @param job the job
 * @returns the number of units this thread walked
 * @example
 * ```ts ignore
 * walkPoolJob(kernel, job); // on every thread sharing job.counter
 * ```
 */
export function walkPoolJob(kernel: WasmKernel, job: PoolJob): number {
  let walked = 0;
  const claim = (): WalkUnit | null => {
    const unit = walkUnit(Atomics.add(job.counter, 0, 1), job);
    if (unit !== null) walked++;
    return unit;
  };
  kernel.walkClaimed(job.params, job, { width: job.width, rows: job.rows, claim });
  return walked;
}
