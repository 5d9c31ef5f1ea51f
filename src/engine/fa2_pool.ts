/**
 * FlashAttention-2 on several threads: query heads are claimed one at a time from a shared
 * counter by the calling thread and `workers - 1` module workers, each with its own instance of
 * the GEMM kernel for the tile products. Each thread runs the kernel's plan (`planFa2`) head by
 * head (`fa2Head`); heads never mix, so the bits do not depend on the thread count or on who
 * computes which head.
 *
 * @module
 */
import { sfuDescription } from "../hardware/mod.ts";
import {
  type AttentionInputs,
  type Fa2Plan,
  fa2Result,
  fa2Runner,
  type Fa2Sinks,
  fa2Sinks,
  flashAttentionForward,
  type FlashAttentionOptions,
  type FlashAttentionResult,
  planFa2,
} from "../kernels/mod.ts";
import { fa2Units, type Fa2WorkerJob } from "./fa2_units.ts";
import type { GemmEngine } from "./gemm_engine.ts";
import { jobArena } from "./job_arena.ts";
import { startWorkerGroup } from "./worker_group.ts";

/** A running pool; call `close()` when done. */
export interface Fa2Pool {
  /** Computing threads, the calling thread included. */
  readonly size: number;
  /**
   * `flashAttentionForward` with its heads spread over the threads (same bits). Runs on the
   * calling thread alone when the MUFU model is not an unmodified `Sfu` from `createSfu` (a
   * worker rebuilds the SFU from its plain-data description: `sfuDescription`) or an `lg2`
   * override is given.
   */
  forward(inputs: AttentionInputs, options: FlashAttentionOptions): Promise<FlashAttentionResult>;
  /** Terminates every worker. */
  close(): void;
}

/**
 * Starts `workers - 1` module workers, each with its own instance of the engine's kernel.
 *
 * @param engine the GEMM engine (its compiled module is posted to the workers; the calling
 *   thread uses it as is)
 * @param options `workers`: computing threads, the calling thread included (>= 1); `inlineBelow`:
 *   launches of fewer scores run on the calling thread (default {@link FA2_POOL_INLINE_BELOW})
 * @returns the pool
 * @throws {RangeError} when `workers` is not a positive integer
 * @example
 * ```ts ignore
 * const pool = createFa2Pool(engine, { workers: navigator.hardwareConcurrency });
 * try { const r = await pool.forward(inputs, options); } finally { pool.close(); }
 * ```
 */
export function createFa2Pool(
  engine: GemmEngine,
  options: { workers: number; inlineBelow?: number },
): Fa2Pool {
  const size = options.workers;
  const inlineBelow = options.inlineBelow ?? FA2_POOL_INLINE_BELOW;
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`Cannot create FA2 pool: workers must be >= 1, got ${size}`);
  }
  const group = startWorkerGroup(new URL("./fa2_worker.ts", import.meta.url), {
    count: size - 1,
    module: engine.module,
  });
  // Each launch's copies on recycled shared memory, given back once every thread is done.
  const arena = jobArena();
  const forward = async (
    inputs: AttentionInputs,
    o: FlashAttentionOptions,
  ): Promise<FlashAttentionResult> => {
    const sfu = sfuDescription(o.mufu);
    const kWalk = o.kWalk ?? engine.kWalkAuto;
    // The kernel's tile softmax when it models this build and SFU (same bits as the TypeScript
    // step); a caller's own K-walk keeps the TypeScript step too.
    const tileSoftmax = o.tileSoftmax ??
      (o.kWalk === undefined ? engine.fa2TileSoftmax(o.build, o.mufu) : undefined);
    const inline = { ...o, kWalk, ...(tileSoftmax === undefined ? {} : { tileSoftmax }) };
    if (group.count === 0 || sfu === undefined || o.lg2 !== undefined) {
      return flashAttentionForward(inputs, inline);
    }
    const { plan, mufu } = planFa2(inputs, o);
    if (fa2Scores(plan) < inlineBelow) {
      return flashAttentionForward(inputs, inline);
    }
    const lease = arena.lease();
    try {
      const share = (a: Uint16Array) => {
        if (a.buffer instanceof SharedArrayBuffer) return a;
        const c = new Uint16Array(lease.alloc(a.byteLength), 0, a.length);
        c.set(a);
        return c;
      };
      const job = {
        plan,
        sfu,
        inputs: { q: share(inputs.q), k: share(inputs.k), v: share(inputs.v) },
        sinks: fa2Sinks(plan, lease.alloc),
        counter: new Int32Array(lease.alloc(4), 0, 1),
        wasmSoftmax: tileSoftmax !== undefined,
        // Whole KV heads (their query heads stacked in one tile, fewer and larger tile products)
        // when there are enough of them for every thread; else single query heads.
        byKvHead: plan.kvHeads >= size,
      };
      // Launches over a kept KV cache deal their units out in turn, so every thread reads the
      // tiles it kept in the previous launch; others claim units as they go.
      const dealt = (index: number) => plan.kvCache === null ? null : { index, count: size };
      let worker = 0;
      const done = group.post((id): Fa2WorkerJob => ({ ...job, id, dealt: dealt(++worker) }));
      const runner = fa2Runner(plan.build, { mufu, kWalk, tileSoftmax, kept: o.kvCache?.tiles });
      let failure: unknown;
      try {
        fa2Units(plan, { ...job, runner, dealt: dealt(0) });
      } catch (e) {
        Atomics.store(job.counter, 0, plan.heads);
        failure = e;
      }
      // Every worker has settled: none touches the lease's buffers any more.
      const results = await Promise.allSettled(done);
      if (failure !== undefined) throw failure;
      const bad = results.find((r) => r.status === "rejected");
      if (bad !== undefined) throw (bad as PromiseRejectedResult).reason;
      return fa2Result(plan, _ownSinks(job.sinks));
    } finally {
      lease.end();
    }
  };
  return { size, forward, close: group.close };
}

/**
 * Default threshold of {@link createFa2Pool}: launches of fewer scores (query rows x keys x heads,
 * summed over the sequences) run on the calling thread, where posting to a worker and copying K
 * and V to shared memory would cost about as much as the work (e.g. a decode step over a few
 * hundred keys of a model with few heads).
 */
export const FA2_POOL_INLINE_BELOW = 2 ** 12;

/** Scores a launch computes, an upper bound without the causal mask: rows x keys x heads. */
function fa2Scores(plan: Fa2Plan): number {
  return plan.seq.reduce((n, s) => n + s.sq * s.sk, 0) * plan.heads;
}

/** Copies the filled buffers off shared memory (no worker writes into them any more). */
function _ownSinks(s: Fa2Sinks): Fa2Sinks {
  return { out: s.out.slice(), outF32: s.outF32?.slice(), lse: s.lse?.slice() };
}
