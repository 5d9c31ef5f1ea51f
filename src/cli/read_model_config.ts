/**
 * Reads a Hugging Face `config.json` for the model commands.
 *
 * @module
 */
import { readAtMost } from "../read_at_most.ts";
import { InputError } from "../errors.ts";
import { type DecoderConfig, parseCheckpointJson, parseDecoderConfig } from "../model/mod.ts";

/** Largest config.json accepted (bytes). */
export const MAX_CONFIG_BYTES = 16 << 20;

/**
 * Reads and validates a Qwen3 `config.json`. HF configs hold floats (`rms_norm_eps`,
 * `rope_theta`), which the strict claim JSON reader refuses: a plain parse of fatal UTF-8, then
 * the config's own strict field checks.
 *
 * @param path the file
 * @returns the validated config and the file's bytes
 * @throws {InputError} `CONFIG_READ` (missing, over 16 MiB, not UTF-8 JSON) and the config's
 *   `CONFIG_*` codes
 * @example
 * ```ts ignore
 * const { config } = await readModelConfig("tables/models/qwen3-tiny-dense/config.json");
 * ```
 */
export async function readModelConfig(
  path: string,
): Promise<{ config: DecoderConfig; bytes: Uint8Array }> {
  const unreadable = (e: unknown): never => {
    throw new InputError("CONFIG_READ", `Cannot read '${path}': ${(e as Error).name}`);
  };
  const info = await Deno.stat(path).catch(unreadable);
  if (!info.isFile || info.size > MAX_CONFIG_BYTES) {
    throw new InputError("CONFIG_READ", `Cannot read '${path}': not a file of at most 16 MiB`);
  }
  const bytes = await readAtMost(path, MAX_CONFIG_BYTES).catch(unreadable);
  if (bytes === null) {
    throw new InputError("CONFIG_READ", `Cannot read '${path}': more than 16 MiB`);
  }
  // As the checkpoint reader (and Python) reads it: what it refuses, no command accepts.
  let json: unknown;
  try {
    json = parseCheckpointJson(bytes, "config.json");
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(
      "CONFIG_READ",
      `Cannot read '${path}': ${e.message.replace(/^.*?: /, "")}`,
    );
  }
  return { config: parseDecoderConfig(json), bytes };
}
