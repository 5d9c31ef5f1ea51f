/**
 * Opening a checkpoint whose files live under other names than their own (a prover's staged
 * copies, stored by digest): each checkpoint file name maps to a path, and only the named weight
 * files count.
 *
 * @module
 */
import { fileByteSource } from "../assets/mod.ts";
import { _openOnSharedBuffers, type OpenedCheckpoint } from "./opened_checkpoint.ts";

/**
 * Opens a checkpoint from files at given paths, onto shared memory.
 *
 * @param paths checkpoint file name (`config.json`, weight files, an index) -> path
 * @param o the weight files (names among `paths`' keys)
 * @returns the opened checkpoint; `close` closes every file it opened
 * @throws whatever `openDecoderCheckpoint` throws (`CHECKPOINT_*`, `SAFETENSORS_*`, `CONFIG_*`),
 *   after closing what it opened
 * @example
 * ```ts ignore
 * using opened = await openCheckpointPaths(new Map([["config.json", "blobs/ab12..."]]), {
 *   weightFiles: ["model.safetensors"],
 * });
 * ```
 */
export async function openCheckpointPaths(
  paths: ReadonlyMap<string, string>,
  o: { readonly weightFiles: readonly string[] },
): Promise<OpenedCheckpoint> {
  const opened: { close(): void }[] = [];
  const close = () => {
    for (const f of opened.splice(0)) f.close();
  };
  return await _openOnSharedBuffers({
    open: async (name) => {
      const path = paths.get(name);
      if (path === undefined) return null;
      const f = await fileByteSource(path);
      opened.push(f);
      return f;
    },
  }, { weightFiles: o.weightFiles, close });
}
