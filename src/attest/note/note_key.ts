/**
 * Signed-note key names, key IDs and verifier keys (c2sp.org/signed-note).
 *
 * `key ID = SHA-256(key name || 0x0A || signature type || public key)[:4]`, read as a big-endian
 * uint32; a verifier key ("vkey") is `<name>+<hex key ID>+<base64(type || public key)>`.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { InputError } from "../../errors.ts";
import { decodeBase64, encodeBase64 } from "../base64.ts";

/** Signature type byte of plain Ed25519 note signatures. */
export const NOTE_ED25519 = 0x01;
/** Signature type byte of timestamped Ed25519 cosignatures (c2sp.org/tlog-cosignature). */
export const NOTE_COSIGNATURE_ED25519 = 0x04;

/** A note verifier key: name, type, 32-byte Ed25519 public key, and its key ID. */
export interface NoteVerifierKey {
  /** Key name (no spaces, no `+`). */
  readonly name: string;
  /** Signature type byte: {@link NOTE_ED25519} or {@link NOTE_COSIGNATURE_ED25519}. */
  readonly type: number;
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** uint32 key ID. */
  readonly keyId: number;
}

/**
 * Whether a string may be a note key name: non-empty, no Unicode spaces, no `+`, no control
 * characters.
 *
 * @param name candidate
 * @returns true when valid
 * @example
 * ```ts
 * import { isNoteKeyName } from "./note_key.ts";
 * if (!isNoteKeyName("example.com/foo") || isNoteKeyName("a b")) throw new Error();
 * ```
 */
export function isNoteKeyName(name: string): boolean {
  // deno-lint-ignore no-control-regex
  return name.length > 0 && name.length <= 1024 && !/[\s+\u0000-\u001f\u007f]/u.test(name);
}

/**
 * Computes a note key ID.
 *
 * @param name key name
 * @param options signature `type` byte and the 32-byte Ed25519 `publicKey`
 * @returns the uint32 key ID
 * @throws {RangeError} when the name is not a valid key name or the key is not 32 bytes
 * @example
 * ```ts
 * import { noteKeyId, NOTE_ED25519 } from "./note_key.ts";
 * import { decodeBase64 } from "../base64.ts";
 * const pk = decodeBase64("AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k").slice(1);
 * // c2sp.org/signed-note example: example.com/foo+530d903a+...
 * if (noteKeyId("example.com/foo", { type: NOTE_ED25519, publicKey: pk }) !== 0x530d903a) {
 *   throw new Error();
 * }
 * ```
 */
export function noteKeyId(name: string, options: { type: number; publicKey: Uint8Array }): number {
  if (!isNoteKeyName(name)) throw new RangeError(`Cannot compute key ID: bad key name`);
  if (options.publicKey.length !== 32) {
    throw new RangeError(`Cannot compute key ID: public key must be 32 bytes`);
  }
  const nameBytes = new TextEncoder().encode(name);
  const buf = new Uint8Array(nameBytes.length + 2 + 32);
  buf.set(nameBytes, 0);
  buf[nameBytes.length] = 0x0a;
  buf[nameBytes.length + 1] = options.type;
  buf.set(options.publicKey, nameBytes.length + 2);
  return new DataView(sha256(buf).buffer).getUint32(0);
}

/**
 * Builds a verifier key for an Ed25519 public key.
 *
 * @param name key name
 * @param options `type` byte and 32-byte `publicKey`
 * @returns the key with its ID
 * @throws {RangeError} as {@link noteKeyId}
 * @example
 * ```ts
 * import { noteVerifierKey, NOTE_ED25519 } from "./note_key.ts";
 * const k = noteVerifierKey("x", { type: NOTE_ED25519, publicKey: new Uint8Array(32) });
 * if (k.name !== "x") throw new Error();
 * ```
 */
export function noteVerifierKey(
  name: string,
  options: { type: number; publicKey: Uint8Array },
): NoteVerifierKey {
  return Object.freeze({
    name,
    type: options.type,
    publicKey: options.publicKey.slice(),
    keyId: noteKeyId(name, options),
  });
}

/**
 * Encodes a verifier key as text: `<name>+<8 hex digits>+<base64(type || public key)>`.
 *
 * @param key the verifier key
 * @returns vkey text
 * @example
 * ```ts
 * import { formatVerifierKey, parseVerifierKey } from "./note_key.ts";
 * const text = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";
 * if (formatVerifierKey(parseVerifierKey(text)) !== text) throw new Error();
 * ```
 */
export function formatVerifierKey(key: NoteVerifierKey): string {
  const material = new Uint8Array(33);
  material[0] = key.type;
  material.set(key.publicKey, 1);
  return `${key.name}+${key.keyId.toString(16).padStart(8, "0")}+${encodeBase64(material)}`;
}

/**
 * Parses a verifier key for an Ed25519 type (0x01 or 0x04), checking that its stated key ID is
 * the one its name and key give.
 *
 * @param text vkey text
 * @returns the verifier key
 * @throws {InputError} `BAD_NOTE_KEY` when the text is malformed, the type is not Ed25519, the
 *   key is not 32 bytes or the key ID does not match
 * @example
 * ```ts
 * import { parseVerifierKey } from "./note_key.ts";
 * const k = parseVerifierKey("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW");
 * if (k.keyId !== 0xc74f20a3) throw new Error();
 * ```
 */
export function parseVerifierKey(text: string): NoteVerifierKey {
  // The base64 key may itself hold '+': split at the first two only.
  const m = /^([^+]*)\+([^+]*)\+(.*)$/s.exec(text);
  if (m === null) _bad("expected <name>+<hex id>+<base64 key>");
  const [name, id, b64] = [m[1]!, m[2]!, m[3]!];
  if (!isNoteKeyName(name)) _bad("bad key name");
  if (!/^[0-9a-f]{8}$/.test(id)) _bad("the key ID is not 8 lowercase hex digits");
  let material: Uint8Array;
  try {
    material = decodeBase64(b64, { alphabet: "standard" });
  } catch {
    return _bad("the key is not base64");
  }
  const type = material[0];
  if (type !== NOTE_ED25519 && type !== NOTE_COSIGNATURE_ED25519) {
    _bad("the signature type is not Ed25519 (0x01) or an Ed25519 cosignature (0x04)");
  }
  if (material.length !== 33) _bad("an Ed25519 key must be 32 bytes");
  const key = noteVerifierKey(name, { type: type as number, publicKey: material.slice(1) });
  if (key.keyId !== parseInt(id, 16)) _bad("the key ID does not match the name and key");
  return key;
}

function _bad(why: string): never {
  throw new InputError("BAD_NOTE_KEY", `Cannot read note verifier key: ${why}`);
}
