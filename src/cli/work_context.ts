/**
 * The recomputation context of every command that works on audit items (`audit`, `audit work`,
 * `worker`): the hash-checked asset store, the blob store, and the K-walk engine on a pool.
 *
 * @module
 */
import { openAssetStore, openBlobStore } from "../assets/mod.ts";
import { createGemmWalker } from "../engine/mod.ts";
import { nativeSha256 } from "./native_sha256.ts";
import { loadGemmEngine } from "../resolve/mod.ts";
import type { WorkContext } from "../verify/mod.ts";
import { intFlag } from "./plan_inputs.ts";

/**
 * Opens the work context.
 *
 * @param options `blobs` folder (tensors by sha256), `threads` flag (default all cores)
 * @returns the context and its release function
 * @throws {AssetError} when the engine module is missing or tampered with; {InputError}
 *   `USAGE_NUMBER` for a bad thread count
 * @example
 * ```ts ignore
 * const { ctx, close } = await openWorkContext({ blobs: "log/blobs" });
 * ```
 */
export async function openWorkContext(
  options: { blobs: string; threads?: string | undefined },
): Promise<{ ctx: WorkContext; close: () => void }> {
  const threads = options.threads === undefined
    ? undefined
    : intFlag(options.threads, { flag: "--threads", min: 1 });
  const store = await openAssetStore();
  // The calling thread runs the operators between GEMMs while the workers walk (model records).
  const w = createGemmWalker(await loadGemmEngine(store), {
    callerWalks: false,
    ...(threads === undefined ? {} : { threads }),
  });
  const ctx = {
    store,
    blobs: openBlobStore(options.blobs, { hasher: nativeSha256 }),
    walker: w.walker,
    attention: w.attention,
    engine: w.engine,
    threads: w.threads,
  };
  return { ctx, close: w.close };
}

/**
 * The default blob folder of a log: `blobs/` beside it.
 *
 * @param log path of claims.jsonl
 * @returns the folder
 * @example
 * ```ts
 * import { blobsBeside } from "./work_context.ts";
 * if (blobsBeside("a/claims.jsonl") !== "a/blobs") throw new Error();
 * ```
 */
export function blobsBeside(log: string): string {
  return `${log.replace(/[^/]*$/, "").replace(/\/$/, "") || "."}/blobs`;
}
