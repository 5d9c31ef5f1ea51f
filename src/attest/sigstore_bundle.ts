/**
 * The attestation as a Sigstore bundle (v0.3, `application/vnd.dev.sigstore.bundle.v0.3+json`):
 * the DSSE envelope as content, the inspector's public key as verification material (by hint:
 * its `keyId`), and RFC 3161 timestamps over the signature when there are some. No transparency
 * log entries: verifiers such as `@sigstore/verify` accept it with their tlog threshold at 0 and
 * the key supplied out of band (the trust root).
 *
 * Sigstore bundles carry one signature; with co-signers, the bundle holds the first signature
 * (the envelope's other signatures stay in `attestation.dsse.json`). `parseSigstoreBundle` reads
 * such a bundle back, so `check` and the checker page take it as they take the envelope.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import {
  arr,
  child,
  children,
  type Fields,
  fieldsOf,
  has,
  onlyKnown,
  str,
} from "../json_fields.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import type { DsseEnvelope } from "./dsse.ts";
import { MAX_ENVELOPE_BYTES, MAX_ENVELOPE_VALUES, parseEnvelope } from "./envelope.ts";
import { MAX_TIMESTAMP_TOKEN_BYTES } from "./timestamp/mod.ts";

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

/** The two spellings of the v0.3 media type (the Sigstore protobuf specs accept both). */
const _V03 = [SIGSTORE_BUNDLE_V03, "application/vnd.dev.sigstore.bundle+json;version=0.3"];

/** A Sigstore bundle read back: the DSSE envelope and its RFC 3161 timestamps. */
export interface ParsedSigstoreBundle {
  /** The bundled DSSE envelope (one signature), as `parseEnvelope` returns it. */
  readonly envelope: DsseEnvelope;
  /** The `signedTimestamp` DERs (RFC 3161 TimeStampResp), in bundle order. */
  readonly timestamps: readonly Uint8Array[];
  /** `verificationMaterial.publicKey.hint`: the key id the signer named. */
  readonly hint: string;
}

/**
 * Reads a Sigstore bundle v0.3 of the form {@link sigstoreBundle} writes, as strictly as
 * `parseEnvelope` reads an envelope: strict JSON, no unknown field anywhere, public-key
 * verification material, no transparency-log entries (bitaudit trusts keys through its trust
 * root, not a log), at most one RFC 3161 timestamp (checking would read one; a second left
 * unread, whatever it holds, would pass as part of the bundle), of at most
 * `MAX_TIMESTAMP_TOKEN_BYTES`. Nothing is
 * verified here: the envelope goes to `checkAttestation`, a timestamp to its `timestamp` option.
 *
 * @param text bundle JSON
 * @returns the envelope, the timestamps and the key hint
 * @throws {InputError} `ENVELOPE_TOO_LARGE` over `MAX_ENVELOPE_BYTES`; `BAD_ENVELOPE` for anything
 *   else that is not such a bundle; `BAD_BASE64` for undecodable bytes
 * @example
 * ```ts
 * import { parseSigstoreBundle, sigstoreBundle } from "./sigstore_bundle.ts";
 * const sig = "A".repeat(86) + "==";
 * const env = { payloadType: "t", payload: "e30=", signatures: [{ keyid: "ab", sig }] };
 * const back = parseSigstoreBundle(JSON.stringify(sigstoreBundle(env)));
 * if (back.envelope.signatures[0]?.sig !== sig || back.timestamps.length !== 0) throw new Error();
 * ```
 */
export function parseSigstoreBundle(text: string): ParsedSigstoreBundle {
  if (
    text.length > MAX_ENVELOPE_BYTES || new TextEncoder().encode(text).length > MAX_ENVELOPE_BYTES
  ) {
    throw new InputError(
      "ENVELOPE_TOO_LARGE",
      `Cannot read Sigstore bundle: larger than ${MAX_ENVELOPE_BYTES} bytes`,
    );
  }
  let value: unknown;
  try {
    value = parseStrictJson(text, { maxValues: MAX_ENVELOPE_VALUES });
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    _bad(`not strict JSON (${e.reason} at '${e.path}')`);
  }
  const b = fieldsOf(value, "bundle", _fail);
  onlyKnown(b, ["mediaType", "verificationMaterial", "dsseEnvelope"]);
  const mediaType = str(b, "mediaType");
  if (!_V03.includes(mediaType)) {
    _bad(`'bundle.mediaType' is not ${SIGSTORE_BUNDLE_V03}`);
  }
  const vm = child(b, "verificationMaterial", [
    "publicKey",
    "tlogEntries",
    "timestampVerificationData",
  ]);
  const hint = str(child(vm, "publicKey", ["hint"]), "hint");
  if (has(vm, "tlogEntries") && arr(vm, "tlogEntries").length > 0) {
    _bad("'bundle.verificationMaterial.tlogEntries' is not empty (bitaudit reads no log entries)");
  }
  const timestamps = !has(vm, "timestampVerificationData")
    ? []
    : _timestamps(child(vm, "timestampVerificationData", ["rfc3161Timestamps"]));
  const envelope = parseEnvelope(JSON.stringify(child(b, "dsseEnvelope").obj));
  // A bundle carries one signature and the material that verifies it (the Sigstore bundle
  // specification); more entries would let its timestamp cover one signature and date another.
  if (envelope.signatures.length !== 1) {
    _bad(`'bundle.dsseEnvelope.signatures' holds ${envelope.signatures.length} entries, not 1`);
  }
  return Object.freeze({ envelope, timestamps: Object.freeze(timestamps), hint });
}

function _timestamps(f: Fields): Uint8Array[] {
  if (!has(f, "rfc3161Timestamps")) return [];
  const all = children(f, "rfc3161Timestamps", ["signedTimestamp"]);
  if (all.length > 1) {
    _bad(
      `'${f.path}.rfc3161Timestamps' holds ${all.length} entries: bitaudit writes and reads one ` +
        "(a check would judge the first and leave the others unread)",
    );
  }
  return all.map((t) => {
    const der = decodeBase64(str(t, "signedTimestamp"));
    if (der.length > MAX_TIMESTAMP_TOKEN_BYTES) {
      _bad(`'${t.path}.signedTimestamp' is larger than ${MAX_TIMESTAMP_TOKEN_BYTES} bytes`);
    }
    return der;
  });
}

function _fail(path: string, why: string): never {
  _bad(`'${path}' ${why}`);
}

function _bad(why: string): never {
  throw new InputError("BAD_ENVELOPE", `Cannot read Sigstore bundle: ${why}`);
}
