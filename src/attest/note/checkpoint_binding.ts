/**
 * What an attestation records about the prover's signed checkpoint: the whole signed note (so
 * `check` re-verifies the prover's signature against the trust root) and the fields read from it.
 *
 * @module
 */
import { bytesToHex } from "../../claims/mod.ts";
import { keyId } from "../key_id.ts";
import type { CheckpointVerification } from "./signed_checkpoint.ts";

/** The `audit.checkpoint` object of a verdict predicate. */
export interface CheckpointBinding {
  /** The signed note, verbatim. */
  readonly note: string;
  /** Origin line. */
  readonly origin: string;
  /** Tree size. */
  readonly treeSize: number;
  /** Root hash, lowercase hex (the log root). */
  readonly rootHash: string;
  /** Signing time from the prover's cosignature, RFC 3339 UTC. */
  readonly signedAt: string;
  /** `keyId` (SHA-256 of the SPKI) of the prover key that signed. */
  readonly proverKeyId: string;
}

/**
 * Builds the binding of a verified checkpoint.
 *
 * @param note signed note text
 * @param v its verification (must be verified, with a key and a signing time)
 * @returns the binding
 * @throws {TypeError} when `v` is not a verified checkpoint with a signing time
 * @example
 * ```ts ignore
 * const binding = checkpointBinding(note, await verifyCheckpoint(note, [proverKey]));
 * ```
 */
export function checkpointBinding(note: string, v: CheckpointVerification): CheckpointBinding {
  if (!v.verified || v.publicKey === undefined || v.signedAt === undefined) {
    throw new TypeError("Cannot bind checkpoint: it is not verified or has no signing time");
  }
  return {
    note,
    origin: v.checkpoint.origin,
    treeSize: v.checkpoint.treeSize,
    rootHash: bytesToHex(v.checkpoint.rootHash),
    signedAt: new Date(v.signedAt * 1000).toISOString().replace(/\.000Z$/, "Z"),
    proverKeyId: keyId(v.publicKey),
  };
}
