/**
 * Prover-signed log checkpoints: a C2SP `tlog-checkpoint` in a signed note with the prover's
 * Ed25519 note signature (type 0x01, key name = origin) and a timestamped Ed25519 cosignature by
 * the same key (type 0x04, c2sp.org/tlog-cosignature) that states when the prover signed.
 *
 * The same key under two signature types is allowed by c2sp.org/signed-note with a distinct key
 * ID per type (which the type byte in the key ID gives); the cosignature's `cosignature/v1`
 * header separates the two signed messages. The time is the prover's own statement.
 *
 * @module
 */
import { type Checkpoint, formatCheckpoint, parseCheckpoint } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import { NOTE_COSIGNATURE_ED25519, NOTE_ED25519, noteVerifierKey } from "./note_key.ts";
import { cosignNoteEd25519, signNoteEd25519, verifyNote } from "./note_signature.ts";
import { formatSignedNote, parseSignedNote } from "./signed_note.ts";

/** Outcome of {@link verifyCheckpoint}. */
export interface CheckpointVerification {
  /** True when a trusted key's note signature verified and no trusted key's signature failed. */
  readonly verified: boolean;
  /** Set when `verified` is false (see `NoteVerification`). */
  readonly reason?: "no-known-signature" | "bad-signature" | "bad-timestamp";
  /** The parsed checkpoint (meaningful only when verified). */
  readonly checkpoint: Checkpoint;
  /** Public key whose note signature verified. */
  readonly publicKey?: Uint8Array;
  /** POSIX seconds from that key's verified cosignature, when there is one. */
  readonly signedAt?: number;
}

/**
 * Signs a checkpoint as its log's prover.
 *
 * @param cp the checkpoint (origin, size, root)
 * @param signer 32-byte Ed25519 `privateKey` and `time` (POSIX seconds) of signing
 * @returns the signed note text
 * @throws {RangeError} on a malformed checkpoint or time
 * @example
 * ```ts
 * import { signCheckpoint, verifyCheckpoint } from "./signed_checkpoint.ts";
 * import { publicKeyFromPrivate } from "../generate_key_pair.ts";
 * const privateKey = new Uint8Array(32).fill(7);
 * const note = await signCheckpoint(
 *   { origin: "example.com/log", treeSize: 0, rootHash: new Uint8Array(32), extensions: [] },
 *   { privateKey, time: 1700000000 },
 * );
 * const v = await verifyCheckpoint(note, [await publicKeyFromPrivate(privateKey)]);
 * if (!v.verified || v.signedAt !== 1700000000) throw new Error();
 * ```
 */
export async function signCheckpoint(
  cp: Checkpoint,
  signer: { readonly privateKey: Uint8Array; readonly time: number },
): Promise<string> {
  const text = formatCheckpoint(cp);
  const name = cp.origin;
  const plain = await signNoteEd25519(text, { name, privateKey: signer.privateKey });
  const co = await cosignNoteEd25519(text, {
    name,
    privateKey: signer.privateKey,
    timestamp: signer.time,
  });
  return formatSignedNote({ text, signatures: [plain, co] });
}

/**
 * Verifies a signed checkpoint against trusted Ed25519 public keys, the key name being the
 * checkpoint's origin.
 *
 * @param note signed note text
 * @param publicKeys trusted 32-byte Ed25519 keys (the trust root's prover keys)
 * @returns the verification, with the checkpoint, the key and the signing time
 * @throws {InputError} `BAD_NOTE` or `BAD_CHECKPOINT` when the note or its text is malformed
 * @example
 * ```ts
 * import { verifyCheckpoint } from "./signed_checkpoint.ts";
 * const note = "o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n\n\u2014 o AAAAAQA=\n";
 * if ((await verifyCheckpoint(note, [])).verified) throw new Error();
 * ```
 */
export async function verifyCheckpoint(
  note: string,
  publicKeys: readonly Uint8Array[],
): Promise<CheckpointVerification> {
  const signed = parseSignedNote(note);
  const checkpoint = parseCheckpoint(signed.text);
  const name = checkpoint.origin;
  if (!/^\S+$/u.test(name) || name.includes("+")) {
    throw new InputError(
      "BAD_CHECKPOINT",
      "Cannot read checkpoint: the origin cannot be a note key name (spaces or '+')",
    );
  }
  const keys = publicKeys.flatMap((publicKey) => [
    noteVerifierKey(name, { type: NOTE_ED25519, publicKey }),
    noteVerifierKey(name, { type: NOTE_COSIGNATURE_ED25519, publicKey }),
  ]);
  const v = await verifyNote(signed, keys);
  const plain = v.verifiedBy.find((s) => s.key.type === NOTE_ED25519);
  if (!v.verified || plain === undefined) {
    return Object.freeze({
      verified: false,
      reason: v.reason ?? "no-known-signature",
      checkpoint,
    });
  }
  const co = v.verifiedBy.find((s) =>
    s.key.type === NOTE_COSIGNATURE_ED25519 && _same(s.key.publicKey, plain.key.publicKey)
  );
  return Object.freeze({
    verified: true,
    checkpoint,
    publicKey: plain.key.publicKey,
    ...(co?.timestamp === undefined ? {} : { signedAt: co.timestamp }),
  });
}

function _same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
