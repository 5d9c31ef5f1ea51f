/**
 * A checkpoint's JSON files (`config.json`, the shard index) read as Python's `json` reads them,
 * which is what HF Transformers (and so the prover) saw.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import { _markWrittenAsFloat } from "./_config_values.ts";

/**
 * Parses a checkpoint JSON file: a byte-order mark is refused (Python refuses it), and each
 * number written as a fraction or with an exponent is marked, so that an integer field written
 * `256.0` is refused when read (Python reads a float, which HF cannot use as a size).
 *
 * @param bytes the file's bytes
 * @param what the file's name, for the message
 * @returns the parsed value
 * @throws {InputError} `CHECKPOINT_JSON`
 * @example
 * ```ts
 * import { parseCheckpointJson } from "./parse_checkpoint_json.ts";
 * const v = parseCheckpointJson(new TextEncoder().encode('{"a": 1}'), "config.json");
 * if ((v as { a: number }).a !== 1) throw new Error();
 * ```
 */
export function parseCheckpointJson(bytes: Uint8Array, what: string): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw _bad(`${what} is not valid UTF-8`);
  }
  if (text.startsWith("\ufeff")) {
    throw _bad(`${what} starts with a byte-order mark (Python's json refuses it)`);
  }
  try {
    return JSON.parse(text, function (this: object, key, value, context?: { source?: string }) {
      if (typeof value === "number" && /[.eE]/.test(context?.source ?? "")) {
        _markWrittenAsFloat(this, key);
      }
      return value;
    });
  } catch {
    throw _bad(`${what} is not valid JSON`);
  }
}

function _bad(why: string): InputError {
  return new InputError("CHECKPOINT_JSON", `Cannot open checkpoint: ${why}`);
}
