/**
 * The checker page's worker (bundled into `tables/web/checker.js` by `deno task page:build`, and
 * started by the page from that text): takes one {@link CheckFiles} message, posts the claim
 * log's progress and then the {@link CheckView}. The page starts a worker for each check and ends
 * it when the check is done or no longer wanted.
 *
 * @module
 */
import { type CheckFiles, checkFiles, type CheckMessage } from "./check_files.ts";

/** The part of a dedicated worker's global scope used here. */
interface _WorkerScope {
  onmessage: ((e: MessageEvent<CheckFiles>) => void) | null;
  postMessage(message: CheckMessage): void;
}

const scope = globalThis as unknown as _WorkerScope;
scope.onmessage = async (e) => {
  scope.onmessage = null; // one check per worker
  const view = await checkFiles(e.data, {
    progress: (done, total) => scope.postMessage({ kind: "progress", done, total }),
  });
  scope.postMessage({ kind: "view", view });
};
