/**
 * Strict base64 (RFC 4648 §4) and base64url (§5) for DSSE payloads, signatures and key material.
 *
 * Decoding refuses anything that is not the one canonical encoding of some bytes: characters
 * outside the alphabet, whitespace, misplaced or wrong padding, and non-zero unused bits in the
 * last character (so two different strings never decode to the same bytes).
 *
 * @module
 */
import { InputError } from "../errors.ts";

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Which alphabet {@link decodeBase64} accepts. */
export type Base64Alphabet = "standard" | "url" | "any";

/** Options of {@link decodeBase64}. */
export interface DecodeBase64Options {
  /**
   * `"standard"` (`+/`, padding required), `"url"` (`-_`, padding optional but, when present,
   * complete) or `"any"` (default: either of the two, as DSSE requires, but never mixed).
   */
  readonly alphabet?: Base64Alphabet;
}

/**
 * Encodes bytes as standard base64 with padding (RFC 4648 §4).
 *
 * @param bytes data to encode
 * @returns base64 text
 * @throws {TypeError} when `bytes` is not a `Uint8Array`
 * @example
 * ```ts
 * import { encodeBase64 } from "./base64.ts";
 * if (encodeBase64(new TextEncoder().encode("foob")) !== "Zm9vYg==") throw new Error();
 * ```
 */
export function encodeBase64(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("Cannot encode base64: not a Uint8Array");
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = bytes.length - i;
    const v = ((bytes[i] as number) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += STD[(v >> 18) & 0b111111] as string;
    out += STD[(v >> 12) & 0b111111] as string;
    out += n > 1 ? STD[(v >> 6) & 0b111111] as string : "=";
    out += n > 2 ? STD[v & 0b111111] as string : "=";
  }
  return out;
}

/**
 * Decodes strict base64 or base64url.
 *
 * @param text encoded text
 * @param options `alphabet` (default `"any"`)
 * @returns the decoded bytes
 * @throws {InputError} `BAD_BASE64` when the text is not a canonical encoding in the alphabet
 * @example
 * ```ts
 * import { decodeBase64 } from "./base64.ts";
 * const a = decodeBase64("+/8=");
 * const b = decodeBase64("-_8");
 * if (a.length !== 2 || a[0] !== 0xfb || a[1] !== 0xff || b[0] !== 0xfb) throw new Error();
 * ```
 */
export function decodeBase64(text: string, options: DecodeBase64Options = {}): Uint8Array {
  if (typeof text !== "string") _bad("not a string");
  const alphabet = _pickAlphabet(text, options.alphabet ?? "any");
  let pad = 0; // trailing '=' counted from the end (a regex here would backtrack quadratically)
  while (pad < 3 && text.charCodeAt(text.length - 1 - pad) === 0x3d) pad++;
  const body = text.slice(0, text.length - pad);
  if (pad > 2) _bad("more than two padding characters");
  if (pad > 0 && text.length % 4 !== 0) _bad("padding does not complete a 4-character group");
  if (pad === 0 && alphabet === STD && text.length % 4 !== 0) _bad("missing padding");
  if (body.length % 4 === 1) _bad("length leaves a dangling character");
  const out = new Uint8Array(Math.floor((body.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < body.length; i++) {
    const v = alphabet.indexOf(body[i] as string);
    if (v < 0) _bad(`character ${JSON.stringify(body[i])} at offset ${i} is not in the alphabet`);
    acc = ((acc << 6) | v) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) _bad("unused bits of the last character are not zero");
  return out;
}

function _pickAlphabet(text: string, wanted: Base64Alphabet): string {
  const hasStd = /[+/]/.test(text);
  const hasUrl = /[-_]/.test(text);
  if (wanted === "standard") return STD;
  if (wanted === "url") return URL_SAFE;
  if (hasStd && hasUrl) _bad("mixes the standard and URL-safe alphabets");
  // Text without any of `+/-_` decodes the same in both; unpadded text can only be base64url.
  const unpadded = !text.endsWith("=") && text.length % 4 !== 0;
  return hasUrl || (!hasStd && unpadded) ? URL_SAFE : STD;
}

function _bad(why: string): never {
  throw new InputError("BAD_BASE64", `Cannot decode base64: ${why}`);
}
