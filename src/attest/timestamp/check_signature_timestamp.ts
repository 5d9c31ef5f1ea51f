/**
 * The time at which an attestation's signatures are judged when an RFC 3161 token covers one of
 * them: the token's time, provided the token verifies against the trust root's TSA anchors over
 * the raw bytes of a signature in the envelope (the convention of Sigstore bundles: the timestamp
 * is over the signature).
 *
 * @module
 */
import { decodeBase64 } from "../base64.ts";
import type { DsseEnvelope } from "../dsse.ts";
import type { TrustRoot } from "../trust_root.ts";
import { trustedTsaAnchors } from "./trusted_tsa_anchors.ts";
import { verifyTimestampToken } from "./verify_timestamp_token.ts";

/**
 * Verifies a token over one of the envelope's signatures.
 *
 * @param envelope the attestation envelope
 * @param options the token (DER) and the trust root holding the TSA anchors
 * @returns the token time (RFC 3339 UTC) or why it does not count
 * @example
 * ```ts ignore
 * const t = await checkSignatureTimestamp(envelope, { token, trustRoot });
 * ```
 */
export async function checkSignatureTimestamp(
  envelope: DsseEnvelope,
  options: { token: Uint8Array; trustRoot: TrustRoot },
): Promise<{ time: string; signature: number } | { why: string }> {
  let anchors: readonly Uint8Array[];
  try {
    anchors = trustedTsaAnchors(options.trustRoot.tsa);
  } catch (e) {
    return { why: (e as Error).message };
  }
  if (anchors.length === 0) return { why: "the trust root lists no TSA" };
  let last = "no signature in the envelope";
  for (const [i, s] of envelope.signatures.entries()) {
    let message: Uint8Array;
    try {
      message = decodeBase64(s.sig, { alphabet: "any" });
    } catch {
      continue;
    }
    const r = await verifyTimestampToken(options.token, { message, anchors });
    if (r.verified && r.time !== undefined) {
      return { time: new Date(r.time).toISOString().replace(/\.000Z$/, "Z"), signature: i };
    }
    last = r.reason ?? "does not verify";
  }
  return { why: last };
}
