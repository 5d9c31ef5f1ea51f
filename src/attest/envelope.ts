/**
 * Strict parsing of DSSE JSON envelopes received from outside.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { decodeBase64 } from "./base64.ts";
import type { DsseEnvelope, DsseSignature } from "./dsse.ts";
import { children, type Fields, fieldsOf, onlyKnown, str } from "../json_fields.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";

/**
 * Largest envelope {@link parseEnvelope} accepts by default: 64 MiB of UTF-8. An attestation
 * grows with the records it samples (about 1.4 KB a record's result), so this holds tens of
 * thousands; `signVerdict` refuses to sign a larger one, so no attestation it signs is one a
 * checker cannot read.
 */
export const MAX_ENVELOPE_BYTES = 64 * 1024 * 1024;

/** Most signatures one envelope may carry. */
export const MAX_ENVELOPE_SIGNATURES = 64;

/**
 * Most JSON values (strings, numbers, arrays, objects...) an envelope's or a Sigstore bundle's
 * text may hold: an envelope of {@link MAX_ENVELOPE_SIGNATURES} signatures holds under 200, a
 * bundle a few more per timestamp. A text of millions of small values within the byte limit would
 * otherwise cost gigabytes to parse before its shape is refused.
 */
export const MAX_ENVELOPE_VALUES = 1024;

/** Options of {@link parseEnvelope}. */
export interface ParseEnvelopeOptions {
  /** Size limit in UTF-8 bytes (default {@link MAX_ENVELOPE_BYTES}). */
  readonly maxBytes?: number;
}

/**
 * Parses and shape-checks a DSSE JSON envelope.
 *
 * Required: `payload` (base64, standard or URL-safe), `payloadType` (non-empty string) and
 * `signatures` (1..64 entries of `{keyid?, sig}` with `sig` base64 of exactly 64 bytes, the Ed25519
 * size). A missing `keyid` becomes `""`. The text is parsed strictly (`parseStrictJson`: a
 * duplicate `payload` key, which another parser could read the other way, is refused) and unknown
 * fields anywhere are refused. The signatures are
 * not checked here: see `verifyEnvelope`.
 *
 * @param text envelope JSON
 * @param options `maxBytes`
 * @returns the envelope, frozen
 * @throws {RangeError} when `maxBytes` is not an integer >= 0
 * @throws {InputError} `ENVELOPE_TOO_LARGE` over the size limit; `BAD_ENVELOPE` for invalid JSON
 *   or a wrong shape; `BAD_BASE64` for undecodable payload or signature
 * @example
 * ```ts
 * import { parseEnvelope } from "./envelope.ts";
 * const sig = "A".repeat(86) + "==";
 * const env = parseEnvelope(`{"payload":"e30=","payloadType":"t","signatures":[{"sig":"${sig}"}]}`);
 * if (env.signatures[0]?.keyid !== "") throw new Error();
 * ```
 */
export function parseEnvelope(text: string, options: ParseEnvelopeOptions = {}): DsseEnvelope {
  const max = options.maxBytes ?? MAX_ENVELOPE_BYTES;
  if (!Number.isSafeInteger(max) || max < 0) {
    throw new RangeError(`Cannot read envelope: maxBytes ${max} is not an integer >= 0`);
  }
  if (typeof text !== "string") _bad("input is not text");
  // UTF-8 never uses fewer bytes than UTF-16 code units, so the cheap test comes first.
  if (text.length > max || new TextEncoder().encode(text).length > max) {
    throw new InputError("ENVELOPE_TOO_LARGE", `Cannot read envelope: larger than ${max} bytes`);
  }
  let value: unknown;
  try {
    value = parseStrictJson(text, { maxValues: MAX_ENVELOPE_VALUES });
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    _bad(`not strict JSON (${e.reason} at '${e.path}')`);
  }
  const obj = fieldsOf(value, "envelope", _fail);
  onlyKnown(obj, ["payload", "payloadType", "signatures"]);
  const payload = str(obj, "payload");
  decodeBase64(payload);
  const payloadType = str(obj, "payloadType", /^.{1,256}$/s);
  const list = children(obj, "signatures", ["keyid", "sig"]);
  if (list.length === 0) _bad("'envelope.signatures' is empty");
  if (list.length > MAX_ENVELOPE_SIGNATURES) {
    _bad(`more than ${MAX_ENVELOPE_SIGNATURES} signatures`);
  }
  const signatures = list.map((s: Fields): DsseSignature => {
    const keyid = s.obj.keyid === undefined ? "" : str(s, "keyid");
    const sig = str(s, "sig");
    if (decodeBase64(sig).length !== 64) _bad(`'${s.path}.sig' is not 64 bytes`);
    return Object.freeze({ keyid, sig });
  });
  return Object.freeze({ payload, payloadType, signatures: Object.freeze(signatures) });
}

function _fail(path: string, why: string): never {
  _bad(`'${path}' ${why}`);
}

function _bad(why: string): never {
  throw new InputError("BAD_ENVELOPE", `Cannot read envelope: ${why}`);
}
