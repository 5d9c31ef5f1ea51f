/**
 * The signed-note container (c2sp.org/signed-note): note text ending in a newline, a blank line,
 * then signature lines `— <key name> <base64(uint32be key ID || signature)>`.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import { decodeBase64, encodeBase64 } from "../base64.ts";
import { isNoteKeyName } from "./note_key.ts";

/** Upper bound on a signed note's length in UTF-16 code units (checkpoints are a few hundred). */
export const MAX_NOTE_CHARS = 64 * 1024;
/** Most signature lines accepted (the spec asks verifiers to accept at least 16). */
export const MAX_NOTE_SIGNATURES = 64;

/** One signature line. */
export interface NoteSignature {
  /** Key name. */
  readonly name: string;
  /** uint32 key ID (first four bytes of the decoded signature). */
  readonly keyId: number;
  /** The signature bytes after the key ID. */
  readonly signature: Uint8Array;
}

/** A parsed signed note. */
export interface SignedNote {
  /** Note text, including its final newline. */
  readonly text: string;
  /** Signature lines in order. */
  readonly signatures: readonly NoteSignature[];
}

/**
 * Formats a signed note.
 *
 * @param note text (ending with a newline) and signatures
 * @returns the note with its signature block
 * @throws {RangeError} when the text does not end with a newline or holds control characters, or
 *   a key name is invalid
 * @example
 * ```ts
 * import { formatSignedNote } from "./signed_note.ts";
 * const text = formatSignedNote({
 *   text: "hi\n", signatures: [{ name: "a", keyId: 1, signature: new Uint8Array(1) }],
 * });
 * if (text !== "hi\n\n— a AAAAAQA=\n") throw new Error();
 * ```
 */
export function formatSignedNote(note: SignedNote): string {
  if (!note.text.endsWith("\n") || _CONTROL.test(note.text)) {
    throw new RangeError("Cannot format note: text must end with a newline, no control characters");
  }
  const lines = note.signatures.map((s) => {
    if (!isNoteKeyName(s.name)) throw new RangeError("Cannot format note: bad key name");
    const raw = new Uint8Array(4 + s.signature.length);
    new DataView(raw.buffer).setUint32(0, s.keyId);
    raw.set(s.signature, 4);
    return `\u2014 ${s.name} ${encodeBase64(raw)}\n`;
  });
  return `${note.text}\n${lines.join("")}`;
}

/**
 * Parses a signed note strictly (without verifying any signature).
 *
 * @param text the whole note
 * @returns text and signature lines
 * @throws {InputError} `BAD_NOTE` when the input is not a string, the note is too long, holds
 *   control characters other than newline, has no signature block, a malformed signature line,
 *   or too many signatures
 * @example
 * ```ts
 * import { parseSignedNote } from "./signed_note.ts";
 * const n = parseSignedNote("hi\n\n— a AAAAAQA=\n");
 * if (n.text !== "hi\n" || n.signatures[0]?.keyId !== 1) throw new Error();
 * ```
 */
export function parseSignedNote(text: string): SignedNote {
  if (typeof text !== "string") _bad("input is not text");
  if (text.length > MAX_NOTE_CHARS) _bad(`longer than ${MAX_NOTE_CHARS} characters`);
  if (_CONTROL.test(text)) _bad("control characters other than newline");
  if (!text.endsWith("\n")) _bad("does not end with a newline");
  const split = text.lastIndexOf("\n\n");
  if (split < 0) _bad("no blank line before the signatures");
  const body = text.slice(0, split + 1);
  const lines = text.slice(split + 2, -1).split("\n");
  if (lines.length > MAX_NOTE_SIGNATURES) _bad(`more than ${MAX_NOTE_SIGNATURES} signatures`);
  const signatures = lines.map((line) => {
    const m = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)$/u.exec(line);
    if (m === null || !isNoteKeyName(m[1] as string)) _bad("malformed signature line");
    let raw: Uint8Array;
    try {
      raw = decodeBase64(m[2] as string, { alphabet: "standard" });
    } catch {
      return _bad("signature is not base64");
    }
    if (raw.length < 5) _bad("signature shorter than a key ID and one byte");
    return Object.freeze({
      name: m[1] as string,
      keyId: new DataView(raw.buffer, raw.byteOffset).getUint32(0),
      signature: raw.slice(4),
    });
  });
  return Object.freeze({ text: body, signatures: Object.freeze(signatures) });
}

// deno-lint-ignore no-control-regex
const _CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/;

function _bad(why: string): never {
  throw new InputError("BAD_NOTE", `Cannot read signed note: ${why}`);
}
