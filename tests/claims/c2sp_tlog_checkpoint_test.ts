/** The tlog-checkpoint note text (c2sp.org/tlog-checkpoint), with the spec's example body. */
import assert from "node:assert/strict";
import { formatCheckpoint, parseCheckpoint } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";

// c2sp.org/tlog-checkpoint, opening example.
const EXAMPLE =
  "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";

Deno.test("parseCheckpoint() reads the C2SP example and formatCheckpoint() writes it back", () => {
  const cp = parseCheckpoint(EXAMPLE);
  assert.equal(cp.origin, "example.com/behind-the-sofa");
  assert.equal(cp.treeSize, 20852163);
  assert.equal(cp.rootHash.length, 32);
  assert.equal(formatCheckpoint(cp), EXAMPLE);
  const ext = parseCheckpoint(`${EXAMPLE}ext line\n`);
  assert.deepEqual(ext.extensions, ["ext line"]);
  assert.equal(formatCheckpoint(ext), `${EXAMPLE}ext line\n`);
});

Deno.test("parseCheckpoint() throws BAD_CHECKPOINT on malformed text", () => {
  const bad = (t: string) =>
    assert.throws(
      () => parseCheckpoint(t),
      (e: unknown) => e instanceof InputError && e.code === "BAD_CHECKPOINT",
    );
  bad(EXAMPLE.slice(0, -1));
  bad("o\n1\n");
  bad(EXAMPLE.replace("20852163", "020852163"));
  bad(EXAMPLE.replace("20852163", "-1"));
  bad(EXAMPLE.replace("20852163", "99999999999999999"));
  bad(EXAMPLE.replace("CsUY", "CsU_"));
  bad(EXAMPLE.replace("2I=", "2J=")); // non-zero padding bits
  bad(EXAMPLE.replace("Cs", "")); // not 32 bytes
  bad(`\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n`);
  bad(`${EXAMPLE}\n`);
});

Deno.test("formatCheckpoint() refuses origins that cannot be key names and bad roots", () => {
  const cp = parseCheckpoint(EXAMPLE);
  assert.throws(() => formatCheckpoint({ ...cp, origin: "a b" }), RangeError);
  assert.throws(() => formatCheckpoint({ ...cp, origin: "a+b" }), RangeError);
  assert.throws(() => formatCheckpoint({ ...cp, rootHash: new Uint8Array(31) }), RangeError);
  assert.throws(() => formatCheckpoint({ ...cp, extensions: [""] }), RangeError);
});
