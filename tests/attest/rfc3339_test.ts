import assert from "node:assert/strict";
import { parseRfc3339 } from "../../src/attest/rfc3339.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

Deno.test("parseRfc3339() gives epoch milliseconds when zones and fractions vary", () => {
  assert.equal(parseRfc3339("1970-01-01T00:00:00Z"), 0);
  assert.equal(parseRfc3339("2026-11-05T12:34:56Z"), Date.UTC(2026, 10, 5, 12, 34, 56));
  assert.equal(parseRfc3339("2026-11-05T12:34:56.789Z"), Date.UTC(2026, 10, 5, 12, 34, 56, 789));
  assert.equal(
    parseRfc3339("2026-11-05T12:34:56.7899999Z"),
    Date.UTC(2026, 10, 5, 12, 34, 56, 789),
  );
  assert.equal(parseRfc3339("2026-11-05T12:34:56.1Z"), Date.UTC(2026, 10, 5, 12, 34, 56, 100));
  assert.equal(parseRfc3339("2026-11-05T14:34:56+02:00"), Date.UTC(2026, 10, 5, 12, 34, 56));
  assert.equal(parseRfc3339("2026-11-05T07:04:56-05:30"), Date.UTC(2026, 10, 5, 12, 34, 56));
  assert.equal(parseRfc3339("2024-02-29T00:00:00Z"), Date.UTC(2024, 1, 29));
  assert.equal(parseRfc3339("0050-01-01T00:00:00Z"), new Date("0050-01-01T00:00:00Z").getTime());
});

Deno.test("parseRfc3339() throws BAD_TIMESTAMP when the text is not a date-time", () => {
  for (
    const t of [
      "2026-11-05",
      "2026-11-05 12:34:56Z",
      "2026-11-05t12:34:56z",
      "2026-11-05T12:34:56",
      "2026-02-29T00:00:00Z",
      "2026-04-31T00:00:00Z",
      "2026-00-10T00:00:00Z",
      "2026-11-05T24:00:00Z",
      "2026-11-05T23:60:00Z",
      "2026-12-31T23:59:60Z",
      "2026-11-05T12:34:56+24:00",
      "2026-11-05T12:34:56.Z",
      " 2026-11-05T12:34:56Z",
    ]
  ) {
    assert.throws(
      () => parseRfc3339(t),
      isCode(InputError, "BAD_TIMESTAMP"),
      t,
    );
  }
});
