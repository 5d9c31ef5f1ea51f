/**
 * Worker script of the GEMM pool: instantiates the posted kernel module once, then walks the
 * column chunks it claims from each job's shared counter (see `pool_job.ts`), writing straight
 * into the shared accumulator buffer, and replies with the number of chunks it walked.
 *
 * @module
 */
import { type PoolJob, walkPoolJob } from "./pool_job.ts";
import { instantiateKernel, type WasmKernel } from "./wasm_kernel.ts";

let kernel: WasmKernel | undefined;
const scope = self as unknown as {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(v: unknown): void;
};

scope.onmessage = (e: MessageEvent) => {
  const msg = e.data as { module?: WebAssembly.Module; job?: PoolJob };
  if (msg.module !== undefined) {
    kernel = instantiateKernel(msg.module);
    return;
  }
  const job = msg.job as PoolJob;
  try {
    if (kernel === undefined) throw new Error("Cannot run GEMM job: no kernel module received");
    scope.postMessage({ id: job.id, ok: true, chunks: walkPoolJob(kernel, job) });
  } catch (err) {
    scope.postMessage({ id: job.id, ok: false, error: String(err) });
  }
};
