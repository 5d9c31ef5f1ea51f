/**
 * Integer command-line values: decimal digits only (no sign, no spaces, no `0x1`, `1e3` or `1.0`,
 * which `Number()` would accept), within stated bounds, so a value means exactly what it shows.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { quoteForTerminal } from "../escape_text.ts";

/**
 * Most worker threads a command starts: twice the machine's cores, at least 8. More workers than
 * cores only add memory (each holds its own engine instance, about 8 MB); the limit follows the
 * machine, so a larger machine allows more.
 */
export const MAX_THREADS: number = Math.max(8, 2 * (navigator.hardwareConcurrency ?? 1));

/**
 * Parses a decimal integer option.
 *
 * @param text the option's text
 * @param o `flag` for messages, inclusive bounds `min` and `max` (default 2^53 − 1)
 * @returns the integer
 * @throws {InputError} `USAGE_NUMBER` naming the flag and the accepted range
 * @example
 * ```ts
 * import { parseIntOption } from "./parse_int_option.ts";
 * if (parseIntOption("12", { flag: "--k", min: 1 }) !== 12) throw new Error();
 * let code = "";
 * try { parseIntOption("0x1", { flag: "--k", min: 1 }); } catch (e) { code = (e as { code: string }).code; }
 * if (code !== "USAGE_NUMBER") throw new Error();
 * ```
 */
export function parseIntOption(
  text: string,
  o: { flag: string; min: number; max?: number },
): number {
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  const v = Number(text);
  if (!/^(?:0|[1-9][0-9]*)$/.test(text) || !Number.isSafeInteger(v) || v < o.min || v > max) {
    throw new InputError(
      "USAGE_NUMBER",
      `Cannot use ${o.flag} ${
        quoteForTerminal(text)
      }: expected a decimal integer in ${o.min}..${max}`,
    );
  }
  return v;
}

/**
 * Parses `--threads` (1..{@link MAX_THREADS}).
 *
 * @param text the option's text
 * @returns the thread count
 * @throws {InputError} `USAGE_NUMBER`
 * @example
 * ```ts
 * import { parseThreads } from "./parse_int_option.ts";
 * if (parseThreads("2") !== 2) throw new Error();
 * ```
 */
export function parseThreads(text: string): number {
  return parseIntOption(text, { flag: "--threads", min: 1, max: MAX_THREADS });
}
