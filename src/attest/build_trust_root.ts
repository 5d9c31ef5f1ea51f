/**
 * Building trust-root documents from inspector public keys.
 *
 * @module
 */
import { encodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { encodeSpki } from "./spki.ts";
import { TRUST_ROOT_MEDIA_TYPE } from "./trust_root.ts";

/**
 * Builds the JSON document of a trust root listing inspector keys with one validity window.
 *
 * @param publicKeys 32-byte Ed25519 public keys
 * @param validFor RFC 3339 `start` and optional `end` of validity
 * @returns the document (serialise with `JSON.stringify`; parse back with `parseTrustRoot`)
 * @example
 * ```ts
 * import { buildTrustRoot } from "./build_trust_root.ts";
 * import { generateKeyPair } from "./generate_key_pair.ts";
 * import { parseTrustRoot } from "./trust_root.ts";
 * const { publicKey } = await generateKeyPair();
 * const doc = buildTrustRoot([publicKey], { start: "2026-01-01T00:00:00Z" });
 * if (parseTrustRoot(JSON.stringify(doc)).keys.length !== 1) throw new Error();
 * ```
 */
export function buildTrustRoot(
  publicKeys: readonly Uint8Array[],
  validFor: { start: string; end?: string },
): { mediaType: string; keys: Record<string, unknown>[] } {
  return {
    mediaType: TRUST_ROOT_MEDIA_TYPE,
    keys: publicKeys.map((pub) => ({
      keyid: keyId(pub),
      publicKey: encodeBase64(encodeSpki(pub)),
      role: "inspector",
      validFor: { start: validFor.start, ...(validFor.end ? { end: validFor.end } : {}) },
    })),
  };
}
