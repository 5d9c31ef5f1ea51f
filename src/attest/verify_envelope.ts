/**
 * Verification of DSSE envelopes against a set of trusted Ed25519 keys.
 *
 * @module
 */
import { decodeBase64 } from "./base64.ts";
import type { DsseEnvelope } from "./dsse.ts";
import { snapshotEnvelope } from "./_envelope_snapshot.ts";
import { _check } from "./generate_key_pair.ts";
import { keyId } from "./key_id.ts";
import { pae } from "./pae.ts";
import { verify } from "./signature.ts";

/**
 * Most bytes one envelope's signature checks hash in all (each check hashes the whole
 * pre-authentication encoding of the payload): 1 GiB, hundreds of checks of an ordinary verdict
 * and about twenty of the largest envelope. Checks with the key an entry's `keyid` names come
 * first, so an honest envelope is checked whole; entries beyond the budget stay unverified.
 */
export const MAX_VERIFY_BYTES = 2 ** 30;

/** Options of {@link verifyEnvelope}. */
export interface VerifyEnvelopeOptions {
  /** Public keys (32 bytes each) allowed to sign, already filtered for validity and role. */
  readonly trustedKeys: readonly Uint8Array[];
  /** Distinct trusted keys needed for `verified` (default 1). */
  readonly threshold?: number;
  /** Most bytes the signature checks hash in all (default {@link MAX_VERIFY_BYTES}). */
  readonly maxHashBytes?: number;
}

/** Outcome for one signature entry. */
export interface SignatureResult {
  /** The entry's `keyid` hint, as given (unauthenticated). */
  readonly keyid: string;
  /** Whether a trusted key verifies this signature. */
  readonly valid: boolean;
  /** Key id of the trusted key that verified it, or `null`. */
  readonly verifiedBy: string | null;
  /** Why it is not valid (absent when valid). */
  readonly reason?: string;
  /**
   * Set by `checkAttestation` only: the trusted key whose signature this is, refused because the
   * key is not valid at a time the entry is judged at (a trust-root window, not a forgery).
   */
  readonly refusedKey?: string;
}

/** Outcome for the whole envelope. */
export interface EnvelopeVerification {
  /** Whether at least `threshold` distinct trusted keys signed. */
  readonly verified: boolean;
  /** The payload type that was bound into the signatures. */
  readonly payloadType: string;
  /** The payload bytes that were verified: parse these, never the envelope again. */
  readonly payload: Uint8Array;
  /** One result per signature entry, in envelope order. */
  readonly signatures: readonly SignatureResult[];
  /** Distinct key ids of trusted keys with a valid signature, in first-seen order. */
  readonly validKeyIds: readonly string[];
}

/**
 * Verifies every signature of an envelope over `PAE(payloadType, payload)`.
 *
 * The `keyid` of an entry is only a hint: every entry is tried with its hinted trusted key first,
 * then with every other trusted key, so a hint alone never makes a signature count, and a wrong or
 * missing hint makes a good signature fail only past {@link MAX_VERIFY_BYTES} of hashing (many
 * entries and keys over a large payload). A signature counts only if a trusted key verifies it
 * (strict RFC 8032). The envelope's fields are read once, into a copy that every check reads: the
 * payload returned is the one the signatures were verified over, whatever the object handed over
 * does on a second read.
 *
 * @param envelope a parsed envelope (see `parseEnvelope`)
 * @param options `trustedKeys`, `threshold` and `maxHashBytes`
 * @returns per-signature results, the distinct signers and the verified payload bytes
 * @throws {RangeError} when a trusted key is not 32 bytes, `threshold` is not an integer ≥ 1 or
 *   `maxHashBytes` not one ≥ 0
 * @throws {InputError} `BAD_ENVELOPE` when it is not an object of an envelope's JSON types (at most
 *   `MAX_ENVELOPE_SIGNATURES` entries); `BAD_BASE64` when the payload or a signature is not base64
 *   (an envelope that did not come through `parseEnvelope`)
 * @example
 * ```ts
 * import { signEnvelope } from "./dsse.ts";
 * import { generateKeyPair } from "./generate_key_pair.ts";
 * import { verifyEnvelope } from "./verify_envelope.ts";
 * const key = await generateKeyPair();
 * const env = await signEnvelope(new Uint8Array([42]), { payloadType: "t", keys: [key] });
 * const res = await verifyEnvelope(env, { trustedKeys: [key.publicKey] });
 * if (!res.verified || res.payload[0] !== 42) throw new Error();
 * ```
 */
export async function verifyEnvelope(
  envelope: DsseEnvelope,
  options: VerifyEnvelopeOptions,
): Promise<EnvelopeVerification> {
  const threshold = options.threshold ?? 1;
  if (!Number.isSafeInteger(threshold) || threshold < 1) {
    throw new RangeError(`Cannot verify envelope: threshold ${threshold} is not an integer >= 1`);
  }
  const trusted = options.trustedKeys.map((publicKey) => {
    _check(publicKey, 32, "trusted key");
    return { id: keyId(publicKey), publicKey };
  });
  const env = snapshotEnvelope(envelope);
  const payload = decodeBase64(env.payload);
  const message = pae(env.payloadType, payload);
  // Each attempt hashes the whole message: the attempts of one envelope share a budget, hinted
  // keys first, so that hostile entries over a large payload cannot multiply its cost by the
  // keys of the trust root.
  const budget = options.maxHashBytes ?? MAX_VERIFY_BYTES;
  if (!Number.isSafeInteger(budget) || budget < 0) {
    throw new RangeError(`Cannot verify envelope: maxHashBytes ${budget} is not an integer >= 0`);
  }
  let attemptsLeft = Math.max(1, Math.floor(budget / Math.max(1, message.length)));
  const entries = env.signatures.map((entry) => ({
    entry,
    sig: decodeBase64(entry.sig),
    verifiedBy: null as string | null,
    untried: 0,
  }));
  const attempt = async (e: (typeof entries)[number], keys: typeof trusted) => {
    for (const k of keys) {
      if (e.verifiedBy !== null) return;
      if (attemptsLeft === 0) {
        e.untried++;
        continue;
      }
      attemptsLeft--;
      if (await verify(message, { signature: e.sig, publicKey: k.publicKey })) e.verifiedBy = k.id;
    }
  };
  const usable = entries.filter((e) => e.sig.length === 64);
  // The hinted key first (the common case); the hint never decides anything by itself.
  for (const e of usable) await attempt(e, trusted.filter((k) => k.id === e.entry.keyid));
  for (const e of usable) await attempt(e, trusted.filter((k) => k.id !== e.entry.keyid));
  const results: SignatureResult[] = [];
  const validKeyIds: string[] = [];
  for (const { entry, sig, verifiedBy, untried } of entries) {
    if (verifiedBy !== null) {
      results.push({ keyid: entry.keyid, valid: true, verifiedBy });
      if (!validKeyIds.includes(verifiedBy)) validKeyIds.push(verifiedBy);
    } else {
      const reason = sig.length !== 64
        ? `signature is ${sig.length} bytes, not 64`
        : trusted.length === 0
        ? "no trusted keys given"
        : untried > 0
        ? `not tried with ${untried} trusted key(s): the envelope's signature checks are ` +
          `bounded (${budget} bytes hashed), and its keyid names no key that verifies it`
        : "no trusted key verifies this signature";
      results.push({ keyid: entry.keyid, valid: false, verifiedBy: null, reason });
    }
  }
  return {
    verified: validKeyIds.length >= threshold,
    payloadType: env.payloadType,
    payload,
    signatures: results,
    validKeyIds,
  };
}
