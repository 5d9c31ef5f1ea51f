/**
 * Strict PEM armor (RFC 7468 §2 / §3 "strict" textual encoding) around DER key material.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";

/**
 * Wraps DER bytes in PEM armor with 64-character lines and a final newline.
 *
 * @param label PEM label, e.g. `"PUBLIC KEY"`
 * @param der the DER bytes
 * @returns PEM text
 * @throws {TypeError} when the label is not upper-case letters, digits and single spaces
 * @example
 * ```ts
 * import { encodePem } from "./pem.ts";
 * const pem = encodePem("TEST", new Uint8Array([1, 2, 3]));
 * if (pem !== "-----BEGIN TEST-----\nAQID\n-----END TEST-----\n") throw new Error(pem);
 * ```
 */
export function encodePem(label: string, der: Uint8Array): string {
  if (!/^[A-Z0-9]+( [A-Z0-9]+)*$/.test(label)) {
    throw new TypeError(`Cannot encode PEM: bad label '${label}'`);
  }
  const b64 = encodeBase64(der);
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.map((l) => `${l}\n`).join("")}-----END ${label}-----\n`;
}

/** Options of {@link decodePem} and of the key decoders built on it. */
export interface DecodeOptions {
  /**
   * What the text is, for messages, e.g. `key 'inspector.key' (--key)`: an error then reads
   * "Cannot use <what>: <why>", naming the file (default: "Cannot read PEM '<label>': <why>").
   * The caller escapes it.
   */
  readonly what?: string | undefined;
}

/**
 * Reads one PEM block with the expected label and returns its DER bytes.
 *
 * Accepts LF or CRLF line ends, blank lines (nothing between two line ends) before and after the
 * block, and base64 lines of any length up to 76; refuses explanatory text, headers, a different
 * label, several blocks and non-canonical base64. Every line holds printable ASCII only, neither
 * starting nor ending with a space: a byte order mark, a tab, a lone carriage return, a no-break or
 * other Unicode space anywhere is refused, naming its line and code point, so that a key file has
 * one reading and a stray character is said, not skipped.
 *
 * @param text PEM text (e.g. the content of a `.pub` or `.key` file)
 * @param label the required label, e.g. `"PRIVATE KEY"`
 * @param options `what` the text is, for messages
 * @returns the DER bytes
 * @throws {InputError} `BAD_PEM` when the text is not exactly one strict PEM block with that label
 * @example
 * ```ts
 * import { decodePem } from "./pem.ts";
 * const der = decodePem("-----BEGIN TEST-----\r\nAQID\r\n-----END TEST-----\r\n", "TEST");
 * if (der.length !== 3) throw new Error();
 * ```
 */
export function decodePem(text: string, label: string, options: DecodeOptions = {}): Uint8Array {
  const bad = (why: string): never => _bad(label, { why, what: options.what });
  if (typeof text !== "string") bad("not a string");
  const all = text.replace(/\r\n/g, "\n").split("\n");
  let first = 0;
  while (first < all.length && all[first] === "") first++;
  let end = all.length;
  while (end > first && all[end - 1] === "") end--;
  const lines = all.slice(first, end);
  for (const [i, line] of lines.entries()) {
    const why = _lineProblem(line);
    if (why !== null) bad(`line ${first + i + 1} ${why}`);
  }
  if (lines[0] !== `-----BEGIN ${label}-----`) {
    // Another block's label is named (a private key given for a public one is a common slip).
    const other = /^-----BEGIN ([A-Z0-9 ]{1,40})-----$/.exec(lines[0] ?? "")?.[1];
    bad(other === undefined ? "first line is not the BEGIN line" : `it is a ${other} block`);
  }
  if (lines[lines.length - 1] !== `-----END ${label}-----` || lines.length < 3) {
    bad("last line is not the END line");
  }
  const body = lines.slice(1, -1);
  for (const line of body) {
    if (!/^[A-Za-z0-9+/=]{1,76}$/.test(line)) bad("body line is not base64");
  }
  try {
    return decodeBase64(body.join(""), { alphabet: "standard" });
  } catch (e) {
    if (e instanceof InputError) bad(e.message);
    throw e;
  }
}

/** Names of the characters most often found where they do not belong in a PEM file. */
const _NAMES: Readonly<Record<number, string>> = {
  0x00: "NUL",
  0x09: "tab",
  0x0b: "vertical tab",
  0x0c: "form feed",
  0x0d: "carriage return without its line feed: line ends are LF or CRLF",
  0x85: "next line",
  0xa0: "no-break space",
  0x2028: "line separator",
  0x2029: "paragraph separator",
  0x3000: "ideographic space",
  0xfeff: "byte order mark",
};

/** What is wrong with one line of the armor or body, or null. */
function _lineProblem(line: string): string | null {
  const odd = /[^\x20-\x7e]/u.exec(line)?.[0];
  if (odd !== undefined) {
    const cp = odd.codePointAt(0)!;
    const name = _NAMES[cp] ?? (/\s/u.test(odd) ? "a space character" : "not printable ASCII");
    return `holds U+${cp.toString(16).toUpperCase().padStart(4, "0")} (${name})`;
  }
  if (/^ +$/.test(line)) return "holds only spaces";
  if (line.startsWith(" ")) return "starts with a space";
  if (line.endsWith(" ")) return "ends with a space";
  return null;
}

function _bad(label: string, o: { why: string; what: string | undefined }): never {
  throw new InputError(
    "BAD_PEM",
    o.what === undefined
      ? `Cannot read PEM '${label}': ${o.why}`
      : `Cannot use ${o.what}: ${o.why}`,
  );
}
