/**
 * Worker script of {@link digestFilesInWorker}: hashes whole files with the runtime's native
 * SHA-256, 16 MiB at a time, and answers `{ files: { name: hex } }` or `{ error }` (one line).
 * It is started with read access to the checkpoint directory only.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** Bytes read per step. */
const CHUNK = 16 << 20;

const scope = self as unknown as {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(v: unknown): void;
};

scope.onmessage = async (e: MessageEvent) => {
  const { dir, names } = e.data as { dir: string; names: string[] };
  try {
    const files: Record<string, string> = {};
    const buf = new Uint8Array(CHUNK);
    for (const name of names) {
      using f = await Deno.open(`${dir}/${name}`, { read: true });
      const h = createHash("sha256");
      for (;;) {
        const n = await f.read(buf);
        if (n === null) break;
        h.update(buf.subarray(0, n));
      }
      files[name] = h.digest("hex");
    }
    scope.postMessage({ files });
  } catch (err) {
    scope.postMessage({ error: String(err instanceof Error ? err.message : err).split("\n")[0] });
  }
};
