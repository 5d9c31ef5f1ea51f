import assert from "node:assert/strict";
import { countNoun } from "../../src/cli/count_noun.ts";

Deno.test("countNoun() is singular for exactly 1 and plural for 0 and above 1", () => {
  assert.equal(countNoun(1, "record"), "1 record");
  assert.equal(countNoun(0, "record"), "0 records");
  assert.equal(countNoun(372, "record"), "372 records");
  assert.equal(countNoun(1, ["entry", "entries"]), "1 entry");
  assert.equal(countNoun(2, ["entry", "entries"]), "2 entries");
});
