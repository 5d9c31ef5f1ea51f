/**
 * A UTC calendar date and time of day read from its six fields, with the range checks every time
 * format here shares (RFC 3339, ASN.1 UTCTime and GeneralizedTime).
 *
 * @module
 */

/**
 * Milliseconds since the Unix epoch of a UTC date and time given field by field: month 1-12, a day
 * the month has, hours below 24, minutes and seconds below 60 (no leap second); years 0-99 are
 * those years, not 1900-1999.
 *
 * @param fields year, month (1-12), day, hour, minute, second: six non-negative integers
 * @returns the milliseconds, or why the fields name no instant
 * @example
 * ```ts
 * import { utcDateTime } from "./utc_date_time.ts";
 * const t = utcDateTime([1970, 1, 2, 0, 0, 0]);
 * if (!("ms" in t) || t.ms !== 86_400_000) throw new Error();
 * const june31 = utcDateTime([2026, 6, 31, 0, 0, 0]);
 * if (!("why" in june31) || june31.why !== "no such calendar date") throw new Error();
 * ```
 */
export function utcDateTime(
  fields: readonly number[],
): { readonly ms: number } | { readonly why: "field out of range" | "no such calendar date" } {
  const [year = NaN, month = NaN, day = NaN, hour = NaN, minute = NaN, second = NaN] = fields;
  const whole = fields.length === 6 && fields.every((f) => Number.isSafeInteger(f) && f >= 0);
  if (!whole || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return { why: "field out of range" };
  }
  // setUTCFullYear (unlike Date.UTC) keeps years 0-99 as given.
  const t = new Date(0);
  t.setUTCFullYear(year, month - 1, day);
  if (t.getUTCFullYear() !== year || t.getUTCMonth() !== month - 1 || t.getUTCDate() !== day) {
    return { why: "no such calendar date" };
  }
  t.setUTCHours(hour, minute, second, 0);
  return { ms: t.getTime() };
}
