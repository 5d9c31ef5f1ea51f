/**
 * RFC 3161 trusted timestamps: tokens over an attestation's signature, verified against the TSA
 * anchors a trust root pins, so key validity and revocation are judged at a time no signer chose.
 *
 * @example
 * ```ts
 * import { trustedTsaAnchors, verifyTimestampToken } from "./mod.ts";
 * const r = await verifyTimestampToken(new Uint8Array(2), {
 *   message: new Uint8Array(1), anchors: trustedTsaAnchors(undefined),
 * });
 * if (r.verified) throw new Error();
 * ```
 * @module
 */
export { trustedTsaAnchors } from "./trusted_tsa_anchors.ts";
export {
  MAX_TIMESTAMP_TOKEN_BYTES,
  timestampImprintMismatch,
  type TimestampVerification,
  verifyTimestampToken,
} from "./verify_timestamp_token.ts";
export { checkSignatureTimestamp } from "./check_signature_timestamp.ts";
export { timestampResponseDer } from "./timestamp_token_der.ts";
export { createLocalTsa, type LocalTsa } from "./local_tsa.ts";
