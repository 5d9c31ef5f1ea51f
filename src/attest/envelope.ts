/**
 * Strict parsing of DSSE JSON envelopes received from outside.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { decodeBase64 } from "./base64.ts";
import type { DsseEnvelope, DsseSignature } from "./dsse.ts";
import { jsonObject, jsonString } from "./json_shape.ts";

/** Largest envelope {@link parseEnvelope} accepts by default: 16 MiB of UTF-8. */
export const MAX_ENVELOPE_BYTES = 16 * 1024 * 1024;

/** Most signatures one envelope may carry. */
export const MAX_ENVELOPE_SIGNATURES = 64;

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
 * size). A missing `keyid` becomes `""`. Unknown fields anywhere are refused. The signatures are
 * not checked here: see `verifyEnvelope`.
 *
 * @param text envelope JSON
 * @param options `maxBytes`
 * @returns the envelope, frozen
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
  if (typeof text !== "string") _bad("input is not text");
  // UTF-8 never uses fewer bytes than UTF-16 code units, so the cheap test comes first.
  if (text.length > max || new TextEncoder().encode(text).length > max) {
    throw new InputError("ENVELOPE_TOO_LARGE", `Cannot read envelope: larger than ${max} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    _bad(`not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const obj = _object(value, "envelope", ["payload", "payloadType", "signatures"]);
  const payload = _string(obj, "payload", "envelope");
  decodeBase64(payload);
  const payloadType = _string(obj, "payloadType", "envelope");
  if (payloadType === "") _bad("'envelope.payloadType' is empty");
  const list = obj.signatures;
  if (!Array.isArray(list)) _bad("'envelope.signatures' is not an array");
  if (list.length === 0) _bad("'envelope.signatures' is empty");
  if (list.length > MAX_ENVELOPE_SIGNATURES) {
    _bad(`more than ${MAX_ENVELOPE_SIGNATURES} signatures`);
  }
  const signatures = list.map((entry, i): DsseSignature => {
    const where = `envelope.signatures[${i}]`;
    const s = _object(entry, where, ["keyid", "sig"]);
    const keyid = s.keyid === undefined ? "" : _string(s, "keyid", where);
    const sig = _string(s, "sig", where);
    if (decodeBase64(sig).length !== 64) _bad(`'${where}.sig' is not 64 bytes`);
    return Object.freeze({ keyid, sig });
  });
  return Object.freeze({ payload, payloadType, signatures: Object.freeze(signatures) });
}

function _object(v: unknown, where: string, known: readonly string[]): Record<string, unknown> {
  return jsonObject(v, { where, known, bad: _bad });
}

function _string(obj: Record<string, unknown>, key: string, where: string): string {
  return jsonString(obj, { key, where, bad: _bad });
}

function _bad(why: string): never {
  throw new InputError("BAD_ENVELOPE", `Cannot read envelope: ${why}`);
}
