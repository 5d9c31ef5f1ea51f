/**
 * A checkpoint held in memory, opened: the bundled tiny checkpoints the simulated prover runs, and
 * the copies it falsifies (a weight bit flipped).
 *
 * @module
 */
import { bytesByteSource, type DecoderCheckpoint, openDecoderCheckpoint } from "../model/mod.ts";

/**
 * Opens a checkpoint from its files' bytes: `config.json` and the `.safetensors` weight files
 * (other files, such as an index, are not read: the weight files are the ones given).
 *
 * @param files file name -> bytes
 * @returns the checkpoint (tensors read into fresh ArrayBuffers)
 * @throws {InputError} the `CHECKPOINT_*`, `CONFIG_*` and `SAFETENSORS_*` codes of
 *   `openDecoderCheckpoint`
 * @throws {RangeError} when there is no `.safetensors` file, or a file name is not a plain one
 * @example
 * ```ts
 * import { openCheckpointBytes } from "./open_checkpoint_bytes.ts";
 * import { InputError } from "../errors.ts";
 * const config = new TextEncoder().encode('{"model_type": "qwen3"}');
 * const files = new Map([["config.json", config], ["model.safetensors", new Uint8Array(8)]]);
 * const refused = await openCheckpointBytes(files).catch((e) => e);
 * if (!(refused instanceof InputError)) throw new Error("a config without its fields: a code");
 * ```
 */
export function openCheckpointBytes(
  files: ReadonlyMap<string, Uint8Array>,
): Promise<DecoderCheckpoint> {
  return openDecoderCheckpoint(
    { open: (n) => Promise.resolve(files.has(n) ? bytesByteSource(files.get(n)!) : null) },
    { weightFiles: [...files.keys()].filter((n) => n.endsWith(".safetensors")) },
  );
}
