/**
 * A structural DER check: the bytes are exactly one tag-length-value, every length is definite and
 * minimally encoded, and every constructed value is exactly filled by its children, all the way
 * down. The ASN.1 reader used for tokens and certificates reports a value's end where a declared
 * length disagrees with the bytes it read (an outer length one byte short still parsed to its
 * full end), so the bytes that were handed over and the structure that was checked could differ;
 * this walk refuses such bytes before they are read. Of the universal types, what DER fixes is
 * checked too (X.690 §8.2, §8.3, §8.8, §10.2): an INTEGER is non-empty and minimal (`02 02 00 03`
 * is refused: the reader takes it for 3), a BOOLEAN one byte 00 or FF, a NULL empty, and only
 * SEQUENCE and SET are constructed (a constructed OCTET STRING, the BER chunked form, is refused).
 * Other primitive contents, and context-tagged ones, are not interpreted.
 *
 * @module
 */

/** Deepest nesting walked (tokens and certificates nest about ten deep). */
const MAX_DEPTH = 64;

/**
 * Whether bytes are one structurally valid DER value.
 *
 * @param bytes the encoding
 * @returns true when they are exactly one TLV whose lengths all fit, definite and minimal
 * @example
 * ```ts
 * import { isStrictDer } from "./_strict_der.ts";
 * if (!isStrictDer(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x05]))) throw new Error();
 * if (isStrictDer(new Uint8Array([0x30, 0x02, 0x02, 0x01, 0x05]))) throw new Error("length lies");
 * if (isStrictDer(new Uint8Array([0x30, 0x81, 0x03, 0x02, 0x01, 0x05]))) throw new Error("long form");
 * if (isStrictDer(new Uint8Array([0x10, 0x00]))) throw new Error("a primitive SEQUENCE");
 * ```
 */
export function isStrictDer(bytes: Uint8Array): boolean {
  return _value(bytes, 0, 0) === bytes.length;
}

/** The end of the TLV at `at`, or -1 when it is not strict DER. */
function _value(b: Uint8Array, at: number, depth: number): number {
  if (depth > MAX_DEPTH || at >= b.length) return -1;
  const tag = b[at]!;
  let i = at + 1;
  if ((tag & 0x1f) === 0x1f) {
    // High tag number: base-128 bytes, the last without its top bit, no leading 0x80.
    if (b[i] === 0x80) return -1;
    while (i < b.length && (b[i]! & 0x80) !== 0) i++;
    if (i >= b.length) return -1;
    i++;
  }
  if (i >= b.length) return -1;
  const first = b[i++]!;
  let len: number;
  if (first < 0x80) len = first;
  else {
    const n = first & 0x7f;
    // 0x80 is the indefinite form (BER only); more than four bytes is past any file here.
    if (n === 0 || n > 4 || i + n > b.length || b[i] === 0) return -1;
    len = 0;
    for (let k = 0; k < n; k++) len = len * 256 + b[i + k]!;
    i += n;
    if (len < 0x80) return -1; // the short form was required
  }
  const end = i + len;
  if (end > b.length) return -1;
  if ((tag & 0xc0) === 0 && !_universalOk(tag, b.subarray(i, end))) return -1;
  if ((tag & 0x20) !== 0) {
    // Constructed: the children fill the contents exactly.
    while (i < end) {
      const next = _value(b.subarray(0, end), i, depth + 1);
      if (next === -1) return -1;
      i = next;
    }
  }
  return end;
}

/** DER's rules for a universal-class value's form and contents (tag with its constructed bit). */
function _universalOk(tag: number, content: Uint8Array): boolean {
  switch (tag) {
    case 0x30: // SEQUENCE
    case 0x31: // SET
      return true;
    case 0x10: // SEQUENCE and SET, primitive: always constructed (X.690 §8.9.1, §8.11.1)
    case 0x11:
      return false;
    case 0x01: // BOOLEAN
      return content.length === 1 && (content[0] === 0x00 || content[0] === 0xff);
    case 0x02: // INTEGER
    case 0x0a: // ENUMERATED
      return isMinimalDerInteger(content);
    case 0x05: // NULL
      return content.length === 0;
    case 0x00: // end-of-contents: BER's indefinite form only
      return false;
    default:
      return (tag & 0x20) === 0; // every other universal type is primitive in DER
  }
}

/**
 * Whether an INTEGER's contents are DER: at least one byte, and no leading byte that only repeats
 * the sign of the next (X.690 §8.3.2).
 *
 * @param content the INTEGER's content bytes
 * @returns true when minimal
 * @example
 * ```ts
 * import { isMinimalDerInteger } from "./_strict_der.ts";
 * if (!isMinimalDerInteger(new Uint8Array([0x00, 0x80]))) throw new Error();
 * if (isMinimalDerInteger(new Uint8Array([0x00, 0x03]))) throw new Error("padded");
 * ```
 */
export function isMinimalDerInteger(content: Uint8Array): boolean {
  if (content.length === 0) return false;
  if (content.length === 1) return true;
  const [a, b] = [content[0]!, content[1]! & 0x80];
  return !((a === 0x00 && b === 0) || (a === 0xff && b !== 0));
}
