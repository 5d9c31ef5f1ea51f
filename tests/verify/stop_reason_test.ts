/** A record's reason and step details are clipped: they quote the record, and are signed. */
import assert from "node:assert/strict";
import { _MAX_REASON, _Stop } from "../../src/verify/_stop.ts";

Deno.test("_Stop clips a reason that quotes an input at any length", () => {
  const long = new _Stop("FAIL", `record contradicts its stack: components.${"x".repeat(5e6)}`);
  assert.ok(long.why.length <= _MAX_REASON + 40, String(long.why.length));
  assert.match(
    long.why,
    /^record contradicts its stack: components\.x+\.\.\. \(\d+ more characters\)$/,
  );
  assert.equal(long.message, long.why);
  const short = new _Stop("NOT_VERIFIED", "reason");
  assert.equal(short.why, "reason");
});
