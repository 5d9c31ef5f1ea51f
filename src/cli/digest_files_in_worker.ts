/**
 * Hashes a checkpoint's weight files on a worker thread, so that the digest runs while the
 * forward computes instead of after it (the bytes are read a second time, as before, but the
 * reads and the hashing leave the calling thread free). The worker may only read the directory.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { checkWorkerScript, workerRefusal } from "../engine/mod.ts";

/** A digest running on a worker: its result, and a way to stop it early. */
export interface PendingDigest {
  /**
   * SHA-256 hex of each file, by name; rejects with `InputError` `CHECKPOINT_DIGEST`, or with
   * `Deno.errors.NotCapable` when the runtime refused the worker a permission (its script or an
   * import this process may not read: the reader's set-up, not the checkpoint's fault).
   */
  readonly files: Promise<Record<string, string>>;
  /** Stops the worker if it still runs (then `files` rejects); safe to call twice. */
  [Symbol.dispose](): void;
}

/**
 * Starts hashing `names` (plain file names) in `dir`.
 *
 * @param dir the checkpoint directory
 * @param names weight file names, in the order to hash them
 * @returns the pending digest (dispose it on every path: `using`)
 * @throws {Deno.errors.NotCapable} when this process may not read the worker script
 * @example
 * ```ts ignore
 * using digest = digestFilesInWorker(dir, ckpt.files);
 * // ... run the forward ...
 * const files = await digest.files;
 * ```
 */
export function digestFilesInWorker(dir: string, names: readonly string[]): PendingDigest {
  const script = new URL("./file_digest_worker.ts", import.meta.url);
  checkWorkerScript(script);
  const worker = new Worker(script, {
    type: "module",
    deno: { permissions: { read: [dir], write: false, net: false, env: false, run: false } },
  });
  let fail: (why: string) => void = () => {};
  const files = new Promise<Record<string, string>>((resolve, reject) => {
    fail = (why) =>
      reject(new InputError("CHECKPOINT_DIGEST", `Cannot hash the weight files: ${why}`));
    worker.onmessage = (e: MessageEvent) => {
      const r = e.data as { files?: Record<string, string>; error?: string };
      if (r.files !== undefined) resolve(r.files);
      else fail(r.error ?? "the worker gave no answer");
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      // The runtime refused to load the worker (an import this process may not read).
      const refusal = workerRefusal(e.message);
      if (refusal === null) fail(e.message);
      else reject(refusal);
    };
    worker.postMessage({ dir, names: [...names] });
  });
  files.catch(() => {}).finally(() => worker.terminate()); // awaited by the caller
  return {
    files,
    [Symbol.dispose]: () => {
      worker.terminate();
      fail("stopped before it finished");
    },
  };
}
