/**
 * Worker script of the FA2 pool: instantiates the posted GEMM kernel module once, then, for each
 * launch, recreates the SFU from its options and computes the query heads it claims from the
 * launch's shared counter, writing into the shared output buffers.
 *
 * @module
 */
import {
  createSfu,
  type CreateSfuOptions,
  engineFromModule,
  serveWorkerJobs,
} from "../../hardware/mod.ts";
import { formatByName } from "../../numerics/mod.ts";
import { _fa2Head, type _Fa2Plan, _fa2Runner, type _Fa2Sinks } from "./_fa2_plan.ts";
import type { AttentionInputs } from "./flash_attention_forward.ts";

/** A launch as posted to a worker. */
export interface _Fa2WorkerJob {
  readonly id: number;
  readonly plan: _Fa2Plan;
  readonly sfu: CreateSfuOptions;
  readonly inputs: AttentionInputs;
  readonly sinks: _Fa2Sinks;
  /** Next unclaimed head (Int32 on a SharedArrayBuffer). */
  readonly counter: Int32Array;
}

serveWorkerJobs(engineFromModule, (engine, job: _Fa2WorkerJob) => {
  try {
    // Structured cloning copies the format descriptors; the datapath needs the interned ones.
    const dp = job.plan.dp;
    const plan: _Fa2Plan = {
      ...job.plan,
      dp: {
        ...dp,
        input: formatByName(dp.input.name),
        output: formatByName(dp.output.name),
        resultFormat: formatByName(dp.resultFormat.name),
      },
    };
    const runner = _fa2Runner(plan.build, createSfu(job.sfu), engine.kWalkAuto);
    for (
      let h = Atomics.add(job.counter, 0, 1);
      h < plan.heads;
      h = Atomics.add(job.counter, 0, 1)
    ) {
      _fa2Head(plan, runner, job.inputs, h, job.sinks);
    }
  } catch (err) {
    Atomics.store(job.counter, 0, job.plan.heads); // stop the other threads claiming
    throw err;
  }
});
