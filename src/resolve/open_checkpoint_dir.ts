/**
 * The one way to open a checkpoint directory on disk for a forward pass: files opened on first
 * use and read at random, tensors read onto recycled shared memory that the GEMM workers read in
 * place, a layer's buffers handed back for a later layer's weights once it is done.
 *
 * @module
 */
import { checkpointDir } from "../assets/mod.ts";
import { _openOnSharedBuffers, type OpenedCheckpoint } from "./opened_checkpoint.ts";

/**
 * Opens a checkpoint directory (`config.json` plus `model.safetensors`, or shards listed by
 * `model.safetensors.index.json`; a folder holding both is refused as ambiguous). Needs
 * `--allow-read`.
 *
 * @param dir directory path
 * @returns the opened checkpoint; close it (or declare it with `using`) when done
 * @throws {InputError} `CHECKPOINT_DIR` when the path is not a directory, and the `CHECKPOINT_*`,
 *   `CONFIG_*` and `SAFETENSORS_*` codes of `openDecoderCheckpoint` (the files closed)
 * @example
 * ```ts ignore
 * using opened = await openCheckpointDir("tables/models/qwen3-tiny-dense");
 * const norm = await opened.ckpt.tensor("model.norm.weight");
 * opened.releaseTensor(norm);
 * ```
 */
export async function openCheckpointDir(dir: string): Promise<OpenedCheckpoint> {
  const files = await checkpointDir(dir);
  return await _openOnSharedBuffers(files, { close: files.close });
}
