/** A record's reason and step details are clipped: they quote the record, and are signed. */
import assert from "node:assert/strict";
import { _MAX_REASON, _Stop } from "../../src/verify/_stop.ts";
import { clipText } from "../../src/clip_text.ts";

Deno.test("_Stop clips a reason that quotes an input at any length", () => {
  const long = new _Stop("FAIL", `record contradicts its stack: components.${"x".repeat(5e6)}`);
  assert.ok(long.why.length <= _MAX_REASON + 40, String(long.why.length));
  assert.match(
    long.why,
    /^record contradicts its stack: components\.x+\.\.\. \(\d+ more characters\)$/,
  );
  assert.equal(long.message, long.why);
  // Clipped again (the result keeps the reason it is given): the true count stays.
  assert.equal(clipText(long.why, _MAX_REASON), long.why);
  const total = "record contradicts its stack: components.".length + 5e6;
  assert.ok(long.why.endsWith(`(${total - _MAX_REASON} more characters)`), long.why.slice(-40));
  const short = new _Stop("NOT_VERIFIED", "reason");
  assert.equal(short.why, "reason");
});
