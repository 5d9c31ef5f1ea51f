/**
 * Parser of the measured-vector text files (hex words per line, or 32-character binary lines).
 *
 * @module
 */
import { InputError } from "../errors.ts";

/** A parsed vector file: `rows x width` fp32 patterns. */
export interface VectorText {
  /** Number of lines. */
  readonly rows: number;
  /** Values per line. */
  readonly width: number;
  /** Patterns, row-major. */
  readonly values: Uint32Array;
}

/**
 * Parses one vector file.
 *
 * @param text file contents
 * @param options `file` name for messages; `kind`: `hex` (8 hex digits per value, space
 *   separated, trailing space allowed) or `binary` (one 32-digit binary string per line)
 * @returns the patterns
 * @throws {InputError} `VECTOR_TEXT_SYNTAX` naming file and line
 * @example
 * ```ts
 * import { parseVectorText } from "./parse_vector_text.ts";
 * const v = parseVectorText("3f800000 40000000 \n", { file: "a", kind: "hex" });
 * if (v.width !== 2 || v.values[1] !== 0x40000000) throw new Error();
 * ```
 */
export function parseVectorText(
  text: string,
  options: { file: string; kind: "hex" | "binary" },
): VectorText {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out: number[] = [];
  let width = -1;
  lines.forEach((raw, i) => {
    const line = raw.replace(/\r$/, "");
    const words = options.kind === "hex" ? line.trim().split(/ +/) : [line];
    const re = options.kind === "hex" ? /^[0-9a-fA-F]{8}$/ : /^[01]{32}$/;
    if (width === -1) width = words.length;
    if (words.length !== width || words.some((w) => !re.test(w))) {
      throw new InputError(
        "VECTOR_TEXT_SYNTAX",
        `Cannot parse '${options.file}' line ${
          i + 1
        }: expected ${width} ${options.kind} fp32 words`,
      );
    }
    for (const w of words) out.push(parseInt(w, options.kind === "hex" ? 16 : 2));
  });
  if (out.length === 0) {
    throw new InputError("VECTOR_TEXT_SYNTAX", `Cannot parse '${options.file}': no data`);
  }
  return { rows: lines.length, width, values: Uint32Array.from(out) };
}
