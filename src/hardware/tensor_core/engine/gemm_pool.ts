/**
 * A pool of module workers running the GEMM kernel on disjoint column blocks of C. Each output
 * is computed independently by the same kernel, so the bits do not depend on the worker count.
 *
 * @module
 */
import type { Datapath } from "../datapath.ts";
import { engineSupports, type GemmEngine, prepareWalk } from "./gemm_engine.ts";
import type { KWalkGemmOperands } from "./k_walk_operands.ts";
import { kernelParams } from "./wasm_kernel.ts";
import type { PoolJob } from "./gemm_worker.ts";

/**
 * Default `inlineBelow` of {@link createGemmPool}: 2^21 products, about a millisecond of kernel
 * time, below which posting the job to workers costs more than it saves.
 */
export const POOL_INLINE_BELOW = 2 ** 21;

/** A running pool; call `close()` when done (tests check that no worker leaks). */
export interface GemmPool {
  /** Number of workers. */
  readonly size: number;
  /**
   * K-walk split over the workers; same contract and bits as `GemmEngine.kWalk`.
   * @throws {RangeError} when the datapath is not supported or the operands are malformed
   */
  kWalk(dp: Datapath, ops: KWalkGemmOperands): Promise<Uint32Array>;
  /** Terminates every worker. */
  close(): void;
}

/**
 * Starts `workers` module workers, each with its own instance of the engine's kernel.
 *
 * @param engine an engine (its compiled module is posted to the workers)
 * @param options `workers`: how many (>= 1), e.g. `navigator.hardwareConcurrency`;
 *   `inlineBelow`: walks of fewer products (m * n * k) than this run on the calling thread with
 *   `engine` (same bits, no message round trip; default {@link POOL_INLINE_BELOW}, 0 for never)
 * @returns the pool
 * @throws {RangeError} when `workers` is not a positive integer or `inlineBelow` is negative
 * @example
 * ```ts ignore
 * const pool = createGemmPool(engine, { workers: navigator.hardwareConcurrency });
 * try { const c = await pool.kWalk(dp, { a, b, m, n, k }); } finally { pool.close(); }
 * ```
 */
export function createGemmPool(
  engine: GemmEngine,
  options: { workers: number; inlineBelow?: number },
): GemmPool {
  const size = options.workers;
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`Cannot create GEMM pool: workers must be >= 1, got ${size}`);
  }
  const inlineBelow = options.inlineBelow ?? POOL_INLINE_BELOW;
  if (!(inlineBelow >= 0)) {
    throw new RangeError(`Cannot create GEMM pool: inlineBelow must be >= 0, got ${inlineBelow}`);
  }
  const url = new URL("./gemm_worker.ts", import.meta.url);
  const workers = Array.from({ length: size }, () => new Worker(url, { type: "module" }));
  const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  for (const w of workers) {
    w.postMessage({ module: engine.module });
    w.onmessage = (e: MessageEvent) => {
      const r = e.data as { id: number; ok: boolean; error?: string };
      const p = waiting.get(r.id);
      waiting.delete(r.id);
      if (r.ok) p?.resolve();
      else p?.reject(new Error(r.error));
    };
  }
  let nextId = 0;
  const kWalk = async (dp: Datapath, ops: KWalkGemmOperands): Promise<Uint32Array> => {
    if (!engineSupports(dp)) {
      throw new RangeError("Cannot run the GEMM pool: datapath not supported by the kernel");
    }
    if (ops.m * ops.n * ops.k < inlineBelow) return engine.kWalk(dp, ops); // ~1 ms of work
    const job = prepareWalk(dp, { ...ops, alloc: (b) => new SharedArrayBuffer(b) });
    const params = kernelParams(dp);
    const step = Math.ceil(Math.ceil(ops.n / size) / 4) * 4; // panel-aligned column blocks
    const runs: Promise<void>[] = [];
    for (let w = 0, j0 = 0; j0 < ops.n; w++, j0 += step) {
      const id = nextId++;
      const msg: PoolJob = { id, params, ...job, j0, j1: Math.min(ops.n, j0 + step) };
      runs.push(new Promise((resolve, reject) => waiting.set(id, { resolve, reject })));
      workers[w]?.postMessage({ job: msg });
    }
    await Promise.all(runs);
    return new Uint32Array(job.c);
  };
  return { size, kWalk, close: () => workers.forEach((w) => w.terminate()) };
}
