/**
 * Reading DER that {@link isStrictDer} already accepted: one tag-length-value at a time, its
 * children, and an INTEGER's value as a bigint. Used where a field's exact bytes matter (the
 * TSTInfo's time and accuracy, a certificate's validity and issuer, the ESS certificate
 * identifiers), instead of the ASN.1 library's reading of them.
 *
 * @module
 */
import { isMinimalDerInteger } from "./_strict_der.ts";

/** One tag-length-value: its first tag byte, and where its contents start and it ends. */
export interface Tlv {
  /** The first identifier byte (class, constructed bit, low tag number). */
  readonly tag: number;
  /** The whole encoding, header included. */
  readonly der: Uint8Array;
  /** The contents. */
  readonly content: Uint8Array;
}

/**
 * Reads the TLV at the start of `bytes` (low tag numbers only).
 *
 * @param bytes the encoding, possibly followed by more
 * @returns the TLV
 * @throws {SyntaxError} when the header is malformed or the length runs past the bytes
 * @example
 * ```ts
 * import { readTlv } from "./_der_tlv.ts";
 * const t = readTlv(new Uint8Array([0x02, 0x01, 0x05, 0xff]));
 * if (t.tag !== 0x02 || t.content[0] !== 5 || t.der.length !== 3) throw new Error();
 * ```
 */
export function readTlv(bytes: Uint8Array): Tlv {
  const bad = () => {
    throw new SyntaxError("Cannot read DER: malformed tag or length");
  };
  if (bytes.length < 2 || (bytes[0]! & 0x1f) === 0x1f) bad();
  let len = bytes[1]!;
  let at = 2;
  if (len >= 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || 2 + n > bytes.length) bad();
    len = 0;
    for (let k = 0; k < n; k++) len = len * 256 + bytes[2 + k]!;
    at = 2 + n;
  }
  if (at + len > bytes.length) bad();
  return {
    tag: bytes[0]!,
    der: bytes.subarray(0, at + len),
    content: bytes.subarray(at, at + len),
  };
}

/**
 * The TLVs that fill a constructed value's contents.
 *
 * @param tlv a constructed value
 * @returns its children in order
 * @throws {SyntaxError} when the contents are not a run of TLVs
 * @example
 * ```ts
 * import { readTlv, tlvChildren } from "./_der_tlv.ts";
 * const seq = readTlv(new Uint8Array([0x30, 0x05, 0x02, 0x01, 0x01, 0x05, 0x00]));
 * if (tlvChildren(seq).map((c) => c.tag).join() !== "2,5") throw new Error();
 * ```
 */
export function tlvChildren(tlv: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let rest = tlv.content; rest.length > 0;) {
    const child = readTlv(rest);
    out.push(child);
    rest = rest.subarray(child.der.length);
  }
  return out;
}

/**
 * The value of an INTEGER's contents (two's complement, big-endian), refusing a non-minimal one.
 *
 * @param content the INTEGER's content bytes (whatever its tag: context tags hold them too)
 * @returns the value
 * @throws {RangeError} when the contents are empty or not minimal
 * @example
 * ```ts
 * import { derIntegerValue } from "./_der_tlv.ts";
 * if (derIntegerValue(new Uint8Array([0x00, 0x80, 0x00])) !== 32768n) throw new Error();
 * if (derIntegerValue(new Uint8Array([0xff])) !== -1n) throw new Error();
 * ```
 */
export function derIntegerValue(content: Uint8Array): bigint {
  if (!isMinimalDerInteger(content)) {
    throw new RangeError("Cannot read a DER INTEGER: empty or not minimal");
  }
  let v = 0n;
  for (const byte of content) v = (v << 8n) | BigInt(byte);
  return (content[0]! & 0x80) !== 0 ? v - (1n << BigInt(8 * content.length)) : v;
}

/**
 * Whether two byte strings are equal (a certificate's DER, a hash, an encoded name).
 *
 * @param a one
 * @param b the other
 * @returns true when they hold the same bytes
 * @example
 * ```ts
 * import { equalBytes } from "./_der_tlv.ts";
 * if (!equalBytes(new Uint8Array([1, 2]), new Uint8Array([1, 2]))) throw new Error();
 * if (equalBytes(new Uint8Array([1]), new Uint8Array([1, 0]))) throw new Error("prefix");
 * ```
 */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
