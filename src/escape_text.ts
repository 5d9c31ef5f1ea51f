/**
 * Escaping of text that came from an input (ids, names, paths, payload types) for the medium it
 * is written to. A terminal interprets control characters (ANSI escape sequences can clear the
 * screen and paint text over a verdict), Markdown interprets punctuation and line breaks; JSON
 * output is `JSON.stringify`'s, with the characters it leaves raw (C1 controls, bidirectional
 * overrides and isolates, invisible format characters) written as `\u` escapes too.
 *
 * @module
 */
import { clipText } from "./clip_text.ts";

/**
 * Characters a terminal or a text viewer would act on or hide: controls (C0, DEL, C1), format
 * characters (bidirectional marks, overrides and isolates, zero-width characters, joiners, tag
 * characters, the byte order mark, interlinear annotation controls...), line and paragraph
 * separators, every default-ignorable code point (soft hyphen, variation selectors, fillers, the
 * combining grapheme joiner...), and lone surrogates: by Unicode property, not by a hand-kept list.
 */
export const INVISIBLE_CLASS = "\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}";

const UNSAFE = new RegExp(
  `[${INVISIBLE_CLASS}]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]`,
  "gu",
);

/**
 * The characters of {@link UNSAFE} that `JSON.stringify` leaves raw: not the C0 controls (escaped
 * inside strings; outside them only the line breaks of indented output) nor lone surrogates.
 */
const JSON_UNSAFE = new RegExp(`(?![\\u0000-\\u001f])[${INVISIBLE_CLASS}]`, "gu");

/**
 * Replaces every character a terminal would act on by its `\u{...}` escape, so the text shows
 * exactly what it holds and cannot move the cursor, change colours or break a line.
 *
 * @param text untrusted text
 * @returns printable text
 * @example
 * ```ts
 * import { escapeForTerminal } from "./escape_text.ts";
 * if (escapeForTerminal("a\u001b[2Jb\n") !== "a\\u{1b}[2Jb\\u{a}") throw new Error();
 * ```
 */
export function escapeForTerminal(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/**
 * Writes, in JSON text, every character a terminal would act on or hide as a `\u` escape
 * (`JSON.stringify` escapes C0 controls and lone surrogates, but leaves C1 controls, bidirectional
 * overrides and invisible format characters raw). The JSON parses to the same value.
 *
 * @param json JSON text
 * @returns the same JSON, safe to print
 * @example
 * ```ts
 * import { escapeJsonText } from "./escape_text.ts";
 * const out = escapeJsonText(JSON.stringify({ id: "a\u202eb\u009b" }));
 * if (out !== '{"id":"a\\u202eb\\u009b"}') throw new Error(out);
 * if (JSON.parse(out).id !== "a\u202eb\u009b") throw new Error();
 * ```
 */
export function escapeJsonText(json: string): string {
  // Each UTF-16 unit as its own escape (a tag character is a surrogate pair: two escapes).
  return json.replace(JSON_UNSAFE, (c) =>
    Array.from(
      { length: c.length },
      (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`,
    ).join(""));
}

/**
 * Escapes untrusted text for a terminal and puts it in single quotes (a quote inside is
 * backslashed), for messages such as "Cannot read 'path': ...".
 *
 * @param text untrusted text
 * @returns the quoted, printable text
 * @example
 * ```ts
 * import { quoteForTerminal } from "./escape_text.ts";
 * if (quoteForTerminal("it's\r") !== "'it\\'s\\u{d}'") throw new Error();
 * ```
 */
export function quoteForTerminal(text: string): string {
  return `'${escapeInQuotes(text)}'`;
}

/**
 * Escapes untrusted text for a terminal as {@link quoteForTerminal} does inside its quotes (a
 * backslash and a single quote backslashed), for text a message puts inside quotes of its own
 * (a field path built from an input's key).
 *
 * @param text untrusted text
 * @returns printable text that cannot close the quotes around it
 * @example
 * ```ts
 * import { escapeInQuotes } from "./escape_text.ts";
 * if (escapeInQuotes("x' ok\n") !== "x\\' ok\\u{a}") throw new Error(escapeInQuotes("x' ok\n"));
 * ```
 */
export function escapeInQuotes(text: string): string {
  return escapeForTerminal(text.replace(/\\/g, "\\\\").replace(/'/g, "\\'"));
}

/**
 * Quotes untrusted text that a message shows although nothing vouches for it (an unverified
 * field of an attestation), short ({@link shortInQuotes}: runs of space separators as one space,
 * at most `max` characters), so that it cannot pad itself out to look like a line of its own
 * where the terminal wraps.
 *
 * @param text untrusted text
 * @param max the most characters shown (default 32)
 * @returns the quoted, printable, short text
 * @example
 * ```ts
 * import { quoteShort } from "./escape_text.ts";
 * const shown = quoteShort("x" + " ".repeat(90) + "VALID attestation: every check passed");
 * if (shown !== "'x VALID attestation: every check... (7 more characters)'") throw new Error(shown);
 * if (quoteShort("pt\ufeff\n") !== "'pt\\u{feff}\\u{a}'") throw new Error(quoteShort("pt\ufeff\n"));
 * ```
 */
export function quoteShort(text: string, max = 32): string {
  return `'${shortInQuotes(text, max)}'`;
}

/**
 * Untrusted text made short for a message that puts it inside quotes of its own (a field path
 * built from an input's key; {@link quoteShort} adds the quotes): runs of space separators
 * (`\p{Zs}`) as one space, at most `max` characters, then escaped as {@link escapeInQuotes}
 * escapes. A line break, a tab, a byte order mark or a line separator is no space: it shows
 * escaped, as everything a terminal would act on or hide does.
 *
 * @param text untrusted text
 * @param max the most characters kept (default 32)
 * @returns printable, short text that cannot close the quotes around it
 * @example
 * ```ts
 * import { shortInQuotes } from "./escape_text.ts";
 * if (shortInQuotes("a \u00a0 b'\u2028", 40) !== "a b\\'\\u{2028}") throw new Error();
 * ```
 */
export function shortInQuotes(text: string, max = 32): string {
  return escapeInQuotes(clipText(collapseSpaces(text), max));
}

/**
 * Writes every run of space separators (`\p{Zs}`: spaces, no-break, ideographic and other spaces)
 * as one space, for untrusted text inside a line of someone else's making: a record's reason
 * quotes the record's names and its blobs' fields, and text padded with spaces could push part of
 * itself to the start of a row where the terminal wraps, and pass there for a line of its own (a
 * second "verdict:" line). A line break, a tab or a control is no space: {@link escapeForTerminal}
 * shows it escaped.
 *
 * @param text untrusted text
 * @returns the text with one space where a run of spaces was
 * @example
 * ```ts
 * import { collapseSpaces } from "./escape_text.ts";
 * const shown = collapseSpaces("stack 'x" + " ".repeat(90) + "verdict: PASSED'\t");
 * if (shown !== "stack 'x verdict: PASSED'\t") throw new Error(shown);
 * ```
 */
export function collapseSpaces(text: string): string {
  return text.replace(/\p{Zs}+/gu, " ");
}

/**
 * Escapes untrusted text for Markdown: runs of spaces as one ({@link collapseSpaces}; rendered
 * Markdown shows them so, and the file read in a terminal then shows no row of the text's own
 * making), control characters as for a terminal (so no line break can start a heading or a table
 * row), then every ASCII punctuation character Markdown could
 * read as inline syntax (emphasis, code, links, HTML, entities, table cells) is backslashed
 * (CommonMark 2.4: any ASCII punctuation may be escaped). The full stop, colon and at sign are
 * backslashed too, which breaks every pattern a GFM or linkify renderer turns into a link
 * (`https://`, `mailto:`, `www.`, `name@host`, a bare `host.com`): a prover's string cannot become
 * a clickable link in an inspector's report. For inline use, never at a line start.
 *
 * @param text untrusted text
 * @returns text that renders literally
 * @example
 * ```ts
 * import { escapeMarkdown } from "./escape_text.ts";
 * if (escapeMarkdown("# x|y\n") !== "\\# x\\|y\\\\u\\{a\\}") throw new Error(escapeMarkdown("# x|y\n"));
 * ```
 */
export function escapeMarkdown(text: string): string {
  return escapeForTerminal(collapseSpaces(text)).replace(/[\\`*_{}[\]()#!|<>~&.:@]/g, "\\$&");
}
