/**
 * Output helpers shared by the commands: JSON vs human text, hex formatting.
 *
 * @module
 */
import { escapeForTerminal, escapeJsonText } from "../escape_text.ts";

/**
 * Prints one line for a terminal: the characters a terminal would act on (escape sequences,
 * line breaks, carriage returns, bidirectional overrides) are replaced by visible escapes, so
 * text that came from an input (ids, payload types, reasons, paths) shows what it holds and
 * cannot paint over other lines.
 *
 * @param text one line
 * @example
 * ```ts
 * import { printText } from "./output.ts";
 * printText("ok\u001b[2J"); // prints ok\u{1b}[2J
 * ```
 */
export function printText(text: string): void {
  console.log(escapeForTerminal(text));
}

/**
 * Prints a value as pretty JSON on stdout.
 *
 * @param value JSON-serialisable value
 * @example
 * ```ts
 * import { printJson } from "./output.ts";
 * printJson({ ok: true });
 * ```
 */
export function printJson(value: unknown): void {
  console.log(escapeJsonText(JSON.stringify(value, null, 2)));
}

/**
 * Formats a 32-bit pattern as 8 hex digits.
 *
 * @param bits unsigned pattern
 * @param digits number of hex digits (default 8)
 * @returns e.g. `0x3f800000`
 * @example
 * ```ts
 * import { hex } from "./output.ts";
 * if (hex(1) !== "0x00000001") throw new Error();
 * ```
 */
export function hex(bits: number, digits = 8): string {
  return `0x${bits.toString(16).padStart(digits, "0")}`;
}

/**
 * Renders rows as an aligned text table, each cell escaped for a terminal (cells quote inputs:
 * file names of a vector folder, ids): a cell cannot move the cursor or break the table's lines.
 *
 * @param rows the first row is the header
 * @returns the table text
 * @example
 * ```ts
 * import { table } from "./output.ts";
 * if (!table([["a", "b"], ["1", "22"]]).includes("22")) throw new Error();
 * if (table([["a\u001b[2J"]]) !== "a\\u{1b}[2J") throw new Error();
 * ```
 */
export function table(rows: readonly (readonly string[])[]): string {
  rows = rows.map((r) => r.map(escapeForTerminal));
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => widths[i] = Math.max(widths[i] ?? 0, c.length));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd()).join(
    "\n",
  );
}
