/**
 * A checkpoint's JSON files (`config.json`, the shard index) read as Python's `json` reads them,
 * which is what HF Transformers (and so the prover) saw.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import { _markWrittenAsFloat } from "./_config_values.ts";

/**
 * Parses a checkpoint JSON file: a byte-order mark is refused (Python refuses it), each number
 * written as a fraction or with an exponent is marked, so that an integer field written `256.0`
 * is refused when read (Python reads a float, which HF cannot use as a size), and Python's
 * `NaN`, `Infinity` and `-Infinity` values are read as the floats they are (Python's `json`
 * reads them and `save_pretrained` writes them for a non-finite float attribute: a field HF
 * never uses may hold one; a field that is read refuses a non-finite value where it is read).
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
  const { json, constants } = _pythonConstants(text);
  let revived = 0;
  let value: unknown;
  try {
    value = JSON.parse(json, function (this: object, key, v, context?: { source?: string }) {
      if (typeof v === "string" && v.startsWith(_CONSTANT)) {
        const n = _CONSTANT_VALUES.get(v.slice(_CONSTANT.length));
        if (n === undefined) return v;
        revived++;
        _markWrittenAsFloat(this, key);
        return n;
      }
      if (typeof v === "number" && /[.eE]/.test(context?.source ?? "")) {
        _markWrittenAsFloat(this, key);
      }
      return v;
    });
  } catch {
    throw _bad(`${what} is not valid JSON`);
  }
  // A string of the file equal to a stand-in would have been read as a number: refused instead.
  if (revived !== constants) throw _bad(`${what} holds a string bitaudit cannot tell from NaN`);
  return value;
}

/** Prefix of the JSON strings that stand in for Python's constants while JSON.parse reads. */
const _CONSTANT = "\u0000bitaudit-python-constant:";

/** Python's non-finite constants (`json.loads` reads them as values), by name. */
const _CONSTANT_VALUES: ReadonlyMap<string, number> = new Map([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

/**
 * The text with each `NaN`, `Infinity` and `-Infinity` outside a string replaced by a JSON string
 * standing in for it, and how many were replaced. Outside strings only the literals `true`,
 * `false` and `null` hold letters, and none contains these names; a name glued to other text
 * stays invalid JSON, as it is to Python.
 */
function _pythonConstants(text: string): { json: string; constants: number } {
  let out = "";
  let from = 0;
  let constants = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      continue;
    }
    for (const name of ["-Infinity", "Infinity", "NaN"]) {
      if (!text.startsWith(name, i)) continue;
      out += text.slice(from, i) + JSON.stringify(_CONSTANT + name);
      i += name.length - 1;
      from = i + 1;
      constants++;
      break;
    }
  }
  return { json: constants === 0 ? text : out + text.slice(from), constants };
}

function _bad(why: string): InputError {
  return new InputError("CHECKPOINT_JSON", `Cannot open checkpoint: ${why}`);
}
