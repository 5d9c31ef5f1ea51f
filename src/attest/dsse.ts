/**
 * DSSE envelopes (secure-systems-lab/dsse `envelope.md`, `protocol.md` v1.0.2): signing,
 * co-signing and the envelope types.
 *
 * The signature covers `PAE(payloadType, payload)` over the raw payload bytes, never a
 * re-serialization, so the payload needs no canonical form. Several inspectors can co-sign one
 * envelope (t-of-n), each adding one entry to `signatures`.
 *
 * @module
 */
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { publicKeyFromPrivate } from "./generate_key_pair.ts";
import { keyId } from "./key_id.ts";
import { pae } from "./pae.ts";
import { sign } from "./signature.ts";

/** One signature entry of an envelope. */
export interface DsseSignature {
  /** Unauthenticated hint naming the key (bitaudit: `keyId(publicKey)`); may be empty. */
  readonly keyid: string;
  /** Base64 of the 64-byte Ed25519 signature over the PAE. */
  readonly sig: string;
}

/** A DSSE JSON envelope, exactly as serialized. */
export interface DsseEnvelope {
  /** Base64 of the payload bytes. */
  readonly payload: string;
  /** Media type of the payload, e.g. `"application/vnd.in-toto+json"`. */
  readonly payloadType: string;
  /** At least one signature. */
  readonly signatures: readonly DsseSignature[];
}

/** A key that signs: both halves, checked to belong together. */
export interface SigningKey {
  /** 32-byte private key (seed). */
  readonly privateKey: Uint8Array;
  /** 32-byte public key derived from it. */
  readonly publicKey: Uint8Array;
}

/** Options of {@link signEnvelope}. */
export interface SignEnvelopeOptions {
  /** Media type bound into every signature. */
  readonly payloadType: string;
  /** One or more co-signers, all distinct. */
  readonly keys: readonly SigningKey[];
}

/**
 * Signs a payload into a new envelope, once per key.
 *
 * @param payload raw payload bytes (e.g. a UTF-8 in-toto Statement)
 * @param options `payloadType` and the signing `keys`
 * @returns the envelope; serialize it with `JSON.stringify`
 * @throws {RangeError} when no key is given, a key appears twice, or a public key does not match
 *   its private key
 * @example
 * ```ts
 * import { signEnvelope } from "./dsse.ts";
 * import { generateKeyPair } from "./generate_key_pair.ts";
 * const key = await generateKeyPair();
 * const env = await signEnvelope(new TextEncoder().encode("{}"), {
 *   payloadType: "application/vnd.in-toto+json", keys: [key],
 * });
 * if (env.payload !== "e30=" || env.signatures.length !== 1) throw new Error();
 * ```
 */
export async function signEnvelope(
  payload: Uint8Array,
  options: SignEnvelopeOptions,
): Promise<DsseEnvelope> {
  if (options.keys.length === 0) throw new RangeError("Cannot sign envelope: no signing key");
  let env: DsseEnvelope = {
    payload: encodeBase64(payload),
    payloadType: options.payloadType,
    signatures: [],
  };
  for (const key of options.keys) env = await addSignature(env, key);
  return env;
}

/**
 * Adds one co-signature to an envelope (the signer signs the same PAE bytes).
 *
 * The caller should have verified the envelope's payload first: a co-signature vouches for it.
 *
 * @param envelope the envelope to co-sign (not modified)
 * @param key the co-signer
 * @returns a new envelope with the signature appended
 * @throws {RangeError} when the key already signed this envelope or its halves do not match
 * @throws {InputError} `BAD_BASE64` when the envelope's payload is not base64
 * @example
 * ```ts
 * import { addSignature, signEnvelope } from "./dsse.ts";
 * import { generateKeyPair } from "./generate_key_pair.ts";
 * const [a, b] = [await generateKeyPair(), await generateKeyPair()];
 * const env = await signEnvelope(new Uint8Array([1]), { payloadType: "t", keys: [a] });
 * if ((await addSignature(env, b)).signatures.length !== 2) throw new Error();
 * ```
 */
export async function addSignature(envelope: DsseEnvelope, key: SigningKey): Promise<DsseEnvelope> {
  const derived = await publicKeyFromPrivate(key.privateKey);
  const id = keyId(key.publicKey);
  if (keyId(derived) !== id) {
    throw new RangeError(`Cannot sign envelope: public key ${id.slice(0, 16)} is not the signer's`);
  }
  if (envelope.signatures.some((s) => s.keyid === id)) {
    throw new RangeError(`Cannot sign envelope: key ${id.slice(0, 16)} already signed it`);
  }
  const message = pae(envelope.payloadType, decodeBase64(envelope.payload));
  const sig = encodeBase64(await sign(message, key.privateKey));
  return { ...envelope, signatures: [...envelope.signatures, { keyid: id, sig }] };
}
