/**
 * Building trust-root documents from inspector public keys.
 *
 * @module
 */
import { MAX_TRUST_ROOT_KEYS } from "./trust_root.ts";
import { encodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { encodeSpki } from "./spki.ts";
import { TRUST_ROOT_MEDIA_TYPE } from "./trust_root.ts";

/**
 * Builds the JSON document of a trust root listing inspector keys with one validity window,
 * optionally prover keys (role `prover`, their own window) and pinned drand chains.
 *
 * @param publicKeys 32-byte Ed25519 inspector public keys
 * @param validFor RFC 3339 `start` and optional `end` of validity; `provers` with their keys,
 *   window and optional `origin` (the one checkpoint origin they may sign; checked by
 *   `parseTrustRoot`); `drand` chains to pin (`chainHash`, `beaconId`); `tsa` anchor certificates (DER) of
 *   trusted RFC 3161 time-stamp authorities
 * @returns the document (serialise with `JSON.stringify`; parse back with `parseTrustRoot`)
 * @throws {RangeError} for more than `MAX_TRUST_ROOT_KEYS` keys in all
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
  validFor: {
    start: string;
    end?: string;
    provers?: { keys: readonly Uint8Array[]; start: string; end?: string; origin?: string };
    drand?: readonly { chainHash: string; beaconId: string }[];
    tsa?: readonly { certificate: Uint8Array; name: string }[];
  },
): { mediaType: string; keys: Record<string, unknown>[]; drand?: unknown; tsa?: unknown } {
  const count = publicKeys.length + (validFor.provers?.keys.length ?? 0);
  if (count > MAX_TRUST_ROOT_KEYS) {
    throw new RangeError(
      `Cannot build trust root: ${count} keys, more than ${MAX_TRUST_ROOT_KEYS}`,
    );
  }
  const entry = (pub: Uint8Array, role: string, w: { start: string; end?: string }) => ({
    keyid: keyId(pub),
    publicKey: encodeBase64(encodeSpki(pub)),
    role,
    validFor: { start: w.start, ...(w.end ? { end: w.end } : {}) },
  });
  const provers = validFor.provers;
  return {
    mediaType: TRUST_ROOT_MEDIA_TYPE,
    keys: [
      ...publicKeys.map((pub) => entry(pub, "inspector", validFor)),
      ...(provers?.keys ?? []).map((pub) => ({
        ...entry(pub, "prover", provers!),
        ...(provers!.origin === undefined ? {} : { origin: provers!.origin }),
      })),
    ],
    ...(validFor.drand === undefined || validFor.drand.length === 0
      ? {}
      : { drand: validFor.drand.map((c) => ({ chainHash: c.chainHash, beaconId: c.beaconId })) }),
    ...(validFor.tsa === undefined || validFor.tsa.length === 0 ? {} : {
      tsa: validFor.tsa.map((t) => ({ certificate: encodeBase64(t.certificate), name: t.name })),
    }),
  };
}
