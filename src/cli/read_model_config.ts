/**
 * Reads a Hugging Face `config.json` for the model commands.
 *
 * @module
 */
import { readAtMost } from "../read_at_most.ts";
import { InputError } from "../errors.ts";
import { openCause } from "../io_cause.ts";
import {
  type DecoderConfig,
  MAX_CONFIG_JSON_BYTES,
  parseCheckpointJson,
  parseDecoderConfig,
} from "../model/mod.ts";

/**
 * Largest config.json accepted (bytes): the checkpoint reader's own limit
 * (`MAX_CONFIG_JSON_BYTES`, 1 MiB), so that `model synth` writes no checkpoint its reader refuses.
 */
export const MAX_CONFIG_BYTES = MAX_CONFIG_JSON_BYTES;

/**
 * Reads and validates a Qwen3 `config.json`. HF configs hold floats (`rms_norm_eps`,
 * `rope_theta`), which the strict claim JSON reader refuses: a plain parse of fatal UTF-8, then
 * the config's own strict field checks.
 *
 * @param path the file
 * @param o `unmodelled: "read"` keeps values not modelled that the stacks build a model of (see
 *   `parseDecoderConfig`), for a stack's own refusal of them
 * @returns the validated config and the file's bytes
 * @throws {InputError} `CONFIG_READ` (missing, over 1 MiB, not UTF-8 JSON) and the config's
 *   `CONFIG_*` codes
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to it
 * @example
 * ```ts ignore
 * const { config } = await readModelConfig("tables/models/qwen3-tiny-dense/config.json");
 * ```
 */
export async function readModelConfig(
  path: string,
  o: { readonly unmodelled?: "read" } = {},
): Promise<{ config: DecoderConfig; bytes: Uint8Array }> {
  const unreadable = (e: unknown): never => {
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("CONFIG_READ", `Cannot read '${path}': ${openCause(e)}`);
  };
  const info = await Deno.stat(path).catch(unreadable);
  if (!info.isFile || info.size > MAX_CONFIG_BYTES) {
    throw new InputError(
      "CONFIG_READ",
      `Cannot read '${path}': not a file of at most ${MAX_CONFIG_BYTES} bytes (the checkpoint ` +
        "reader's limit)",
    );
  }
  const bytes = await readAtMost(path, MAX_CONFIG_BYTES).catch(unreadable);
  if (bytes === null) {
    throw new InputError(
      "CONFIG_READ",
      `Cannot read '${path}': more than ${MAX_CONFIG_BYTES} bytes`,
    );
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
  return { config: parseDecoderConfig(json, o), bytes };
}
