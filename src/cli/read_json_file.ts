/**
 * Reads a user-supplied JSON file with a size limit and one-line errors.
 *
 * @module
 */
import { type InputCode, InputError } from "../errors.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";
import { quoteForTerminal } from "../escape_text.ts";
import { readAtMost } from "../read_at_most.ts";
import { openCause } from "../io_cause.ts";

/**
 * Reads and parses a JSON file strictly (`parseStrictJson`: integers only, no duplicate key, no
 * byte-order mark, no carriage return, no lone surrogate).
 *
 * @param path file path
 * @param maxBytes largest accepted size (default 64 MiB)
 * @returns the parsed value
 * @throws {InputError} `INPUT_MISSING`, `INPUT_TOO_LARGE`, `INPUT_JSON`
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to it (the CLI's
 *   PERMISSION error, naming the flag), never reported as a missing file
 * @example
 * ```ts ignore
 * const v = await readJsonFile("recipe.json");
 * ```
 */
export async function readJsonFile(path: string, maxBytes = 64 * 1024 * 1024): Promise<unknown> {
  return _parse(path, await readTextFile(path, { maxBytes }), "INPUT_JSON");
}

/**
 * Reads a user-supplied UTF-8 text file with a size limit.
 *
 * @param path file path
 * @param options `maxBytes` largest accepted size; `jsonCode`: when set, the text is validated
 *   as JSON and this code reported on failure; `what` the file is, for messages (e.g. `key
 *   'w.pub' (--worker-pub)`, escaped by the caller): an error then reads "Cannot read <what>:
 *   <why>" (default: the path in quotes)
 * @returns the text
 * @throws {InputError} `INPUT_MISSING`, `INPUT_TOO_LARGE`, `INPUT_UTF8` or `jsonCode`
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to it
 * @example
 * ```ts ignore
 * const text = await readTextFile("claims.jsonl", { maxBytes: 1 << 28 });
 * ```
 */
export async function readTextFile(
  path: string,
  options: { maxBytes: number; jsonCode?: InputCode; what?: string },
): Promise<string> {
  const { maxBytes, jsonCode } = options;
  const name = options.what ?? `'${path}'`;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("INPUT_MISSING", `Cannot read ${name}: ${openCause(e)}`);
  }
  if (!info.isFile) {
    throw new InputError(
      "INPUT_MISSING",
      `Cannot read ${name}: not a regular file (${
        info.isDirectory ? "a folder" : "a device, FIFO or socket"
      })`,
    );
  }
  if (info.size > maxBytes) {
    throw new InputError(
      "INPUT_TOO_LARGE",
      `Cannot read ${name}: ${info.size} bytes exceeds the ${maxBytes}-byte limit`,
    );
  }
  // The stated size is a first check only: the bytes are counted as read (a file that says 0
  // bytes may never end).
  let bytes: Uint8Array | null;
  try {
    bytes = await readAtMost(path, maxBytes);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("INPUT_MISSING", `Cannot read ${name}: ${openCause(e)}`);
  }
  if (bytes === null) {
    throw new InputError(
      "INPUT_TOO_LARGE",
      `Cannot read ${name}: more than ${maxBytes} bytes (the limit)`,
    );
  }
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, so that strict parsers can refuse it.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InputError("INPUT_UTF8", `Cannot read ${name}: not valid UTF-8`);
  }
  if (jsonCode !== undefined) _parse(path, text, jsonCode);
  return text;
}

/**
 * Reads a user-supplied binary file with a size limit, counted as it is read.
 *
 * @param path file path
 * @param maxBytes largest accepted size
 * @returns the bytes
 * @throws {InputError} `INPUT_MISSING` (missing, not a file), `INPUT_TOO_LARGE`
 * @throws {Deno.errors.NotCapable} when Deno was not given read access to it
 * @example
 * ```ts ignore
 * const token = await readBinaryFile("attestation.tsr", 64 * 1024);
 * ```
 */
export async function readBinaryFile(path: string, maxBytes: number): Promise<Uint8Array> {
  let info: Deno.FileInfo;
  let bytes: Uint8Array | null;
  try {
    info = await Deno.stat(path);
    bytes = info.isFile ? await readAtMost(path, maxBytes) : null;
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) throw e;
    throw new InputError("INPUT_MISSING", `Cannot read '${path}': ${openCause(e)}`);
  }
  if (!info.isFile) throw new InputError("INPUT_MISSING", `Cannot read '${path}': not a file`);
  if (bytes === null) {
    throw new InputError(
      "INPUT_TOO_LARGE",
      `Cannot read '${path}': more than ${maxBytes} bytes (the limit)`,
    );
  }
  return bytes;
}

function _parse(path: string, text: string, code: InputCode): unknown {
  try {
    return parseStrictJson(text);
  } catch (e) {
    const why = e instanceof StrictJsonError ? `: ${e.reason} at '${e.path}'` : "";
    throw new InputError(code, `Cannot read ${quoteForTerminal(path)}: not strict JSON${why}`);
  }
}
