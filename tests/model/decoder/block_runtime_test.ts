/**
 * `catalogDispatch()` passes a linear's bias to the catalog lookup: a catalog's entries are per
 * shape and per bias (`bias: true` entries cover only linears with a bias, `docs/prover.md`; the
 * bundled `demo-qwen2-tiny-a100` catalog lists a different kernel for q/k/v's `addmm` than for
 * the same shape's `mm`), so a biased projection must get its bias entry's recipe, and a shape
 * listed only without a bias must stay uncovered for a biased call.
 */
import assert from "node:assert/strict";
import { parseDispatchCatalog } from "../../../src/kernels/mod.ts";
import { catalogDispatch } from "../../../src/model/mod.ts";

const PLAIN = { family: "parallel_split_k", splitK: 2, tileK: 64, workspace: "output" };
const BIASED = { family: "parallel_split_k", splitK: 2, tileK: 64, workspace: "fp32" };

/** A catalog entry for n x 256 at M 1..16. */
function _entry(n: number, recipe: object) {
  return { n, k: 256, mMin: 1, mMax: 16, recipe, kernel: null, verified: null, evidence: "test" };
}

const CATALOG = parseDispatchCatalog({
  schema: "bitaudit.dispatch-catalog/v1",
  id: "bias-test",
  gpu: "a100",
  library: { name: "test", version: "1" },
  dtypes: { a: "bf16", b: "bf16", out: "bf16", compute: "fp32" },
  layout: "tn",
  sources: [],
  entries: [
    _entry(256, PLAIN),
    { ..._entry(256, BIASED), bias: true },
    _entry(512, PLAIN),
  ],
});

Deno.test("catalogDispatch(): a linear with a bias gets the catalog's bias entry, one without the plain entry; a shape listed without a bias does not cover a biased call", () => {
  const dispatch = catalogDispatch(CATALOG);
  const plain = dispatch({ name: "o_proj", m: 4, n: 256, k: 256 });
  const biased = dispatch({ name: "q_proj", m: 4, n: 256, k: 256, bias: true });
  assert.ok(plain.covered && biased.covered);
  assert.deepEqual({ ...plain.recipe }, PLAIN);
  assert.deepEqual({ ...biased.recipe }, BIASED);
  const none = dispatch({ name: "gate_proj", m: 4, n: 512, k: 256, bias: true });
  assert.equal(none.covered, false);
  if (!none.covered) assert.match(none.reason, /^gate_proj: .*with a bias/);
  assert.equal(dispatch({ name: "gate_proj", m: 4, n: 512, k: 256 }).covered, true);
});
