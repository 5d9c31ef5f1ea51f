/**
 * The names a verdict's `verifier.engine` can take: the engine each worker's recomputation ran on
 * (`createGemmWalker`'s `engine`), and a merged audit's set of them, sorted and joined with `+`
 * (`none` when no worker returned a result). A signed verdict naming anything else was not written
 * by a bitaudit audit, and a reader would take the name at its word.
 *
 * @module
 */

/** The engines a recomputation runs on (`createGemmWalker`'s `engine`). */
export const WORKER_ENGINES: readonly string[] = Object.freeze(["wasm", "reference"]);

/**
 * The engine a merged audit names: its workers' engines, distinct, sorted and joined with `+`
 * (a merged audit names its workers' runtimes the same way).
 *
 * @param engines the workers' engines (or runtimes)
 * @returns e.g. `reference+wasm`, or `none` for no engine
 * @example
 * ```ts
 * import { mergedEngineName } from "./verifier_engine.ts";
 * if (mergedEngineName(new Set(["wasm", "reference"])) !== "reference+wasm") throw new Error();
 * if (mergedEngineName([]) !== "none") throw new Error();
 * ```
 */
export function mergedEngineName(engines: Iterable<string>): string {
  const names = [...new Set(engines)].sort();
  return names.length === 0 ? "none" : names.join("+");
}

/**
 * Tells whether a verdict's engine is one an audit writes: `none`, or a non-empty set of
 * {@link WORKER_ENGINES} as {@link mergedEngineName} joins it.
 *
 * @param text the stated engine
 * @returns true for a name an audit writes
 * @example
 * ```ts
 * import { isVerdictEngine } from "./verifier_engine.ts";
 * if (!isVerdictEngine("wasm") || !isVerdictEngine("reference+wasm")) throw new Error();
 * if (isVerdictEngine("gpu-measured") || isVerdictEngine("wasm+reference")) throw new Error();
 * ```
 */
export function isVerdictEngine(text: string): boolean {
  if (text === "none") return true;
  const names = text.split("+");
  return names.every((n) => WORKER_ENGINES.includes(n)) && mergedEngineName(names) === text;
}
