/**
 * The message plumbing shared by the thread pools: module workers that each receive the compiled
 * kernel module once, then one job message per launch, and reply `{id, ok, error?}`. A worker that
 * dies (its script fails, or an uncaught error) fails every launch it was part of and every later
 * one, so a caller never waits on a thread that will not answer.
 *
 * @module
 */
import { HostResourceError, isHostResourceError } from "../errors.ts";
import { checkWorkerScript, workerRefusal } from "./worker_script_access.ts";

/** Reply of a worker to a job. */
export interface WorkerReply {
  /** The job this reply answers. */
  readonly id: number;
  /** Whether the job ran. */
  readonly ok: boolean;
  /** The first line of the failure, when it did not. */
  readonly error?: string;
  /** Whether the failure was the host out of memory (`isHostResourceError`), not a bug. */
  readonly resource?: boolean;
}

/** Workers started by {@link startWorkerGroup}. */
export interface WorkerGroup {
  /** Number of workers. */
  readonly count: number;
  /**
   * Posts one job to every worker (`job(id)` builds it around a fresh id) and returns one promise
   * per worker: resolved on an `ok` reply, rejected on a failed reply, a dead worker or `close()`.
   */
  post(job: (id: number) => { readonly id: number }): Promise<void>[];
  /** Terminates every worker and rejects what is still waiting. */
  close(): void;
}

/**
 * Starts `count` module workers from `url` and posts `module` to each.
 *
 * @param url the worker script (it must answer each `{job}` message with a {@link WorkerReply})
 * @param options `count` (>= 0) and the compiled kernel `module`
 * @returns the group
 * @throws {Deno.errors.NotCapable} when this process may not read the script (checked before any
 *   worker starts); a worker stopped by a permission its script's imports lack rejects its launches
 *   with it too
 * @example
 * ```ts ignore
 * const group = startWorkerGroup(new URL("./gemm_worker.ts", import.meta.url), { count: 1, module });
 * await Promise.all(group.post((id) => ({ ...job, id })));
 * group.close();
 * ```
 */
export function startWorkerGroup(
  url: URL,
  options: { count: number; module: WebAssembly.Module },
): WorkerGroup {
  type Waiter = { worker: Worker; resolve: () => void; reject: (e: Error) => void };
  const waiting = new Map<number, Waiter>();
  let dead: string | undefined;
  // A worker the runtime refused a permission stands for that permission, not for a bug.
  const error = (why: string): Error => workerRefusal(why) ?? new Error(why);
  const fail = (why: string, only?: Worker) => {
    for (const [id, w] of waiting) {
      if (only !== undefined && w.worker !== only) continue;
      waiting.delete(id);
      w.reject(error(why));
    }
  };
  if (options.count > 0) checkWorkerScript(url);
  const workers = Array.from({ length: options.count }, () => {
    // Sandboxed: the worker gets no permission at all (no file, network, environment,
    // subprocess or FFI access); it receives bytes and plain-data plans by message and returns
    // bytes, so prover-chosen input cannot reach anything through a worker.
    const w = new Worker(url, { type: "module", deno: { permissions: "none" } });
    w.onmessage = (e: MessageEvent) => {
      const r = e.data as WorkerReply;
      const p = waiting.get(r.id);
      waiting.delete(r.id);
      if (r.ok) p?.resolve();
      else {
        const why = r.error ?? "worker failed";
        // The thread's allocation failure stays one on this side (the CLI's MEMORY, not a bug).
        p?.reject(
          r.resource === true
            ? new HostResourceError(`Cannot run a pool job: ${why}`)
            : new Error(why),
        );
      }
    };
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      // Deno's own words for a refused permission are kept as they are (they name the flag).
      dead = workerRefusal(e.message) === null
        ? `Cannot run the pool: a worker stopped (${e.message})`
        : e.message;
      fail(dead, w);
    };
    w.postMessage({ module: options.module });
    return w;
  });
  let nextId = 0;
  return {
    count: workers.length,
    post: (job) =>
      workers.map((worker) => {
        if (dead !== undefined) return Promise.reject(error(dead));
        const message = job(nextId++);
        const settled = new Promise<void>((resolve, reject) =>
          waiting.set(message.id, { worker, resolve, reject })
        );
        worker.postMessage({ job: message });
        return settled;
      }),
    close: () => {
      for (const w of workers) w.terminate();
      dead ??= "Cannot run the pool: it was closed";
      fail(dead);
    },
  };
}

/**
 * The worker side of a {@link WorkerGroup}: builds its state from the posted kernel module once,
 * then answers each `{job}` message with a {@link WorkerReply} (`ok: false` with the error's text
 * when `run` throws). Call it once at the top of a worker script.
 *
 * @param setup builds the worker's state from the compiled kernel module
 * @param run computes one job (its `id` is answered for it)
 * @example
 * ```ts ignore
 * serveWorkerJobs(instantiateKernel, (kernel, job: PoolJob) => walkPoolJob(kernel, job));
 * ```
 */
export function serveWorkerJobs<S, J extends { readonly id: number }>(
  setup: (module: WebAssembly.Module) => S,
  run: (state: S, job: J) => void,
): void {
  const scope = self as unknown as {
    onmessage: ((e: MessageEvent) => void) | null;
    postMessage(v: WorkerReply): void;
  };
  let state: { value: S } | undefined;
  scope.onmessage = (e: MessageEvent) => {
    const msg = e.data as { module?: WebAssembly.Module; job?: J };
    if (msg.module !== undefined) {
      state = { value: setup(msg.module) };
      return;
    }
    const job = msg.job as J;
    try {
      if (state === undefined) throw new Error("Cannot run a pool job: no kernel module received");
      run(state.value, job);
      scope.postMessage({ id: job.id, ok: true });
    } catch (err) {
      const reply: WorkerReply = {
        id: job.id,
        ok: false,
        error: String(err),
        resource: isHostResourceError(err),
      };
      scope.postMessage(reply);
    }
  };
}
