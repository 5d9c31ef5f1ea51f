/** A claimed SM count against the GPU profile's chip. */
import assert from "node:assert/strict";
import { KNOWN_SM_COUNTS, smCountMismatch } from "../../src/hardware/mod.ts";

Deno.test("SM counts: the chip's own passes, above it contradicts, below it or unknown is not modelled", () => {
  for (const [id, n] of Object.entries(KNOWN_SM_COUNTS)) {
    assert.equal(smCountMismatch(id, n), null, id);
    assert.equal(smCountMismatch(id, n + 1)?.kind, "contradiction", id);
    assert.equal(smCountMismatch(id, n - 1)?.kind, "unmodelled", id);
  }
  assert.equal(smCountMismatch("a30", 56)?.kind, "unmodelled");
  assert.match(smCountMismatch("a30", 56)!.reason, /no known SM count/);
  // A prototype key is no profile.
  assert.equal(smCountMismatch("constructor", 1)?.kind, "unmodelled");
});
