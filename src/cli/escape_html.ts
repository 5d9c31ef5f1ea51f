/**
 * Escaping of untrusted text (audit ids, log ids, reasons, asset names) for HTML reports.
 *
 * @module
 */

/**
 * Markup characters, C0/C1 controls (but tab and line feed), line and paragraph separators,
 * bidirectional controls and the invisible format characters the terminal escaping also shows
 * (soft hyphen, zero-width characters, word joiner, byte order mark): finding control characters
 * is this pattern's purpose.
 */
// deno-lint-ignore no-control-regex
const UNSAFE = new RegExp(
  "[&<>\"']|[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb]",
  "g",
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
