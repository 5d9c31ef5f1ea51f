/**
 * Reads a user-supplied JSON file with a size limit and one-line errors.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";
import { quoteForTerminal } from "../escape_text.ts";

/**
 * Reads and parses a JSON file strictly (`parseStrictJson`: integers only, no duplicate key, no
 * byte-order mark, no carriage return, no lone surrogate).
 *
 * @param path file path
 * @param maxBytes largest accepted size (default 64 MiB)
 * @returns the parsed value
 * @throws {InputError} `INPUT_MISSING`, `INPUT_TOO_LARGE`, `INPUT_JSON`
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
 *   as JSON and this code reported on failure
 * @returns the text
 * @throws {InputError} `INPUT_MISSING`, `INPUT_TOO_LARGE`, `INPUT_UTF8` or `jsonCode`
 * @example
 * ```ts ignore
 * const text = await readTextFile("claims.jsonl", { maxBytes: 1 << 28 });
 * ```
 */
export async function readTextFile(
  path: string,
  options: { maxBytes: number; jsonCode?: string },
): Promise<string> {
  const { maxBytes, jsonCode } = options;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    throw new InputError("INPUT_MISSING", `Cannot read '${path}': ${(e as Error).name}`);
  }
  if (!info.isFile) throw new InputError("INPUT_MISSING", `Cannot read '${path}': not a file`);
  if (info.size > maxBytes) {
    throw new InputError(
      "INPUT_TOO_LARGE",
      `Cannot read '${path}': ${info.size} bytes exceeds the ${maxBytes}-byte limit`,
    );
  }
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, so that strict parsers can refuse it.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(
      await Deno.readFile(path),
    );
  } catch {
    throw new InputError("INPUT_UTF8", `Cannot read '${path}': not valid UTF-8`);
  }
  if (jsonCode !== undefined) _parse(path, text, jsonCode);
  return text;
}

function _parse(path: string, text: string, code: string): unknown {
  try {
    return parseStrictJson(text);
  } catch (e) {
    const why = e instanceof StrictJsonError ? `: ${e.reason} at '${e.path}'` : "";
    throw new InputError(code, `Cannot read ${quoteForTerminal(path)}: not strict JSON${why}`);
  }
}
