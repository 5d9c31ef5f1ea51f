/**
 * A pool of threads running the GEMM kernel on column chunks of C: the calling thread and
 * `workers - 1` module workers (or, with `callerWalks: false`, `workers` module workers while the
 * calling thread stays free for other work) claim chunks from one shared counter until none is
 * left, so a thread slowed by other load just walks fewer chunks. Each output is computed alone by
 * the same kernel, so the bits do not depend on the thread count or on who walks which chunk.
 *
 * @module
 */
import type { Datapath, KWalkGemmOperands } from "../hardware/mod.ts";
import { engineSupports, type GemmEngine, prepareWalk } from "./gemm_engine.ts";
import { chunkBounds, type PoolJob, walkPoolJob, widestChunk } from "./pool_job.ts";
import { int32View, jobArena } from "./job_arena.ts";
import { instantiateKernel, kernelParams, ROW_BLOCK_BYTES, walkRowBlock } from "./wasm_kernel.ts";
import { startWorkerGroup } from "./worker_group.ts";

/**
 * Default `inlineBelow` of {@link createGemmPool}: 2^21 products, about a millisecond of kernel
 * time, below which posting the job to workers costs more than it saves.
 */
export const POOL_INLINE_BELOW = 2 ** 21;

/** A running pool; call `close()` when done (tests check that no worker leaks). */
export interface GemmPool {
  /** Number of computing threads (the calling thread included when it walks). */
  readonly size: number;
  /**
   * K-walk split over the threads; same contract and bits as `GemmEngine.kWalk`. The calling
   * thread computes a share before the promise settles, unless the pool was made with
   * `callerWalks: false`: then the call posts the job and returns, and the calling thread is free
   * to run other work (e.g. the next operator whose inputs are ready) while the workers walk;
   * jobs posted back to back are walked in order. Operands on a SharedArrayBuffer (one
   * whole K segment, k a multiple of `dp.k`) are read in place, not copied: leave them unchanged
   * until the promise settles.
   * @throws {RangeError} when the datapath is not supported or the operands are malformed
   */
  kWalk(dp: Datapath, ops: KWalkGemmOperands): Promise<Uint32Array>;
  /** Terminates every worker. */
  close(): void;
}

/**
 * Starts `workers - 1` module workers, each with its own instance of the engine's kernel; the
 * calling thread is the last computing thread (its own kernel instance). With `callerWalks:
 * false`, starts `workers` module workers and the calling thread walks only the small jobs that
 * run inline.
 *
 * @param engine an engine (its compiled module is posted to the workers)
 * @param options `workers`: computing threads, the calling thread included (>= 1; 1 runs every
 *   walk on the calling thread), e.g. `navigator.hardwareConcurrency`; `inlineBelow`: walks of
 *   fewer products (m * n * k) than this run on the calling thread alone with `engine` (same
 *   bits, no message round trip; default {@link POOL_INLINE_BELOW}, 0 for never); `callerWalks`:
 *   whether the calling thread computes a share of each posted job (default true);
 *   `rowBlockBytes`: the decoded rows of A each thread holds at most (default
 *   `ROW_BLOCK_BYTES`; taller jobs are walked row block by row block, same bits)
 * @returns the pool
 * @throws {RangeError} when `workers` is not a positive integer, `inlineBelow` is negative or
 *   `rowBlockBytes` is not a positive finite number
 * @example
 * ```ts ignore
 * const pool = createGemmPool(engine, { workers: navigator.hardwareConcurrency });
 * try { const c = await pool.kWalk(dp, { a, b, m, n, k }); } finally { pool.close(); }
 * ```
 */
export function createGemmPool(
  engine: GemmEngine,
  options: {
    workers: number;
    inlineBelow?: number;
    callerWalks?: boolean;
    rowBlockBytes?: number;
  },
): GemmPool {
  const size = options.workers;
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`Cannot create GEMM pool: workers must be >= 1, got ${size}`);
  }
  const inlineBelow = options.inlineBelow ?? POOL_INLINE_BELOW;
  if (!(inlineBelow >= 0)) {
    throw new RangeError(`Cannot create GEMM pool: inlineBelow must be >= 0, got ${inlineBelow}`);
  }
  const rowBlockBytes = options.rowBlockBytes ?? ROW_BLOCK_BYTES;
  if (!(rowBlockBytes > 0 && Number.isFinite(rowBlockBytes))) {
    throw new RangeError(
      `Cannot create GEMM pool: rowBlockBytes must be a positive number, got ${rowBlockBytes}`,
    );
  }
  const callerWalks = options.callerWalks ?? true;
  const group = startWorkerGroup(new URL("./gemm_worker.ts", import.meta.url), {
    count: callerWalks ? size - 1 : size,
    module: engine.module,
  });
  const own = callerWalks ? instantiateKernel(engine.module) : null;
  // Each job's copies on recycled shared memory, given back once every thread is done with them.
  const arena = jobArena();
  const kWalk = async (dp: Datapath, ops: KWalkGemmOperands): Promise<Uint32Array> => {
    if (!engineSupports(dp)) {
      throw new RangeError("Cannot run the GEMM pool: datapath not supported by the kernel");
    }
    if ((callerWalks && size === 1) || ops.m * ops.n * ops.k < inlineBelow) {
      return engine.kWalk(dp, ops);
    }
    const lease = arena.lease();
    let runs: Promise<unknown>[] = [];
    try {
      const walk = prepareWalk(dp, { ...ops, alloc: lease.alloc, reuseShared: true });
      const counter = int32View(lease.alloc(4), 1);
      const bounds = chunkBounds(ops.n, size);
      const base = {
        params: kernelParams(dp),
        ...walk,
        counter,
        bounds,
        width: widestChunk(bounds),
        rows: walkRowBlock(walk.kp, rowBlockBytes),
      };
      runs = group.post((id): PoolJob => ({ ...base, id }));
      if (own !== null) walkPoolJob(own, { ...base, id: -1 }); // the calling thread's share
      await Promise.all(runs);
      if (ops.out === undefined) return walk.c.slice();
      ops.out.set(walk.c);
      return ops.out;
    } finally {
      // No worker still reads or writes the lease's buffers once every run has settled.
      await Promise.allSettled(runs);
      lease.end();
    }
  };
  return { size, kWalk, close: group.close };
}
