/**
 * DSSE v1 pre-authentication encoding: the exact bytes an envelope signature covers.
 *
 * @module
 */

/**
 * Builds `PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`
 * (secure-systems-lab/dsse `protocol.md`, v1.0.2), with LEN the byte length in ASCII decimal
 * without leading zeros and SP one 0x20 byte. The type is encoded as UTF-8.
 *
 * Signing the PAE instead of the bare payload binds the payload type into the signature and
 * leaves no ambiguity about where the type ends and the body begins.
 *
 * @param payloadType media type of the payload, e.g. `"application/vnd.in-toto+json"`
 * @param payload raw payload bytes (not base64)
 * @returns the bytes to sign or verify
 * @throws {TypeError} when `payloadType` is not a well-formed string or `payload` not a `Uint8Array`
 * @example
 * ```ts
 * import { pae } from "./pae.ts";
 * const bytes = pae("http://example.com/HelloWorld", new TextEncoder().encode("hello world"));
 * const text = new TextDecoder().decode(bytes);
 * if (text !== "DSSEv1 29 http://example.com/HelloWorld 11 hello world") throw new Error(text);
 * ```
 */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array {
  if (typeof payloadType !== "string" || !payloadType.isWellFormed()) {
    throw new TypeError("Cannot build PAE: payload type must be a well-formed string");
  }
  if (!(payload instanceof Uint8Array)) {
    throw new TypeError(`Cannot build PAE: payload must be a Uint8Array, got ${typeof payload}`);
  }
  const enc = new TextEncoder();
  const type = enc.encode(payloadType);
  const head = enc.encode(`DSSEv1 ${type.length} `);
  const mid = enc.encode(` ${payload.length} `);
  const out = new Uint8Array(head.length + type.length + mid.length + payload.length);
  out.set(head, 0);
  out.set(type, head.length);
  out.set(mid, head.length + type.length);
  out.set(payload, head.length + type.length + mid.length);
  return out;
}
