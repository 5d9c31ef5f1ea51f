/**
 * Markdown helpers of the documentation generators: tables laid out the way `deno fmt` lays them
 * out (cells padded to the column's width), so a generated page passes `deno fmt --check` as it
 * is written.
 *
 * @module
 */

/**
 * Renders a table with its cells padded to each column's width.
 *
 * @param header the column titles
 * @param rows the cells, one array per row (as many cells as titles)
 * @returns the table's lines joined by newlines, without a final newline
 * @throws {RangeError} when a row has another number of cells than the header
 * @example
 * ```ts
 * import { markdownTable } from "./_markdown.ts";
 * const t = markdownTable(["code", "exit"], [["OK", "0"]]);
 * if (t !== "| code | exit |\n| ---- | ---- |\n| OK   | 0    |") throw new Error(t);
 * ```
 */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  for (const r of rows) {
    if (r.length !== header.length) {
      throw new RangeError(
        `Cannot lay out a table row: ${r.length} cells, expected ${header.length}`,
      );
    }
  }
  const cells = [header, ...rows].map((r) => r.map(_cell));
  const widths = header.map((_, i) => Math.max(3, ...cells.map((r) => _width(r[i]!))));
  const line = (r: readonly string[]) =>
    `| ${r.map((c, i) => c + " ".repeat(widths[i]! - _width(c))).join(" | ")} |`;
  const rule = `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`;
  return [line(cells[0]!), rule, ...cells.slice(1).map(line)].join("\n");
}

/**
 * Wraps prose at a line width the way `deno fmt` does (greedy, breaking at spaces only): a code
 * span and a link are never broken, and a word longer than the width stays whole.
 *
 * @param text one paragraph
 * @param width the widest line, in characters, indentation included
 * @param indent put before every line but the first (a list item's continuation lines)
 * @returns the lines joined by newlines
 * @example
 * ```ts
 * import { wrapProse } from "./_markdown.ts";
 * if (wrapProse("aa bb cc", 5) !== "aa bb\ncc") throw new Error();
 * if (wrapProse("- aa bb", 5, "  ") !== "- aa\n  bb") throw new Error();
 * if (wrapProse("a `b c` d", 5) !== "a\n`b c`\nd") throw new Error();
 * ```
 */
export function wrapProse(text: string, width: number, indent = ""): string {
  const lines: string[] = [];
  let line = "";
  for (const word of _words(text)) {
    const room = lines.length === 0 ? width : width - indent.length;
    if (line.length > 0 && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else {
      line = line.length === 0 ? word : `${line} ${word}`;
    }
  }
  if (line.length > 0) lines.push(line);
  return lines.map((l, i) => i === 0 ? l : indent + l).join("\n");
}

/**
 * Escapes the characters that would start emphasis or a link in text taken from elsewhere (help
 * texts, JSON fields), outside its code spans.
 *
 * @param text plain text, possibly with code spans
 * @returns the text with `*`, `[` and `]` backslashed outside code spans
 * @example
 * ```ts
 * import { escapeMarkdown } from "./_markdown.ts";
 * if (escapeMarkdown("a_* `b*`") !== "a_\\* `b*`") throw new Error();
 * ```
 */
export function escapeMarkdown(text: string): string {
  return text.split(/(`[^`]*`)/).map((part, i) =>
    i % 2 === 1 ? part : part.replace(/[*[\]]/g, (c) => `\\${c}`)
  ).join("");
}

/** The unbreakable words of a paragraph: whitespace inside code spans and links does not split. */
function _words(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      if (word.length > 0) words.push(word);
      word = "";
      i++;
      continue;
    }
    const atom = c === "`"
      ? text.slice(i).match(/^`[^`]*`/)?.[0]
      : c === "["
      ? text.slice(i).match(/^\[[^\]]*\]\([^)\s]*\)/)?.[0]
      : undefined;
    const piece = atom ?? c;
    word += piece.replace(/\s+/g, " ");
    i += piece.length;
  }
  if (word.length > 0) words.push(word);
  return words;
}

/** A cell on one line with its pipes escaped. */
function _cell(text: string): string {
  return text.replace(/\s*\n\s*/g, " ").replaceAll("|", "\\|");
}

/** Display width: code points (the pages' tables hold no wide characters). */
function _width(text: string): number {
  return [...text].length;
}
