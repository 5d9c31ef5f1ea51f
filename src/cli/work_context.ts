/**
 * The recomputation context of every command that works on audit items (`audit`, `audit work`,
 * `worker`): the hash-checked asset store, the blob store, and the K-walk engine on a pool.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { type AssetStore, type BlobStore, openAssetStore, openBlobStore } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { createGemmWalker } from "../engine/mod.ts";
import { ioCause } from "../io_cause.ts";
import { nativeSha256 } from "./native_sha256.ts";
import { loadGemmEngine } from "../resolve/mod.ts";
import type { WorkContext } from "../verify/mod.ts";
import { parseThreads } from "./parse_int_option.ts";

/**
 * Opens the work context.
 *
 * @param options `blobs` folder (tensors by sha256), `threads` flag (default all cores), the
 *   install's asset `store` when the command opened it already (default: opened here)
 * @returns the context and its release function
 * @throws {AssetError} when the engine module is missing or tampered with; {InputError}
 *   `USAGE_NUMBER` for a bad thread count, `INPUT_MISSING` for a blob folder that is not there
 * @example
 * ```ts ignore
 * const { ctx, close } = await openWorkContext({ blobs: "log/blobs" });
 * ```
 */
export async function openWorkContext(
  options: { blobs: string; threads?: string | undefined; store?: AssetStore },
): Promise<{ ctx: WorkContext; close: () => void }> {
  const threads = options.threads === undefined ? undefined : parseThreads(options.threads);
  const store = options.store ?? await openAssetStore();
  const blobs = await openBlobFolder(options.blobs); // refused before any worker starts
  // The calling thread runs the operators between GEMMs while the workers walk (model records).
  const w = createGemmWalker(await loadGemmEngine(store), {
    callerWalks: false,
    ...(threads === undefined ? {} : { threads }),
  });
  const ctx = {
    store,
    blobs,
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
  return join(dirname(log), "blobs");
}

/**
 * Opens the blob folder an audit reads committed tensors and checkpoints from, which must exist:
 * a blob missing from it is the prover's failure (a FAIL), so a mistyped or absent folder would
 * sign a verdict against an honest prover.
 *
 * @param dir the folder (`--blobs`, or `blobs/` beside the log)
 * @returns the blob store, hashing with the runtime's native SHA-256
 * @throws {InputError} `INPUT_MISSING` when the folder does not exist or is not a folder
 * @example
 * ```ts ignore
 * const blobs = await openBlobFolder("log/blobs");
 * ```
 */
export async function openBlobFolder(dir: string): Promise<BlobStore> {
  let info: Deno.FileInfo | null = null;
  let why = "no such folder";
  try {
    info = await Deno.stat(dir);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) throw e;
    // Any other way the path cannot be reached (a link loop) is the caller's missing folder.
    if (!(e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory)) {
      why = ioCause(e);
    }
  }
  if (info === null || !info.isDirectory) {
    throw new InputError(
      "INPUT_MISSING",
      `Cannot read blobs from '${dir}': ${info === null ? why : "not a folder"} ` +
        "(committed tensors and checkpoints are read from it: give the prover's blob folder " +
        "with --blobs)",
    );
  }
  return openBlobStore(dir, { hasher: nativeSha256 });
}
