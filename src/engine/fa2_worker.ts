/**
 * Worker script of the FA2 pool: binds an engine to the posted GEMM kernel module once, then, for
 * each launch, rebuilds the SFU from its plain-data description and computes the query heads it
 * claims from the launch's shared counter, writing into the shared output buffers.
 *
 * @module
 */
import { createSfu, type SfuDescription } from "../hardware/mod.ts";
import {
  type AttentionInputs,
  fa2Head,
  type Fa2Plan,
  fa2Runner,
  type Fa2Sinks,
} from "../kernels/mod.ts";
import { formatByName } from "../numerics/mod.ts";
import { engineFromModule } from "./gemm_engine.ts";
import { serveWorkerJobs } from "./worker_group.ts";

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
  /** Next unclaimed head (Int32 on a SharedArrayBuffer). */
  readonly counter: Int32Array;
  /** Whether to run the tile softmax on the kernel (when it models the build and SFU). */
  readonly wasmSoftmax: boolean;
}

serveWorkerJobs(engineFromModule, (engine, job: Fa2WorkerJob) => {
  try {
    // Structured cloning copies the format descriptors; the datapath needs the interned ones.
    const dp = job.plan.dp;
    const plan: Fa2Plan = {
      ...job.plan,
      dp: {
        ...dp,
        input: formatByName(dp.input.name),
        output: formatByName(dp.output.name),
        resultFormat: formatByName(dp.resultFormat.name),
      },
    };
    const mufu = createSfu(job.sfu);
    const runner = fa2Runner(plan.build, {
      mufu,
      kWalk: engine.kWalkAuto,
      tileSoftmax: job.wasmSoftmax ? engine.fa2TileSoftmax(plan.build, mufu) : undefined,
    });
    const { inputs, sinks } = job;
    for (
      let h = Atomics.add(job.counter, 0, 1);
      h < plan.heads;
      h = Atomics.add(job.counter, 0, 1)
    ) {
      fa2Head(plan, { runner, inputs, h, sinks });
    }
  } catch (err) {
    Atomics.store(job.counter, 0, job.plan.heads); // stop the other threads claiming
    throw err;
  }
});
