/**
 * The work units of an FA2 launch shared by threads: a launch as posted to pool workers, and the
 * loop with which every thread claims units from its shared counter (whole KV heads, their query
 * heads stacked in one tile, or single query heads) until none is left. Units write disjoint
 * entries of the shared sinks, so the bits do not depend on who computes which.
 *
 * @module
 */
import type { SfuDescription } from "../hardware/mod.ts";
import {
  type AttentionInputs,
  fa2Head,
  fa2KvGroup,
  fa2KvGroupBatch,
  type Fa2Plan,
  type Fa2Runner,
  type Fa2Sinks,
} from "../kernels/mod.ts";

/** A launch as posted to a worker: plain data and shared buffers only. */
export interface Fa2WorkerJob {
  /** Job id echoed in the reply. */
  readonly id: number;
  /** Every decision of the launch. */
  readonly plan: Fa2Plan;
  /** The SFU to rebuild (`createSfu(sfu)`). */
  readonly sfu: SfuDescription;
  /** Q, K, V (on shared memory). */
  readonly inputs: AttentionInputs;
  /** The output buffers (on shared memory). */
  readonly sinks: Fa2Sinks;
  /** Next unclaimed unit (Int32 on a SharedArrayBuffer). */
  readonly counter: Int32Array;
  /** Whether to run the tile softmax on the kernel (when it models the build and SFU). */
  readonly wasmSoftmax: boolean;
  /** Whether a unit is a whole KV head (`fa2KvGroup`) rather than one query head (`fa2Head`). */
  readonly byKvHead: boolean;
  /**
   * Units dealt out in turn rather than claimed (a launch that keeps KV tiles across launches:
   * each thread sees the same KV heads every launch, so its kept tiles are the ones it reads):
   * this thread's index among `count` (the calling thread 0, the workers 1 ..), or null.
   */
  readonly dealt: { readonly index: number; readonly count: number } | null;
  /**
   * A batch of launches over one KV cache (`fa2KvGroupBatch`: units are KV heads, each for every
   * launch), or null for the one launch of `plan`, `inputs` and `sinks`.
   */
  readonly batch: Fa2WorkerBatch | null;
}

/** The launches of a batch job: plans, inputs (on shared memory) and sinks, per launch. */
export interface Fa2WorkerBatch {
  /** Each launch's plan. */
  readonly plans: readonly Fa2Plan[];
  /** Each launch's Q, K and V (on shared memory). */
  readonly inputs: readonly AttentionInputs[];
  /** Each launch's output buffers (on shared memory). */
  readonly sinks: readonly Fa2Sinks[];
}

/**
 * Claims and computes units of a launch until none is left (or, when `dealt`, computes every
 * `count`-th unit from its `index`).
 *
 * @param plan the launch's plan (with interned formats on a worker)
 * @param work the thread's runner, the shared inputs, sinks and counter, and the unit kind
 * @example
 * ```ts ignore
 * fa2Units(plan, { ...job, runner }); // on every thread sharing job.counter
 * ```
 */
export function fa2Units(
  plan: Fa2Plan,
  work: Pick<Fa2WorkerJob, "inputs" | "sinks" | "counter" | "byKvHead" | "dealt" | "batch"> & {
    readonly runner: Fa2Runner;
  },
): void {
  const { runner, inputs, sinks, counter, dealt, batch } = work;
  const units = work.byKvHead || batch !== null ? plan.kvHeads : plan.heads;
  const next = (u: number) =>
    dealt === null ? Atomics.add(counter, 0, 1) : Atomics.load(counter, 0) >= units
      ? units // another thread failed: stop
      : u + dealt.count;
  const start = dealt === null ? Atomics.add(counter, 0, 1) : dealt.index;
  for (let u = start; u < units; u = next(u)) {
    if (batch !== null) {
      fa2KvGroupBatch(batch.plans, { runner, inputs: batch.inputs, kvh: u, sinks: batch.sinks });
    } else if (work.byKvHead) fa2KvGroup(plan, { runner, inputs, kvh: u, sinks });
    else fa2Head(plan, { runner, inputs, h: u, sinks });
  }
}
