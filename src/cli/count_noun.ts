/**
 * A count and its noun in the number the count takes ("1 record", "2 records"), for the lines
 * the CLI prints, where a count read from the input may be 1.
 *
 * @module
 */

/**
 * Writes `n` and the noun, singular for exactly 1 and plural otherwise (0 included).
 *
 * @param n the count
 * @param noun the singular noun, pluralised by adding "s", or its singular and plural
 * @returns the text, e.g. "1 record"
 * @example
 * ```ts
 * import { countNoun } from "./count_noun.ts";
 * if (countNoun(1, "record") !== "1 record") throw new Error();
 * if (countNoun(0, "record") !== "0 records") throw new Error();
 * if (countNoun(2, ["entry", "entries"]) !== "2 entries") throw new Error();
 * ```
 */
export function countNoun(n: number, noun: string | readonly [string, string]): string {
  const [one, many] = typeof noun === "string" ? [noun, `${noun}s`] : noun;
  return `${n} ${n === 1 ? one : many}`;
}
