/**
 * Splitting a text into lines with a bound on their number, checked before the lines exist: a
 * text of nothing but newlines within a file's byte limit would otherwise ask for more array
 * elements than V8 can make (a fatal error, not an exception).
 *
 * @module
 */

/**
 * The text's pieces between `\n`s, as `text.split("\n")` gives them, or null when there would be
 * more than `max` (counted without making them).
 *
 * @param text the text
 * @param max the most pieces wanted (a text ending in `\n` has an empty last piece)
 * @returns the pieces, or null when there are more than `max`
 * @example
 * ```ts
 * import { splitLines } from "./split_lines.ts";
 * if (splitLines("a\nb\n", 3)?.length !== 3 || splitLines("\n\n\n", 3) !== null) throw new Error();
 * ```
 */
export function splitLines(text: string, max: number): string[] | null {
  let pieces = 1;
  if (pieces > max) return null;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (++pieces > max) return null;
  }
  return text.split("\n");
}
