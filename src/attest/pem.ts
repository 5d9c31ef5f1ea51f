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
 * block, and base64 lines of any length up to 76; refuses empty text (said so, as a key file left
 * empty is a common slip), explanatory text, headers, a different label, several blocks and
 * non-canonical base64, each by name (another label with what to do: an encrypted or OpenSSH
 * key). Every line holds printable ASCII only, neither
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
  if (lines.length === 0) bad(text === "" ? "it is empty" : "it holds only blank lines");
  for (const [i, line] of lines.entries()) {
    const why = _lineProblem(line);
    if (why !== null) bad(`line ${first + i + 1} ${why}`);
  }
  const problem = _armorProblem(lines, label);
  if (problem !== null) {
    bad(
      problem.line === undefined ? problem.why : `line ${first + problem.line + 1} ${problem.why}`,
    );
  }
  const body = lines.slice(1, -1);
  try {
    return decodeBase64(body.join(""), { alphabet: "standard" });
  } catch (e) {
    if (e instanceof InputError) bad(e.message);
    throw e;
  }
}

/**
 * What is wrong with the armor of printable lines, or null: one BEGIN line first, one END line
 * last, both with `label`, and base64 lines between them. `line` indexes `lines`.
 */
function _armorProblem(
  lines: readonly string[],
  label: string,
): { line?: number; why: string } | null {
  const [begin, end] = [`-----BEGIN ${label}-----`, `-----END ${label}-----`];
  const begins = lines.flatMap((l, i) => l.startsWith("-----BEGIN ") ? [i] : []);
  if (begins.length === 0) return { why: `it has no BEGIN line (${begin})` };
  if (begins.length > 1) return { why: `it holds ${begins.length} PEM blocks, not one` };
  if (begins[0] !== 0) return { line: 0, why: "is text before the BEGIN line" };
  if (lines[0] !== begin) {
    // Another block's label is named (a private key given for a public one is a common slip).
    const other = /^-----BEGIN ([A-Z0-9 ]{1,40})-----$/.exec(lines[0]!)?.[1];
    return other === undefined
      ? { line: 0, why: `is not the BEGIN line ${begin}` }
      : { why: _otherBlock(other, label) };
  }
  const last = lines.findIndex((l) => l.startsWith("-----END "));
  if (last === -1) return { why: `it has no END line (${end})` };
  if (lines[last] !== end) return { line: last, why: `is not the END line ${end}` };
  if (last < lines.length - 1) return { line: last + 1, why: "is text after the END line" };
  if (last === 1) return { why: "the block is empty" };
  for (let i = 1; i < last; i++) {
    const line = lines[i]!;
    if (line === "") return { line: i, why: "is blank, inside the block" };
    // RFC 1421 headers (Proc-Type, DEK-Info: a legacy encrypted key) are not strict PEM.
    if (/^[A-Za-z][A-Za-z0-9-]*:/.test(line)) {
      return { line: i, why: "is a header, which strict PEM does not carry" };
    }
    if (line.length > 76) return { line: i, why: "is longer than 76 characters" };
    if (!/^[A-Za-z0-9+/=]+$/.test(line)) return { line: i, why: "is not base64" };
  }
  return null;
}

/** Says which block it is, with what to do about the common ones. */
function _otherBlock(other: string, label: string): string {
  const article = /^(?:[AEIOU]|RSA |X509 |SSH2 )/.test(other) ? "an" : "a";
  const hint = label === "PRIVATE KEY" ? _PRIVATE_KEY_HINTS[other] : undefined;
  return `it is ${article} ${other} block${hint ?? ""}`;
}

/**
 * What to do with a block read where an Ed25519 "PRIVATE KEY" is expected. `openssl pkey` writes
 * the unencrypted PKCS#8 (mode 0600); ssh-keygen (OpenSSH 9.2) keeps Ed25519 keys in its own
 * format even with `-m PKCS8`, so a new key is the way.
 */
const _PRIVATE_KEY_HINTS: Readonly<Record<string, string>> = {
  "ENCRYPTED PRIVATE KEY":
    " (encrypted with a pass phrase): decrypt it with openssl pkey -in <file> -out <new file>",
  "OPENSSH PRIVATE KEY": " (OpenSSH's own format, which ssh-keygen does not convert for " +
    "Ed25519 keys): make a PKCS#8 key with bitaudit key generate",
  "PUBLIC KEY": " (a .pub file): give the private key",
  "RSA PRIVATE KEY": ", not an Ed25519 key",
  "EC PRIVATE KEY": ", not an Ed25519 key",
  "DSA PRIVATE KEY": ", not an Ed25519 key",
};

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
