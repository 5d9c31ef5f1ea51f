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
  checkFa2Batch,
  type Fa2BatchLaunch,
  type Fa2Plan,
  fa2Result,
  type Fa2Runner,
  fa2Runner,
  type Fa2Sinks,
  fa2Sinks,
  flashAttentionBatch,
  flashAttentionForward,
  type FlashAttentionOptions,
  type FlashAttentionResult,
  planFa2,
} from "../kernels/mod.ts";
import { fa2Units, type Fa2WorkerJob } from "./fa2_units.ts";
import type { GemmEngine } from "./gemm_engine.ts";
import { int32View, jobArena } from "./job_arena.ts";
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
  readonly forward:
    & ((inputs: AttentionInputs, options: FlashAttentionOptions) => Promise<FlashAttentionResult>)
    & { readonly batch: (launches: readonly Fa2BatchLaunch[]) => Promise<FlashAttentionResult[]> };
  /**
   * `flashAttentionBatch` with the KV heads spread over the threads (same bits): the decode
   * steps of a sequence over its KV cache run together, each KV tile's products once for all.
   */
  forwardBatch(launches: readonly Fa2BatchLaunch[]): Promise<FlashAttentionResult[]>;
  /** Terminates every worker. */
  close(): void;
}

/**
 * Starts `workers - 1` module workers (`workers` when the calling thread does not compute), each
 * with its own instance of the engine's kernel.
 *
 * @param engine the GEMM engine (its compiled module is posted to the workers; the calling
 *   thread uses it as is)
 * @param options `workers`: computing threads (>= 1); `callerComputes`: whether the calling
 *   thread is one of them (default true; false leaves it free while a launch runs, e.g. to answer
 *   Ctrl-C and SIGTERM during launches of hours); `inlineBelow`: launches of fewer scores run on
 *   the calling thread (default {@link FA2_POOL_INLINE_BELOW})
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
  options: { workers: number; callerComputes?: boolean; inlineBelow?: number },
): Fa2Pool {
  const size = options.workers;
  const callerComputes = options.callerComputes ?? true;
  const inlineBelow = options.inlineBelow ?? FA2_POOL_INLINE_BELOW;
  if (!Number.isInteger(size) || size < 1) {
    throw new RangeError(`Cannot create FA2 pool: workers must be >= 1, got ${size}`);
  }
  const group = startWorkerGroup(new URL("./fa2_worker.ts", import.meta.url), {
    count: callerComputes ? size - 1 : size,
    module: engine.module,
  });
  // Each launch's copies on recycled shared memory, given back once every thread is done.
  const arena = jobArena();
  // The engine's K-walk, and the kernel's tile softmax when it models this build and SFU (same
  // bits as the TypeScript step); a caller's own K-walk keeps the TypeScript step too.
  const ownSteps = (o: FlashAttentionOptions) => ({
    kWalk: o.kWalk ?? engine.kWalkAuto,
    tileSoftmax: o.tileSoftmax ??
      (o.kWalk === undefined ? engine.fa2TileSoftmax(o.build, o.mufu) : undefined),
  });
  const forward = async (
    inputs: AttentionInputs,
    o: FlashAttentionOptions,
  ): Promise<FlashAttentionResult> => {
    const sfu = sfuDescription(o.mufu);
    const { kWalk, tileSoftmax } = ownSteps(o);
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
      const share = _sharer(lease.alloc);
      const job = {
        plan,
        sfu,
        inputs: { q: share(inputs.q), k: share(inputs.k), v: share(inputs.v) },
        sinks: fa2Sinks(plan, lease.alloc),
        counter: int32View(lease.alloc(4), 1),
        wasmSoftmax: tileSoftmax !== undefined,
        // Whole KV heads (their query heads stacked in one tile, fewer and larger tile products)
        // when there are enough of them for every thread; else single query heads.
        byKvHead: plan.kvHeads >= size,
        batch: null,
      };
      const runner = fa2Runner(plan.build, { mufu, kWalk, tileSoftmax, kept: o.kvCache?.tiles });
      await run(job, runner);
      return fa2Result(plan, _ownSinks(job.sinks));
    } finally {
      lease.end();
    }
  };
  /**
   * Posts a job to every worker, runs the calling thread's share (when it computes) and waits
   * for all.
   */
  const run = async (job: Omit<Fa2WorkerJob, "id" | "dealt">, runner: Fa2Runner) => {
    // Launches over a kept KV cache deal their units out in turn, so every thread reads the
    // tiles it kept in the previous launch; others claim units as they go.
    const dealt = (index: number) => job.plan.kvCache === null ? null : { index, count: size };
    let worker = callerComputes ? 0 : -1;
    const done = group.post((id): Fa2WorkerJob => ({ ...job, id, dealt: dealt(++worker) }));
    let failure: unknown;
    if (callerComputes) {
      try {
        fa2Units(job.plan, { ...job, runner, dealt: dealt(0) });
      } catch (e) {
        Atomics.store(job.counter, 0, job.plan.heads);
        failure = e;
      }
    }
    // Every worker has settled: none touches the job's buffers any more.
    const results = await Promise.allSettled(done);
    if (failure !== undefined) throw failure;
    const bad = results.find((r) => r.status === "rejected");
    if (bad !== undefined) throw (bad as PromiseRejectedResult).reason;
  };
  const forwardBatch = async (
    launches: readonly Fa2BatchLaunch[],
  ): Promise<FlashAttentionResult[]> => {
    const o = launches[0]?.options;
    if (o === undefined) return flashAttentionBatch(launches); // refused there
    const sfu = sfuDescription(o.mufu);
    const { kWalk, tileSoftmax } = ownSteps(o);
    const own = { kWalk, ...(tileSoftmax === undefined ? {} : { tileSoftmax }) };
    const inline = launches.map((l) => ({ ...l, options: { ...l.options, ...own } }));
    const { plans, mufu } = checkFa2Batch(inline);
    const scores = plans.reduce((n, p) => n + fa2Scores(p), 0);
    if (group.count === 0 || sfu === undefined || o.lg2 !== undefined || scores < inlineBelow) {
      return flashAttentionBatch(inline);
    }
    const lease = arena.lease();
    try {
      // K and V once for launches that read prefixes of the same rows (a sequence's steps).
      const share = _sharer(lease.alloc);
      const prefix = _prefixSharer(launches.flatMap((l) => [l.inputs.k, l.inputs.v]), share);
      const inputs = launches.map((l) => ({
        q: share(l.inputs.q),
        k: prefix(l.inputs.k),
        v: prefix(l.inputs.v),
      }));
      const sinks = plans.map((p) => fa2Sinks(p, lease.alloc));
      const job = {
        plan: plans[0]!,
        sfu,
        inputs: inputs[0]!,
        sinks: sinks[0]!,
        counter: int32View(lease.alloc(4), 1),
        wasmSoftmax: tileSoftmax !== undefined,
        byKvHead: true,
        batch: { plans, inputs, sinks },
      };
      const runner = fa2Runner(plans[0]!.build, {
        mufu,
        kWalk,
        tileSoftmax,
        kept: o.kvCache?.tiles,
      });
      await run(job, runner);
      return plans.map((p, i) => fa2Result(p, _ownSinks(sinks[i]!)));
    } finally {
      lease.end();
    }
  };
  // `forward` takes batches too where a runner looks for them (`Fa2Forward.batch`).
  return {
    size,
    forward: Object.assign(forward, { batch: forwardBatch }),
    forwardBatch,
    close: group.close,
  };
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

/** Copies an input onto the lease's shared memory unless it lies there already. */
function _sharer(alloc: (bytes: number) => Uint8Array): (a: Uint16Array) => Uint16Array {
  return (a) => {
    if (a.buffer instanceof SharedArrayBuffer) return a;
    const room = alloc(a.byteLength);
    const c = new Uint16Array(room.buffer, room.byteOffset, a.length);
    c.set(a);
    return c;
  };
}

/**
 * Shares arrays that start at the same place of one buffer once: the longest of them, the others
 * as its prefixes (a sequence's decode steps read prefixes of its KV cache).
 */
function _prefixSharer(
  arrays: readonly Uint16Array[],
  share: (a: Uint16Array) => Uint16Array,
): (a: Uint16Array) => Uint16Array {
  const at = (a: Uint16Array) => `${a.byteOffset}`;
  const longest = new Map<ArrayBufferLike, Map<string, Uint16Array>>();
  for (const a of arrays) {
    let m = longest.get(a.buffer);
    if (m === undefined) longest.set(a.buffer, m = new Map());
    if ((m.get(at(a))?.length ?? -1) < a.length) m.set(at(a), a);
  }
  const shared = new Map<Uint16Array, Uint16Array>();
  for (const m of longest.values()) for (const a of m.values()) shared.set(a, share(a));
  return (a) => shared.get(longest.get(a.buffer)!.get(at(a))!)!.subarray(0, a.length);
}

/** Copies the filled buffers off shared memory (no worker writes into them any more). */
function _ownSinks(s: Fa2Sinks): Fa2Sinks {
  return { out: s.out.slice(), outF32: s.outF32?.slice(), lse: s.lse?.slice() };
}
