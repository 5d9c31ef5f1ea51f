/**
 * Clipping of text that may quote an input at any length (a record's field in a verdict's
 * reason): a message stays a readable line however long the quoted text was, and a result that is
 * signed stays small enough for every checker to read.
 *
 * @module
 */

/**
 * Text cut to at most `max` UTF-16 units, ending in `...` and the count of units left out when
 * it was longer (a surrogate pair is never split). Text this function clipped already (its first
 * `max` units or fewer, then the note) is returned as it is, so clipping twice keeps the true
 * count.
 *
 * @param text any text
 * @param max the most units kept (>= 1)
 * @returns the text, or its clipped form
 * @example
 * ```ts
 * import { clipText } from "./clip_text.ts";
 * if (clipText("abcdef", 3) !== "abc... (3 more characters)") throw new Error(clipText("abcdef", 3));
 * if (clipText("abc", 3) !== "abc") throw new Error();
 * if (clipText(clipText("abcdef", 3), 3) !== clipText("abcdef", 3)) throw new Error();
 * ```
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = _NOTE.exec(text);
  if (note !== null && note.index <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a lead surrogate without its pair
  return `${text.slice(0, end)}... (${text.length - end} more characters)`;
}

/** The note `clipText` ends a clipped text with. */
const _NOTE = /\.\.\. \(\d{1,16} more characters\)$/;
