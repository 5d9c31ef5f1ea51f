/**
 * An envelope handed over as an object, read once: the checks that verify and judge it all read
 * the one copy, so an object whose fields change between reads (a getter, a proxy) cannot have its
 * signatures verified over one payload and its signing time read from another.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import type { DsseEnvelope, DsseSignature } from "./dsse.ts";
import { MAX_ENVELOPE_SIGNATURES } from "./envelope.ts";

/**
 * Copies an envelope's fields into a frozen plain object, each field and signature entry read
 * once, after checking their JSON types (the values are not checked further: a payload that is
 * not base64 is the verifier's refusal, as before). A missing `keyid` becomes `""`, as
 * `parseEnvelope` reads it.
 *
 * @param value the envelope as the caller holds it
 * @returns the copy
 * @throws {InputError} `BAD_ENVELOPE` when it is not an object with string `payload` and
 *   `payloadType` and an array of at most `MAX_ENVELOPE_SIGNATURES` signature entries `{keyid?,
 *   sig}` of strings
 * @example
 * ```ts
 * import { snapshotEnvelope } from "./_envelope_snapshot.ts";
 * const env = snapshotEnvelope({ payload: "e30=", payloadType: "t", signatures: [{ sig: "" }] });
 * if (!Object.isFrozen(env) || env.signatures[0]?.keyid !== "") throw new Error();
 * ```
 */
export function snapshotEnvelope(value: unknown): DsseEnvelope {
  if (!_isObject(value)) _bad("it is not an object");
  const { payload, payloadType, signatures } = value;
  if (typeof payload !== "string") _bad("'payload' is not a string");
  if (typeof payloadType !== "string") _bad("'payloadType' is not a string");
  if (!Array.isArray(signatures)) _bad("'signatures' is not an array");
  const n = signatures.length;
  if (n > MAX_ENVELOPE_SIGNATURES) _bad(`more than ${MAX_ENVELOPE_SIGNATURES} signatures`);
  const copies: DsseSignature[] = [];
  for (let i = 0; i < n; i++) {
    const s: unknown = Object.hasOwn(signatures, i) ? signatures[i] : undefined;
    if (!_isObject(s)) _bad(`'signatures[${i}]' is not an object`);
    const { keyid, sig } = s;
    if (keyid !== undefined && typeof keyid !== "string") {
      _bad(`'signatures[${i}].keyid' is not a string`);
    }
    if (typeof sig !== "string") _bad(`'signatures[${i}].sig' is not a string`);
    copies.push(Object.freeze({ keyid: keyid ?? "", sig }));
  }
  return Object.freeze({ payload, payloadType, signatures: Object.freeze(copies) });
}

function _isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function _bad(why: string): never {
  throw new InputError("BAD_ENVELOPE", `Cannot read envelope: ${why}`);
}
