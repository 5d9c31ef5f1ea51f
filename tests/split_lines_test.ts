/** `splitLines()`: `split("\n")`'s pieces, or null past a count checked before they are made. */
import assert from "node:assert/strict";
import { splitLines } from "../src/split_lines.ts";

Deno.test("splitLines() gives split's pieces up to the bound and null past it", () => {
  for (const text of ["", "a", "a\n", "\n", "a\nb", "a\n\nb\n", "\n\n\n"]) {
    const want = text.split("\n");
    assert.deepEqual(splitLines(text, want.length), want, JSON.stringify(text));
    assert.equal(splitLines(text, want.length - 1), null, JSON.stringify(text));
  }
  assert.equal(splitLines("\n".repeat(140_000_000), 1_000_001), null);
});
