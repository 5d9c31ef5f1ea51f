/**
 * What the simulated prover's forward falsifications run, against their definitions
 * (`forward_scenario.ts`; docs/prover.md, "The simulated prover"): `weight_flip` flips bit `bit`
 * of BF16 element `index` of `tensor` and refuses an element outside the tensor
 * (`SCENARIO_INVALID`); `attention_backend` records one sequence of `length` tokens.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import type { ModelForwardWorkload } from "../../src/claims/mod.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { forwardSection, oneGemmScenario } from "../verify/_serving_fixture.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { InputError } from "../../src/errors.ts";

const store = await openAssetStore();
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });
const DENSE = "tables/models/qwen3-tiny-dense";
/** The dense checkpoint's hidden size, from its config.json: `model.norm.weight` has as many. */
const HIDDEN = (JSON.parse(
  await Deno.readTextFile(new URL(`../../${DENSE}/config.json`, import.meta.url)),
) as { hidden_size: number }).hidden_size;

/** One forward record (log seq 1, after the scenario's one GEMM record) with `falsify`. */
const run = (falsify: unknown[]) =>
  makeClaims(
    parseScenario(oneGemmScenario({ logId: "falsify", seed: "falsify-v1" }, {
      forward: forwardSection([DENSE], { records: 1 }),
      falsify,
    })),
    { store, walker: engineWalker, attention },
  );
const flip = (index: number, bit: number) => ({
  seq: 1,
  kind: "weight_flip",
  tensor: "model.norm.weight",
  index,
  bit,
});

Deno.test("weight_flip refuses the element one past the tensor's last (SCENARIO_INVALID) and takes the last", async () => {
  assert.equal(HIDDEN, 256);
  await assertRejectsCode(() => run([flip(HIDDEN, 0)]), InputError, "SCENARIO_INVALID");
  const out = await run([flip(HIDDEN - 1, 0)]);
  assert.deepEqual(out.falsified, [{ seq: 1, kind: "weight_flip" }]);
});

Deno.test("weight_flip bit 15 is the sign of the BF16 weight: the final norm's rows come out with that column negated, and no other bit changed", async () => {
  const k = 37;
  const honest = await run([]);
  const fake = await run([flip(k, 15)]);
  const rows = (o: typeof honest) => {
    const r = o.records[1]!;
    assert.equal((r.predicate.workload as ModelForwardWorkload).kind, "model_forward");
    return o.blobs.get(r.predicate.fingerprint.sha256)!;
  };
  const a = rows(honest);
  const b = rows(fake);
  assert.equal(a.length, b.length);
  assert.equal(a.length % (2 * HIDDEN), 0);
  // model.norm.out = weight * normed (HF's Qwen3RMSNorm, in BF16): negating one weight negates
  // that column exactly (round-to-nearest-even is symmetric), i.e. flips its sign bit, the high
  // bit of the little-endian element's second byte.
  const want = a.slice();
  for (let row = 0; row < a.length / (2 * HIDDEN); row++) {
    want[row * 2 * HIDDEN + 2 * k + 1]! ^= 0x80;
  }
  assert.deepEqual(b, want);
});

Deno.test("attention_backend records one sequence of 'length' tokens, fingerprinted at its last", async () => {
  const out = await run([
    { seq: 1, kind: "attention_backend", attention: "fa2-pytorch-bundled", length: 7 },
  ]);
  const p = out.records[1]!.predicate;
  const w = p.workload as ModelForwardWorkload;
  assert.equal(p.batch.size, 1);
  assert.equal(w.tokens.sequences.length, 1);
  assert.equal(w.tokens.sequences[0]!.length, 7);
  assert.deepEqual(w.positions, [[0, 6]]);
  assert.deepEqual(p.fingerprint.shape, [1, HIDDEN]);
  assert.deepEqual(out.falsified, [{ seq: 1, kind: "attention_backend" }]);
});

Deno.test("weight_flip takes bits 0 to 15 of a BF16 element (16 bits) and refuses bit 16, another element's", () => {
  const scenario = (bit: number) =>
    parseScenario(oneGemmScenario({ logId: "falsify", seed: "falsify-v1" }, {
      forward: forwardSection([DENSE], { records: 1 }),
      falsify: [flip(0, bit)],
    }));
  assert.equal(scenario(15).falsify[0]!.kind, "weight_flip");
  assert.throws(() => scenario(16), RangeError);
  assert.throws(() => scenario(-1), RangeError);
});

Deno.test("batch_composition's extra sequence has at least one token: extraLength 0 is refused when the scenario is read, naming the field", () => {
  const scenario = (extraLength: number) =>
    parseScenario(oneGemmScenario({ logId: "falsify", seed: "falsify-v1" }, {
      forward: forwardSection([DENSE], { records: 1 }),
      falsify: [{ seq: 1, kind: "batch_composition", extraLength }],
    }));
  assert.equal(scenario(1).falsify[0]!.kind, "batch_composition");
  assert.throws(() => scenario(0), /extraLength/);
});
