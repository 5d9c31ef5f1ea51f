/**
 * Verification of DSSE envelopes against a set of trusted Ed25519 keys.
 *
 * @module
 */
import { decodeBase64 } from "./base64.ts";
import type { DsseEnvelope } from "./dsse.ts";
import { _check } from "./generate_key_pair.ts";
import { keyId } from "./key_id.ts";
import { pae } from "./pae.ts";
import { verify } from "./signature.ts";

/** Options of {@link verifyEnvelope}. */
export interface VerifyEnvelopeOptions {
  /** Public keys (32 bytes each) allowed to sign, already filtered for validity and role. */
  readonly trustedKeys: readonly Uint8Array[];
  /** Distinct trusted keys needed for `verified` (default 1). */
  readonly threshold?: number;
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
 * The `keyid` of an entry is only a hint: the hinted trusted key is tried first, then every other
 * trusted key, so a wrong or missing hint never makes a good signature fail and a hint alone never
 * makes a signature count. A signature counts only if a trusted key verifies it (strict RFC 8032).
 *
 * @param envelope a parsed envelope (see `parseEnvelope`)
 * @param options `trustedKeys` and `threshold`
 * @returns per-signature results, the distinct signers and the verified payload bytes
 * @throws {RangeError} when a trusted key is not 32 bytes or `threshold` is not an integer ≥ 1
 * @throws {InputError} `BAD_BASE64` when the payload or a signature is not base64 (an envelope
 *   that did not come through `parseEnvelope`)
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
  const payload = decodeBase64(envelope.payload);
  const message = pae(envelope.payloadType, payload);
  const results: SignatureResult[] = [];
  const validKeyIds: string[] = [];
  for (const entry of envelope.signatures) {
    const sig = decodeBase64(entry.sig);
    let verifiedBy: string | null = null;
    if (sig.length === 64) {
      // Hinted key first (cheap common case); the hint never decides anything by itself.
      const order = [
        ...trusted.filter((k) => k.id === entry.keyid),
        ...trusted.filter((k) => k.id !== entry.keyid),
      ];
      for (const k of order) {
        if (await verify(message, { signature: sig, publicKey: k.publicKey })) {
          verifiedBy = k.id;
          break;
        }
      }
    }
    if (verifiedBy !== null) {
      results.push({ keyid: entry.keyid, valid: true, verifiedBy });
      if (!validKeyIds.includes(verifiedBy)) validKeyIds.push(verifiedBy);
    } else {
      const reason = sig.length !== 64
        ? `signature is ${sig.length} bytes, not 64`
        : trusted.length === 0
        ? "no trusted keys given"
        : "no trusted key verifies this signature";
      results.push({ keyid: entry.keyid, valid: false, verifiedBy: null, reason });
    }
  }
  return {
    verified: validKeyIds.length >= threshold,
    payloadType: envelope.payloadType,
    payload,
    signatures: results,
    validKeyIds,
  };
}
