/**
 * Results files of `audit work` (one worker-signed result per line, see `signItemResult`) and
 * the worker keys that may sign them.
 *
 * @module
 */
import {
  openItemResult,
  readItemResultUnchecked,
  type WorkerKeys,
  workerKeys,
} from "../attest/mod.ts";
import { InputError, UsageError } from "../errors.ts";
import type { AttributedResult } from "../verify/mod.ts";
import { readTextFile } from "./read_json_file.ts";
import { loadPublicKey } from "./load_inputs.ts";
import { splitLines } from "../split_lines.ts";

/** Largest results file accepted (bytes). */
export const MAX_RESULTS_BYTES = 256 * 1024 * 1024;

/** Most lines of a results file: a result for each record of the largest log, once. */
export const MAX_RESULT_LINES = 1_000_000;

/**
 * Reads a results file and opens every line with the accepted worker keys.
 *
 * @param path the file
 * @param workers the worker keys the inspector accepts
 * @returns the results with the key id of the worker that signed each, in file order
 * @throws {InputError} `INPUT_*`, `RESULT_INVALID` (also for a cut last line),
 *   `RESULT_UNKNOWN_WORKER`, `RESULT_SIGNATURE`
 * @example
 * ```ts ignore
 * const results = await readResultsFile("results-0.jsonl", workers);
 * ```
 */
export async function readResultsFile(
  path: string,
  workers: WorkerKeys,
): Promise<AttributedResult[]> {
  return await Array.fromAsync(resultsOfFile(path, workers));
}

/**
 * The results of a results file one at a time, each line opened with the accepted worker keys
 * when it is asked for: a caller that keeps one result an item holds no more than that.
 *
 * @param path the file
 * @param workers the worker keys the inspector accepts
 * @returns the results with the key id of the worker that signed each, in file order
 * @throws {InputError} as {@link readResultsFile}
 * @example
 * ```ts ignore
 * for await (const r of resultsOfFile("results-0.jsonl", workers)) console.log(r.worker);
 * ```
 */
export async function* resultsOfFile(
  path: string,
  workers: WorkerKeys,
): AsyncGenerator<AttributedResult> {
  for (const [i, line] of (await resultLines(path)).entries()) {
    yield await openItemResult(line, { where: `${path}:${i + 1}`, workers });
  }
}

/**
 * Reads a results file without checking its signatures (cost estimates only).
 *
 * @param path the file
 * @returns the results, in file order
 * @throws {InputError} `INPUT_*`, `RESULT_INVALID`
 * @example
 * ```ts ignore
 * const pilot = await readResultsUnchecked("pilot.jsonl");
 * ```
 */
export async function readResultsUnchecked(path: string): Promise<AttributedResult[]> {
  return (await resultLines(path)).map((line, i) =>
    readItemResultUnchecked(line, `${path}:${i + 1}`)
  );
}

/**
 * The lines of a results file, each without its newline.
 *
 * @param path the file
 * @returns the lines
 * @throws {InputError} `INPUT_*`; `RESULT_INVALID` when the last line is cut
 * @example
 * ```ts ignore
 * const lines = await resultLines("results-0.jsonl");
 * ```
 */
export async function resultLines(path: string): Promise<string[]> {
  const text = await readTextFile(path, { maxBytes: MAX_RESULTS_BYTES });
  if (text.length > 0 && !text.endsWith("\n")) {
    throw new InputError("RESULT_INVALID", `Cannot read results '${path}': the last line is cut`);
  }
  const lines = splitLines(text, MAX_RESULT_LINES + 1);
  if (lines === null) {
    throw new InputError(
      "RESULT_INVALID",
      `Cannot read results '${path}': more than ${MAX_RESULT_LINES} lines`,
    );
  }
  lines.pop();
  return lines;
}

/**
 * Reads the worker public keys (SPKI PEM `.pub` files) an inspector accepts results from.
 *
 * @param paths the files (`--worker-pub`)
 * @returns key id -> key
 * @throws {InputError} `INPUT_*`, `BAD_PEM`, `BAD_KEY`; {UsageError} `USAGE_KEYS` when two files
 *   hold the same key
 * @example
 * ```ts ignore
 * const workers = await loadWorkerKeys(["w0.pub", "w1.pub"]);
 * ```
 */
export async function loadWorkerKeys(paths: readonly string[]): Promise<WorkerKeys> {
  const keys: Uint8Array[] = [];
  for (const path of paths) {
    keys.push(await loadPublicKey(path, { option: "--worker-pub" }));
  }
  try {
    return workerKeys(keys);
  } catch (e) {
    throw new UsageError("USAGE_KEYS", `Cannot use --worker-pub: ${(e as Error).message}`);
  }
}
