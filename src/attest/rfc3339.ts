/**
 * RFC 3339 timestamps as used by in-toto (`field_types.md`) and the trust root.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { utcDateTime } from "./utc_date_time.ts";

const RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Parses an RFC 3339 `date-time` (§5.6) to milliseconds since the Unix epoch.
 *
 * Accepted: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with upper-case `T` and `Z`, a real calendar
 * date, hours < 24, minutes and seconds < 60 (leap second 60 is refused), offsets within ±23:59.
 * Fractions beyond milliseconds are truncated (towards the earlier instant).
 *
 * @param text the timestamp
 * @returns milliseconds since 1970-01-01T00:00:00Z
 * @throws {InputError} `BAD_TIMESTAMP` when the text is not such a timestamp
 * @example
 * ```ts
 * import { parseRfc3339 } from "./rfc3339.ts";
 * if (parseRfc3339("1970-01-01T01:00:00.5+01:00") !== 500) throw new Error();
 * ```
 */
export function parseRfc3339(text: string): number {
  const m = typeof text === "string" ? RE.exec(text) : null;
  if (m === null) _bad(text, "not YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM)");
  const at = utcDateTime(m.slice(1, 7).map(Number));
  if ("why" in at) _bad(text, at.why);
  const ms = m[7] === undefined ? 0 : Number(`${m[7].slice(1)}00`.slice(0, 3));
  let offset = 0;
  const zone = m[8] as string;
  if (zone !== "Z") {
    const oh = Number(zone.slice(1, 3));
    const om = Number(zone.slice(4, 6));
    if (oh > 23 || om > 59) _bad(text, "offset out of range");
    offset = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return at.ms + ms - offset;
}

function _bad(text: unknown, why: string): never {
  throw new InputError("BAD_TIMESTAMP", `Cannot read timestamp ${JSON.stringify(text)}: ${why}`);
}
