import assert from "node:assert/strict";
import { forwardPositionsFlag, sequencePositionsFlag } from "../../src/cli/positions_flag.ts";

const usage = (e: unknown) => (e as { code?: string }).code === "USAGE_NUMBER";

Deno.test("--positions reads pairs and positions in the order given", () => {
  assert.deepEqual(forwardPositionsFlag("1:2,0:4"), [[1, 2], [0, 4]]);
  assert.deepEqual(sequencePositionsFlag("7,3"), [7, 3]);
});

Deno.test("--positions refuses a row given twice, as a record's parser does", () => {
  assert.throws(() => forwardPositionsFlag("0:4,1:1,0:4"), usage);
  assert.throws(() => forwardPositionsFlag("0:4,00:4"), usage);
  assert.throws(() => sequencePositionsFlag("3,7,3"), usage);
  assert.throws(() => forwardPositionsFlag("0:4,x"), usage);
});
