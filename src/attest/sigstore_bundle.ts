/**
 * The attestation as a Sigstore bundle (v0.3, `application/vnd.dev.sigstore.bundle.v0.3+json`):
 * the DSSE envelope as content, the inspector's public key as verification material (by hint:
 * its `keyId`), and RFC 3161 timestamps over the signature when there are some. No transparency
 * log entries: verifiers such as `@sigstore/verify` accept it with their tlog threshold at 0 and
 * the key supplied out of band (the trust root).
 *
 * Sigstore bundles carry one signature; with co-signers, the bundle holds the first signature
 * (the envelope's other signatures stay in `attestation.dsse.json`).
 *
 * @module
 */
import type { DsseEnvelope } from "./dsse.ts";
import { encodeBase64 } from "./base64.ts";

/** Media type of Sigstore bundles v0.3. */
export const SIGSTORE_BUNDLE_V03 = "application/vnd.dev.sigstore.bundle.v0.3+json";

/**
 * Builds the Sigstore bundle JSON of an attestation.
 *
 * @param envelope the DSSE envelope (its first signature is bundled)
 * @param options `timestamps`: RFC 3161 TimeStampResp DERs over that signature (what Sigstore
 *   bundles carry as `signedTimestamp`)
 * @returns the bundle as plain JSON data
 * @throws {RangeError} when the envelope has no signature
 * @example
 * ```ts
 * import { sigstoreBundle } from "./sigstore_bundle.ts";
 * const b = sigstoreBundle({
 *   payloadType: "application/vnd.in-toto+json", payload: "e30=",
 *   signatures: [{ keyid: "ab", sig: "AA==" }],
 * });
 * if (b.verificationMaterial.publicKey.hint !== "ab") throw new Error();
 * ```
 */
export function sigstoreBundle(
  envelope: DsseEnvelope,
  options: { timestamps?: readonly Uint8Array[] } = {},
): {
  mediaType: string;
  verificationMaterial: {
    publicKey: { hint: string };
    tlogEntries: never[];
    timestampVerificationData: { rfc3161Timestamps: { signedTimestamp: string }[] };
  };
  dsseEnvelope: DsseEnvelope;
} {
  const first = envelope.signatures[0];
  if (first === undefined) throw new RangeError("Cannot build a bundle: the envelope is unsigned");
  return {
    mediaType: SIGSTORE_BUNDLE_V03,
    verificationMaterial: {
      publicKey: { hint: first.keyid },
      tlogEntries: [],
      timestampVerificationData: {
        rfc3161Timestamps: (options.timestamps ?? []).map((t) => ({
          signedTimestamp: encodeBase64(t),
        })),
      },
    },
    dsseEnvelope: {
      payload: envelope.payload,
      payloadType: envelope.payloadType,
      signatures: [{ sig: first.sig, keyid: first.keyid }],
    },
  };
}
