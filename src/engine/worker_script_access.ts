/**
 * Whether this process may start a worker from a script: Deno loads a worker's script (and its
 * imports) with the starting process's read permission, and a script it may not read stops the
 * worker with an uncaught error, which would read as a bug of the pool. The script is checked
 * before any worker starts, and a worker that still stops on a refused permission is reported as
 * the permission it lacks ({@link Deno.errors.NotCapable}, the CLI's PERMISSION error).
 *
 * @module
 */

/** How Deno words a permission it refused: "Requires read access to "<path>", run again ...". */
const _REFUSAL = /^Requires \w+ access to /;

/**
 * Checks that this process may read a worker script (a `file:` URL; other URLs are left to the
 * runtime), asking as the runtime would where it may prompt.
 *
 * @param url the worker script
 * @throws {Deno.errors.NotCapable} naming the script and the flag that grants it
 * @example
 * ```ts ignore
 * checkWorkerScript(new URL("./gemm_worker.ts", import.meta.url));
 * ```
 */
export function checkWorkerScript(url: URL): void {
  if (url.protocol !== "file:") return;
  const path = decodeURIComponent(url.pathname);
  const descriptor = { name: "read", path } as const;
  let state = Deno.permissions.querySync(descriptor).state;
  if (state === "prompt") state = Deno.permissions.requestSync(descriptor).state;
  if (state !== "granted") {
    throw new Deno.errors.NotCapable(
      `Requires read access to "${path}" (a worker script), run again with the --allow-read flag`,
    );
  }
}

/**
 * The error a worker's error event stands for when the runtime refused it a permission (a
 * script or one of its imports it may not read): that permission, as
 * {@link Deno.errors.NotCapable}; otherwise `null`.
 *
 * @param message the error event's message
 * @returns the permission error, or `null` for any other failure
 * @example
 * ```ts
 * import { workerRefusal } from "./worker_script_access.ts";
 * const e = workerRefusal('Requires read access to "/x.ts", run again with the --allow-read flag');
 * if (!(e instanceof Deno.errors.NotCapable) || workerRefusal("boom") !== null) throw new Error();
 * ```
 */
export function workerRefusal(message: string): Deno.errors.NotCapable | null {
  return _REFUSAL.test(message) ? new Deno.errors.NotCapable(message.split("\n")[0]) : null;
}
