/**
 * Ed25519 note signatures (type 0x01, c2sp.org/signed-note) and timestamped Ed25519 checkpoint
 * cosignatures (type 0x04, c2sp.org/tlog-cosignature): making and verifying them.
 *
 * A cosignature signs `"cosignature/v1\ntime <t>\n" || note text` and carries
 * `u64be(t) || Ed25519 signature`; `t` is POSIX seconds.
 *
 * @module
 */
import { sign, verify } from "../signature.ts";
import { publicKeyFromPrivate } from "../generate_key_pair.ts";
import {
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  noteKeyId,
  type NoteVerifierKey,
} from "./note_key.ts";
import type { NoteSignature, SignedNote } from "./signed_note.ts";

/** Who signs a note. */
export interface NoteSigner {
  /** Key name. */
  readonly name: string;
  /** 32-byte Ed25519 private key (seed). */
  readonly privateKey: Uint8Array;
}

/**
 * Latest cosignature time read or written: 9999-12-31T23:59:59Z in POSIX seconds, the last instant
 * an RFC 3339 `date-time` (four-digit year) can state. The spec allows up to 2^63 - 1, but a
 * verdict records the time in RFC 3339, so a later one could never be written down.
 */
export const MAX_COSIGNATURE_TIME = 253_402_300_799;

/** Outcome of {@link verifyNote}. */
export interface NoteVerification {
  /** True when at least one known key verified and no known key's signature failed. */
  readonly verified: boolean;
  /**
   * Set when `verified` is false; `bad-timestamp`: a known key's cosignature states a time after
   * {@link MAX_COSIGNATURE_TIME}.
   */
  readonly reason?: "no-known-signature" | "bad-signature" | "bad-timestamp";
  /** The known keys whose signatures verified, with a cosignature's timestamp (POSIX s). */
  readonly verifiedBy: readonly { readonly key: NoteVerifierKey; readonly timestamp?: number }[];
}

/**
 * Signs a note text with a plain Ed25519 note signature (type 0x01).
 *
 * @param text note text ending with a newline
 * @param signer key name and private key
 * @returns the signature line's content
 * @example
 * ```ts
 * import { signNoteEd25519 } from "./note_signature.ts";
 * const s = await signNoteEd25519("hi\n", { name: "a", privateKey: new Uint8Array(32) });
 * if (s.signature.length !== 64) throw new Error();
 * ```
 */
export async function signNoteEd25519(text: string, signer: NoteSigner): Promise<NoteSignature> {
  const publicKey = await publicKeyFromPrivate(signer.privateKey);
  return Object.freeze({
    name: signer.name,
    keyId: noteKeyId(signer.name, { type: NOTE_ED25519, publicKey }),
    signature: await sign(new TextEncoder().encode(text), signer.privateKey),
  });
}

/**
 * Signs a checkpoint text with a timestamped Ed25519 cosignature (type 0x04).
 *
 * @param text checkpoint note text
 * @param signer key name, private key and `timestamp` (POSIX seconds, integer, at most
 *   {@link MAX_COSIGNATURE_TIME})
 * @returns the signature line's content (8-byte timestamp then 64-byte signature)
 * @throws {RangeError} when the timestamp is not an integer from 0 to `MAX_COSIGNATURE_TIME`
 * @example
 * ```ts
 * import { cosignNoteEd25519 } from "./note_signature.ts";
 * const s = await cosignNoteEd25519("o\n1\nAA==\n", {
 *   name: "w", privateKey: new Uint8Array(32), timestamp: 1679315147,
 * });
 * if (s.signature.length !== 72) throw new Error();
 * ```
 */
export async function cosignNoteEd25519(
  text: string,
  signer: NoteSigner & { readonly timestamp: number },
): Promise<NoteSignature> {
  const t = signer.timestamp;
  if (!Number.isSafeInteger(t) || t < 0 || t > MAX_COSIGNATURE_TIME) {
    throw new RangeError(
      `Cannot cosign: timestamp ${t} is not an integer from 0 to ${MAX_COSIGNATURE_TIME} ` +
        "(9999-12-31T23:59:59Z)",
    );
  }
  const publicKey = await publicKeyFromPrivate(signer.privateKey);
  const sig = await sign(_cosignedMessage(text, t), signer.privateKey);
  const out = new Uint8Array(72);
  new DataView(out.buffer).setBigUint64(0, BigInt(t));
  out.set(sig, 8);
  return Object.freeze({
    name: signer.name,
    keyId: noteKeyId(signer.name, { type: NOTE_COSIGNATURE_ED25519, publicKey }),
    signature: out,
  });
}

/**
 * Verifies a signed note against known keys, with the signed-note rules: signature lines whose
 * (name, key ID) match no known key are ignored; a matching line that fails to verify rejects the
 * note; at least one known key must verify.
 *
 * @param note parsed signed note
 * @param keys known verifier keys (types 0x01 and 0x04)
 * @returns the verification with the keys that signed and cosignature timestamps
 * @example
 * ```ts
 * import { parseSignedNote } from "./signed_note.ts";
 * import { parseVerifierKey } from "./note_key.ts";
 * import { verifyNote } from "./note_signature.ts";
 * // c2sp.org/signed-note, "Example".
 * const key = parseVerifierKey("example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k");
 * const note = parseSignedNote("This is an example message.\n\n\u2014 example.com/foo " +
 *   "Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n");
 * if (!(await verifyNote(note, [key])).verified) throw new Error();
 * ```
 */
export async function verifyNote(
  note: SignedNote,
  keys: readonly NoteVerifierKey[],
): Promise<NoteVerification> {
  const verifiedBy: { key: NoteVerifierKey; timestamp?: number }[] = [];
  for (const s of note.signatures) {
    const key = keys.find((k) => k.name === s.name && k.keyId === s.keyId);
    if (key === undefined) continue;
    const ok = await _verifyOne(note.text, s, key);
    if (ok === false || ok === "bad-timestamp") {
      const reason = ok === false ? "bad-signature" : ok;
      return Object.freeze({ verified: false, reason, verifiedBy });
    }
    verifiedBy.push(ok);
  }
  if (verifiedBy.length === 0) {
    return Object.freeze({ verified: false, reason: "no-known-signature", verifiedBy });
  }
  return Object.freeze({ verified: true, verifiedBy: Object.freeze(verifiedBy) });
}

async function _verifyOne(
  text: string,
  s: NoteSignature,
  key: NoteVerifierKey,
): Promise<{ key: NoteVerifierKey; timestamp?: number } | "bad-timestamp" | false> {
  const bytes = new TextEncoder().encode(text);
  if (key.type === NOTE_ED25519) {
    if (s.signature.length !== 64) return false;
    return await verify(bytes, { signature: s.signature, publicKey: key.publicKey }) && { key };
  }
  if (key.type !== NOTE_COSIGNATURE_ED25519 || s.signature.length !== 72) return false;
  const t = new DataView(s.signature.buffer, s.signature.byteOffset).getBigUint64(0);
  // The spec caps the timestamp at 2^63 - 1; a verdict writes it as an RFC 3339 time, which
  // stops at the year 9999 (a later one would fail every command that records or compares it).
  if (t > BigInt(MAX_COSIGNATURE_TIME)) return "bad-timestamp";
  const signature = s.signature.slice(8);
  const ok = await verify(_cosignedMessage(text, Number(t)), {
    signature,
    publicKey: key.publicKey,
  });
  return ok && { key, timestamp: Number(t) };
}

function _cosignedMessage(text: string, t: number): Uint8Array {
  return new TextEncoder().encode(`cosignature/v1\ntime ${t}\n${text}`);
}
