/**
 * The time a TSTInfo vouches for, read from the bytes its TSA signed (RFC 3161 §2.4.2): the
 * fields in their order and nothing else (version 1, policy, messageImprint, serialNumber,
 * genTime, then optional accuracy, ordering, nonce, tsa, extensions), `genTime` in its one form,
 * and `accuracy` as integers read here. The ASN.1 library gives 0 for an INTEGER of four bytes or
 * more, so an accuracy of 8,388,608 seconds or more had read as none and the token's latest
 * instant as its `genTime`.
 *
 * @module
 */
import { genTimeMillis } from "./_asn1_time.ts";
import { derIntegerValue, readTlv, type Tlv, tlvChildren } from "./_der_tlv.ts";

/** Loosest accuracy accepted: a year (a TSA that cannot place its time within that is no clock). */
const MAX_ACCURACY_SECONDS = 365 * 86_400;

/** Tags in TSTInfo order after genTime (accuracy, ordering, nonce, tsa [0], extensions [1]). */
const OPTIONAL_TAGS = [0x30, 0x01, 0x02, 0xa0, 0xa1];

/**
 * Reads a TSTInfo's time: `genTime` (a fraction finer than a millisecond rounded up) plus its
 * accuracy, the latest instant the token allows.
 *
 * @param der the TSTInfo DER (the token's eContent), already strict DER
 * @returns that instant in ms since the epoch, or why it cannot be read
 * @example
 * ```ts
 * import { tstInfoTime } from "./_tst_info_time.ts";
 * if (typeof tstInfoTime(new Uint8Array([0x30, 0x00])) !== "string") throw new Error();
 * ```
 */
export function tstInfoTime(der: Uint8Array): number | string {
  let fields: Tlv[];
  try {
    const seq = readTlv(der);
    if (seq.tag !== 0x30 || seq.der.length !== der.length) return "the TSTInfo is not a SEQUENCE";
    fields = tlvChildren(seq);
  } catch {
    return "the TSTInfo is not a SEQUENCE";
  }
  const head = [0x02, 0x06, 0x30, 0x02, 0x18];
  if (fields.length < head.length || head.some((t, i) => fields[i]!.tag !== t)) {
    return "the TSTInfo's fields are not those of RFC 3161";
  }
  let next = 0;
  for (const f of fields.slice(head.length)) {
    const at = OPTIONAL_TAGS.indexOf(f.tag, next);
    if (at === -1) return "the TSTInfo's fields are not those of RFC 3161";
    next = at + 1;
  }
  if (fields[0]!.content.length !== 1 || fields[0]!.content[0] !== 1) {
    return "the TSTInfo's version is not 1";
  }
  const genTime = genTimeMillis(fields[4]!.content);
  if (genTime === undefined) return "the token's genTime is not a UTC time of RFC 3161's form";
  const accuracy = fields[5]?.tag === 0x30 ? _accuracyMillis(fields[5]) : 0;
  if (typeof accuracy === "string") return accuracy;
  return genTime + accuracy;
}

/** Accuracy ::= SEQUENCE { seconds INTEGER OPTIONAL, millis [0] 1..999, micros [1] 1..999 }. */
function _accuracyMillis(accuracy: Tlv): number | string {
  const bad = "the token's accuracy is malformed";
  let parts: Tlv[];
  try {
    parts = tlvChildren(accuracy);
  } catch {
    return bad;
  }
  const values = new Map<number, bigint>();
  let next = 0;
  for (const p of parts) {
    const at = [0x02, 0x80, 0x81].indexOf(p.tag, next);
    if (at === -1) return bad;
    next = at + 1;
    try {
      values.set(p.tag, derIntegerValue(p.content));
    } catch {
      return bad;
    }
  }
  const seconds = values.get(0x02) ?? 0n;
  if (seconds < 0n) return bad;
  if (seconds > BigInt(MAX_ACCURACY_SECONDS)) {
    return `the token's accuracy is looser than ${MAX_ACCURACY_SECONDS} seconds`;
  }
  for (const tag of [0x80, 0x81]) {
    const v = values.get(tag);
    if (v !== undefined && (v < 1n || v > 999n)) return bad;
  }
  const millis = Number(values.get(0x80) ?? 0n);
  // Microseconds round up to the next millisecond: the instant is the latest the token allows.
  const micros = values.has(0x81) ? 1 : 0;
  return Number(seconds) * 1000 + millis + micros;
}
