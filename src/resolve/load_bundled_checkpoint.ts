/**
 * A bundled checkpoint (`tables/models/<dir>`): its files read through the asset store (length
 * and SHA-256 checked against the manifest, each read recorded) and opened in memory.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { DecoderCheckpoint } from "../model/mod.ts";
import { openCheckpointBytes } from "./open_checkpoint_bytes.ts";

/** A bundled checkpoint: its files and the opened checkpoint. */
export interface BundledCheckpoint {
  /** File name -> bytes: `config.json` and the `.safetensors` weight files, in manifest order. */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** The opened checkpoint. */
  readonly ckpt: DecoderCheckpoint;
}

/**
 * Loads a bundled checkpoint directory from the asset store.
 *
 * @param store the asset store
 * @param path the directory's asset path (e.g. `tables/models/qwen3-tiny-dense`)
 * @returns the checkpoint, or null when the manifest lists no `config.json` directly under `path`
 * @throws {AssetError} when a file is missing or fails its length or digest
 * @throws {InputError} the `CHECKPOINT_*`, `CONFIG_*` and `SAFETENSORS_*` codes of
 *   `openDecoderCheckpoint`
 * @example
 * ```ts
 * import { openAssetStore } from "../assets/mod.ts";
 * import { loadBundledCheckpoint } from "./load_bundled_checkpoint.ts";
 * const store = await openAssetStore();
 * const m = await loadBundledCheckpoint(store, "tables/models/qwen3-tiny-dense");
 * if (m === null || m.ckpt.config.modelType !== "qwen3" || !m.files.has("config.json")) {
 *   throw new Error();
 * }
 * if (await loadBundledCheckpoint(store, "tables/models/none") !== null) throw new Error();
 * ```
 */
export async function loadBundledCheckpoint(
  store: AssetStore,
  path: string,
): Promise<BundledCheckpoint | null> {
  const names = Object.keys(store.manifest.assets)
    .filter((p) => p.startsWith(`${path}/`) && !p.slice(path.length + 1).includes("/"))
    .map((p) => p.slice(path.length + 1));
  if (!names.includes("config.json")) return null;
  const files = new Map<string, Uint8Array>();
  for (const name of names) {
    if (name !== "config.json" && !name.endsWith(".safetensors")) continue;
    files.set(name, await store.read(`${path}/${name}`));
  }
  return { files, ckpt: await openCheckpointBytes(files) };
}
