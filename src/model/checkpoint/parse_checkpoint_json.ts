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
  const { json, standIns } = _pythonConstants(text, what);
  try {
    return JSON.parse(json, function (this: object, key, v, context?: { source?: string }) {
      if (typeof v !== "number") return v;
      const source = context?.source ?? "";
      const constant = standIns.get(source);
      if (constant !== undefined || /[.eE]/.test(source)) _markWrittenAsFloat(this, key);
      return constant ?? v;
    });
  } catch {
    throw _bad(`${what} is not valid JSON`);
  }
}

/** Python's non-finite constants (`json.loads` reads them as values), longest name first. */
const _CONSTANTS: readonly (readonly [string, number])[] = [
  ["-Infinity", -Infinity],
  ["Infinity", Infinity],
  ["NaN", NaN],
];

/**
 * The text with each `NaN`, `Infinity` and `-Infinity` outside a string replaced by a JSON number
 * standing in for it, between spaces, and each stand-in's text with its value. A stand-in's text
 * holds a run of zeros longer than any in the file, so no number (nor any string) of the file is
 * taken for one, and a name where JSON allows no number (a key, after a sign, glued to other text)
 * stays invalid JSON, as it is to Python. Outside strings only `true`, `false`, `null` and numbers
 * hold letters, and none contains these names.
 *
 * @throws {InputError} `CHECKPOINT_JSON` when the stand-ins would exceed {@link _MAX_STAND_IN_CHARS}
 */
function _pythonConstants(
  text: string,
  what: string,
): { json: string; standIns: Map<string, number> } {
  const standIns = new Map<string, number>();
  if (!text.includes("NaN") && !text.includes("Infinity")) return { json: text, standIns };
  const found: [number, number][] = []; // [offset, constant]
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
    const at = _CONSTANTS.findIndex(([name]) => text.startsWith(name, i));
    if (at < 0) continue;
    found.push([i, at]);
    i += _CONSTANTS[at]![0].length - 1;
  }
  let run = 0;
  for (const z of text.matchAll(/0+/g)) run = Math.max(run, z[0].length);
  // Each stand-in is as long as the file's longest run of zeros: bounded, so that a file of many
  // constants beside a long run cannot make a text of gigabytes.
  if (found.length * (run + 6) > _MAX_STAND_IN_CHARS) {
    throw _bad(
      `${what} holds ${found.length} NaN or Infinity values beside a run of ${run} zeros: more ` +
        `than bitaudit reads (${_MAX_STAND_IN_CHARS} characters of stand-ins)`,
    );
  }
  const texts = _CONSTANTS.map(([, value], i) => {
    const t = `0.${"0".repeat(run + 1)}${i + 1}`;
    standIns.set(t, value);
    return t;
  });
  let out = "";
  let from = 0;
  for (const [i, at] of found) {
    out += `${text.slice(from, i)} ${texts[at]} `; // spaced: glued to other text, it stays so
    from = i + _CONSTANTS[at]![0].length;
  }
  return { json: out + text.slice(from), standIns };
}

/** Most characters of stand-ins one checkpoint JSON is read with (4 MiB). */
const _MAX_STAND_IN_CHARS = 4 << 20;

function _bad(why: string): InputError {
  return new InputError("CHECKPOINT_JSON", `Cannot open checkpoint: ${why}`);
}
