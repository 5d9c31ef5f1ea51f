/**
 * Worker script of the GEMM pool: instantiates the posted kernel module once, then walks the
 * column chunks it claims from each job's shared counter (see `pool_job.ts`), writing straight
 * into the shared accumulator buffer.
 *
 * @module
 */
import { type PoolJob, walkPoolJob } from "./pool_job.ts";
import { instantiateKernel } from "./wasm_kernel.ts";
import { serveWorkerJobs } from "./worker_group.ts";

serveWorkerJobs(instantiateKernel, (kernel, job: PoolJob) => {
  walkPoolJob(kernel, job);
});
