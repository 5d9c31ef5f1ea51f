/**
 * C2SP signed notes (c2sp.org/signed-note) with Ed25519 signatures and timestamped Ed25519
 * cosignatures (c2sp.org/tlog-cosignature), and prover-signed `tlog-checkpoint`s.
 *
 * @example
 * ```ts
 * import { signCheckpoint, verifyCheckpoint } from "./mod.ts";
 * import { generateKeyPair } from "../generate_key_pair.ts";
 * const prover = await generateKeyPair();
 * const note = await signCheckpoint(
 *   { origin: "bitaudit.example/log", treeSize: 0, rootHash: new Uint8Array(32), extensions: [] },
 *   { privateKey: prover.privateKey, time: 1700000000 },
 * );
 * if (!(await verifyCheckpoint(note, [prover.publicKey])).verified) throw new Error();
 * ```
 * @module
 */
export {
  formatVerifierKey,
  isNoteKeyName,
  NOTE_COSIGNATURE_ED25519,
  NOTE_ED25519,
  noteKeyId,
  type NoteVerifierKey,
  noteVerifierKey,
  parseVerifierKey,
} from "./note_key.ts";
export {
  formatSignedNote,
  MAX_NOTE_CHARS,
  MAX_NOTE_SIGNATURES,
  type NoteSignature,
  parseSignedNote,
  type SignedNote,
} from "./signed_note.ts";
export {
  cosignNoteEd25519,
  MAX_COSIGNATURE_TIME,
  type NoteSigner,
  type NoteVerification,
  signNoteEd25519,
  verifyNote,
} from "./note_signature.ts";
export {
  type CheckpointVerification,
  signCheckpoint,
  verifyCheckpoint,
} from "./signed_checkpoint.ts";
export { type CheckpointBinding, checkpointBinding } from "./checkpoint_binding.ts";
