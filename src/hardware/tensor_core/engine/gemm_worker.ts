/**
 * Worker script of the GEMM pool: instantiates the posted kernel module once, then walks the
 * column ranges it is sent, writing straight into the shared accumulator buffer.
 *
 * @module
 */
import { instantiateKernel, type KernelParams, type WasmKernel } from "./wasm_kernel.ts";

/** A job message: gathered operands on SharedArrayBuffers and a column range. */
export interface PoolJob {
  /** Job id echoed in the reply. */
  readonly id: number;
  /** Kernel parameters. */
  readonly params: KernelParams;
  /** Gathered A [m][kp], B [n][kp] and accumulators C [m][n] (shared). */
  readonly a: Uint16Array;
  readonly b: Uint16Array;
  readonly c: Uint32Array;
  /** Shape. */
  readonly m: number;
  readonly n: number;
  readonly kp: number;
  /** Columns to walk. */
  readonly j0: number;
  readonly j1: number;
}

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
    kernel.walkColumns(job.params, job, { j0: job.j0, j1: job.j1 });
    scope.postMessage({ id: job.id, ok: true });
  } catch (err) {
    scope.postMessage({ id: job.id, ok: false, error: String(err) });
  }
};
