/**
 * Escaping of untrusted text (audit ids, log ids, reasons, asset names) for HTML reports.
 *
 * @module
 */
import { INVISIBLE_CLASS } from "../escape_text.ts";

/**
 * Markup characters, and every character the terminal escaping shows (`INVISIBLE_CLASS`: controls
 * but tab and line feed, format and default-ignorable characters, separators) and lone
 * surrogates.
 */
const UNSAFE = new RegExp(
  `[&<>"']|(?![\\t\\n])[${INVISIBLE_CLASS}]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
  "gu",
);

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML element content and quoted attribute values. Markup characters become
 * entities; control characters (an ANSI escape, a NUL) and bidirectional overrides become visible
 * `\u{..}` notation, so they can neither act nor hide.
 *
 * @param text untrusted text
 * @returns text safe inside an element or a quoted attribute
 * @example
 * ```ts
 * import { escapeHtml } from "./escape_html.ts";
 * const s = escapeHtml('<img src=x onerror="a()">\u001b[31m');
 * if (s !== "&lt;img src=x onerror=&quot;a()&quot;&gt;\\u{1b}[31m") throw new Error(s);
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(UNSAFE, (c) => ENTITIES[c] ?? `\\u{${c.codePointAt(0)!.toString(16)}}`);
}
