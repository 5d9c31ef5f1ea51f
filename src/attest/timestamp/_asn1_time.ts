/**
 * The times a time-stamp token's verification rests on, read from their bytes: the TSTInfo's
 * `genTime` (RFC 3161 §2.4.2: GeneralizedTime `YYYYMMDDhhmmss[.s...]Z`, UTC, a fraction without
 * trailing zeros) and a certificate's `notBefore` / `notAfter` (RFC 5280 §4.1.2.5: UTCTime
 * `YYMMDDHHMMSSZ`, years 50-99 in the 1900s, or GeneralizedTime `YYYYMMDDHHMMSSZ`, no fraction).
 * The ASN.1 library reads such strings leniently (a time without `Z` as local time, month 13 as
 * the next January, second 60 as the next minute, `2026060112Z` as a time at all), so the token
 * could be dated other than its TSA wrote; here every other form, and every field out of its
 * range (a day past its month's end, second 60, hour 24), is refused.
 *
 * @module
 */
import { utcDateTime } from "../utc_date_time.ts";

/** GeneralizedTime of RFC 3161: seconds required, an optional fraction whose last digit is not 0. */
const GEN_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{0,17}[1-9]))?Z$/;
/** GeneralizedTime of RFC 5280 (no fraction). */
const CERT_GENERALIZED = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/;
/** UTCTime of RFC 5280. */
const CERT_UTC = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/;

/**
 * A TSTInfo `genTime` in milliseconds since the epoch, a fraction finer than a millisecond
 * rounded up (the time is used as the latest instant the token allows).
 *
 * @param content the GeneralizedTime's content bytes
 * @returns the time, or undefined when it is not in RFC 3161's form or a field is out of range
 * @example
 * ```ts
 * import { genTimeMillis } from "./_asn1_time.ts";
 * const b = (s: string) => new TextEncoder().encode(s);
 * if (genTimeMillis(b("20260601120000.5Z")) !== Date.UTC(2026, 5, 1, 12, 0, 0, 500)) throw new Error();
 * if (genTimeMillis(b("20260601120000")) !== undefined) throw new Error("no Z");
 * if (genTimeMillis(b("20260631120000Z")) !== undefined) throw new Error("31 June");
 * ```
 */
export function genTimeMillis(content: Uint8Array): number | undefined {
  const m = GEN_TIME.exec(_ascii(content));
  if (m === null) return undefined;
  const at = _utc(m.slice(1, 7).map(Number));
  if (at === undefined) return undefined;
  const fraction = m[7] ?? "";
  const millis = Number(fraction.slice(0, 3).padEnd(3, "0"));
  // A fraction longer than three digits ends in a non-zero digit: it lies past those milliseconds.
  return at + millis + (fraction.length > 3 ? 1 : 0);
}

/**
 * A certificate validity time (`notBefore` or `notAfter`) in milliseconds since the epoch.
 *
 * @param tag the Time's tag: 0x17 UTCTime or 0x18 GeneralizedTime
 * @param content its content bytes
 * @returns the time, or undefined when it is not in RFC 5280's form or a field is out of range
 * @example
 * ```ts
 * import { certificateTimeMillis } from "./_asn1_time.ts";
 * const b = (s: string) => new TextEncoder().encode(s);
 * if (certificateTimeMillis(0x17, b("491231235959Z")) !== Date.UTC(2049, 11, 31, 23, 59, 59)) {
 *   throw new Error();
 * }
 * if (certificateTimeMillis(0x17, b("500101000000Z")) !== Date.UTC(1950, 0, 1)) throw new Error();
 * if (certificateTimeMillis(0x18, b("20500101000000.5Z")) !== undefined) throw new Error();
 * ```
 */
export function certificateTimeMillis(tag: number, content: Uint8Array): number | undefined {
  const text = _ascii(content);
  if (tag === 0x18) {
    const m = CERT_GENERALIZED.exec(text);
    return m === null ? undefined : _utc(m.slice(1, 7).map(Number));
  }
  if (tag !== 0x17) return undefined;
  const m = CERT_UTC.exec(text);
  if (m === null) return undefined;
  const [yy, ...rest] = m.slice(1, 7).map(Number);
  return _utc([yy! + (yy! >= 50 ? 1900 : 2000), ...rest]);
}

/** Milliseconds of a UTC date and time whose every field is in range, else undefined. */
function _utc(fields: number[]): number | undefined {
  const at = utcDateTime(fields);
  return "ms" in at ? at.ms : undefined;
}

/** The bytes as text when every one is printable ASCII, else a string no pattern matches. */
function _ascii(content: Uint8Array): string {
  if (content.length > 64 || content.some((b) => b < 0x20 || b > 0x7e)) return "";
  return String.fromCharCode(...content);
}
