/**
 * A checkpoint whose config this version does not model (NOT_VERIFIED) hides no contradiction
 * that needs no checkpoint. A served sequence's history was fetched and checked only once the
 * checkpoint was open, so committing the honest `config.json` plus one unknown field turned a
 * history the record contradicts (a prefix-cache hit off vLLM's KV blocks, a batch size, a pass
 * count, a gap, speculative decoding, a pass's GEMM or logits rows, a cascade claim vLLM never
 * makes, a withheld history) into NOT_VERIFIED; so did a fingerprint describing another tensor,
 * dtype or row count, on sequence and model-forward records alike. Each now FAILs as it does over
 * the modelled config, with the same reason.
 */
import assert from "node:assert/strict";
import {
  type ClaimPredicate,
  type HistoryPass,
  type SequenceWorkload,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { setField, withConfig } from "./_config_edit.ts";
import { type Blobs, forwardScenario, proverRun, verifyAlone } from "./_recompute_fixture.ts";
import { bentSequence, vllmServedScenario } from "./_vllm_served.ts";

/** One 40-token prompt and 3 generated tokens served on the eager vLLM stack. */
const run = await proverRun(
  vllmServedScenario({ logId: "config-order", seed: "config-order-v1" }, { prompt: 40 }),
);
const honest = run.records[1]!.predicate;
const blobs: Blobs = new Map(run.blobs);
const forward = await proverRun(forwardScenario([], 1));
const forwardBlobs: Blobs = new Map(forward.blobs);

/** The record over its config plus a field no family models. */
function unmodelled(p: ClaimPredicate, into: Blobs): ClaimPredicate {
  return withConfig(p, into, setField("foo", 1));
}

/** A pass of `cached` positions then `query` new ones beside requests holding `others`. */
function pass(query: number, cached: number, others: readonly number[] = []): HistoryPass {
  const entries = [{ query, cached }, ...others.map((c) => ({ query: 1, cached: c }))];
  return { entries, self: 0, rows: query + others.length, logitsRows: entries.length };
}

/**
 * The record with another history and prompt length (its own tokens, cut or repeated), its
 * fingerprint flipped: no replay could match it, so only NOT_VERIFIED or FAIL can come back.
 */
function bent(passes: readonly HistoryPass[], prompt?: number): ClaimPredicate {
  return bentSequence(honest, { passes, blobs, prompt });
}

/** The record with its workload (or predicate) fields replaced. */
function edited(
  p: ClaimPredicate,
  w: Partial<SequenceWorkload>,
  more: Partial<ClaimPredicate> = {},
) {
  return { ...p, ...more, workload: { ...p.workload, ...w } } as ClaimPredicate;
}

/** The FAIL over the modelled config, and the same FAIL over the unmodelled one. */
async function assertSameFail(p: ClaimPredicate, into: Blobs, reason: RegExp): Promise<void> {
  const modelled = await verifyAlone(p, into);
  assert.equal(modelled.status, "FAIL", modelled.reason);
  assert.match(modelled.reason, reason);
  const r = await verifyAlone(unmodelled(p, into), into);
  assert.equal(r.status, "FAIL", `over an unmodelled config: ${r.reason}`);
  assert.equal(r.reason, modelled.reason);
  assert.equal(r.finding, modelled.finding);
  assert.equal(r.obligation, modelled.obligation);
}

const OK: readonly HistoryPass[] = [pass(40, 0), pass(1, 40), pass(1, 41)];

Deno.test("the config plus an unknown field is not modelled: the honest-shaped record is NOT_VERIFIED for it", async () => {
  for (
    const [p, into] of [[honest, blobs], [forward.records[1]!.predicate, forwardBlobs]] as const
  ) {
    const r = await verifyAlone(unmodelled(p, into), into);
    assert.equal(r.status, "NOT_VERIFIED", r.reason);
    assert.match(r.reason, /^checkpoint: Cannot use config: field 'foo' is not modelled/);
  }
});

Deno.test("a sequence record's history contradictions FAIL over an unmodelled config as over the modelled one", async () => {
  const three = bent(OK);
  const history = (three.workload as SequenceWorkload).history;
  const eight = [40, 33, 34, 35, 36, 37, 38, 39];
  const cases: [ClaimPredicate, RegExp][] = [
    [bent([pass(23, 17), pass(1, 40)]), /whole 16-position KV blocks/],
    [edited(three, {}, { batch: { size: 3 } }), /batch size 3, its widest pass has 1 entries/],
    [edited(three, { history: { ...history, passes: 4 } }), /record says 4 passes, its history/],
    [
      bent([pass(40, 0), pass(1, 41)]),
      /pass 1 says 41 cached tokens, the earlier passes computed 40/,
    ],
    [bent([pass(40, 0), pass(2, 40)]), /computes 2 generated positions at once \(speculative/],
    [bent([{ ...pass(40, 0), rows: 43 }, pass(1, 40), pass(1, 41)]), /pass 0 says 43 GEMM rows/],
    [
      bent([{ ...pass(40, 0), logitsRows: 0 }, pass(1, 40), pass(1, 41)]),
      /pass 0 records 0 logits rows/,
    ],
    [
      bent([pass(40, 0), { ...pass(1, 40, eight.slice(1)), cascadePrefix: 32 }, pass(1, 41)]),
      /cascade attention over a 32-token prefix, which vLLM 0\.11 uses only for .* 256 tokens/,
    ],
  ];
  for (const [p, reason] of cases) await assertSameFail(p, blobs, reason);
});

Deno.test("a sequence record whose history is withheld FAILs with committed-input over an unmodelled config", async () => {
  const sha256 = sha256Hex(new TextEncoder().encode("withheld"));
  const p = edited(bent(OK), { history: { sha256, passes: 3 } });
  await assertSameFail(p, blobs, /serving history .* was not produced/);
  const r = await verifyAlone(unmodelled(p, blobs), blobs);
  assert.equal(r.obligation, "committed-input");
});

Deno.test("a fingerprint describing another tensor, dtype or row count FAILs over an unmodelled config (sequence and model_forward)", async () => {
  const fwd = forward.records[1]!.predicate;
  const patches: [Partial<ClaimPredicate["fingerprint"]>, RegExp][] = [
    [{ tensor: "model.layers.1.mlp.out" }, /fingerprint tensor is 'model\.layers\.1\.mlp\.out'/],
    [{ dtype: "fp32" }, /fingerprint dtype is 'fp32'/],
    [{ shape: [2, 256] }, /fingerprint shape is \[2, 256\], .* computes \[1, hidden\]/],
  ];
  for (const [patch, reason] of patches) {
    for (const [p, into] of [[bent(OK), blobs], [fwd, forwardBlobs]] as const) {
      await assertSameFail({ ...p, fingerprint: { ...p.fingerprint, ...patch } }, into, reason);
    }
  }
  // The width, which the config fixes, is checked once the config is read.
  const wide = { ...fwd, fingerprint: { ...fwd.fingerprint, shape: [1, 255] } };
  const r = await verifyAlone(wide, forwardBlobs);
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /fingerprint shape is \[1, 255\], .* computes \[1, 256\]/);
});
