/**
 * Reads results files (`audit work` output: one item result per line) strictly.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { type ItemResult, parseItemResult } from "../verify/mod.ts";
import { readTextFile } from "./read_json_file.ts";

/** Largest results file accepted (bytes). */
export const MAX_RESULTS_BYTES = 256 * 1024 * 1024;

/**
 * Reads one results file.
 *
 * @param path JSON Lines file
 * @returns its item results, in file order
 * @throws {InputError} `INPUT_*`, `RESULT_INVALID` (a line that is not a canonical item result,
 *   or a last line without its newline: a file cut short)
 * @example
 * ```ts ignore
 * const results = await readResultsFile("results-0.jsonl");
 * ```
 */
export async function readResultsFile(path: string): Promise<ItemResult[]> {
  const text = await readTextFile(path, { maxBytes: MAX_RESULTS_BYTES });
  if (text.length > 0 && !text.endsWith("\n")) {
    throw new InputError("RESULT_INVALID", `Cannot read results '${path}': the last line is cut`);
  }
  const lines = text.split("\n");
  lines.pop();
  return lines.map((line, i) => parseItemResult(line, `${path}:${i + 1}`));
}
