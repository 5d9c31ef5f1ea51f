/**
 * How a config's fields are read where HF Transformers and vLLM differ from a plain reading: a
 * vLLM record over a config naming no `architectures` FAILs (vLLM picks its model class from that
 * list and refuses a config without one; it had PASSed); an integer written as a float where HF
 * only computes with it (llama3's `original_max_position_embeddings`, Qwen3-MoE's
 * `decoder_sparse_step`) is NOT_VERIFIED (it had FAILed an honest record as a malformed config).
 */
import assert from "node:assert/strict";
import type { ClaimPredicate, ModelForwardWorkload } from "../../src/claims/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { forwardSection, oneGemmScenario } from "../verify/_serving_fixture.ts";
import { attention, type Blobs, commit, store, verifyAlone } from "./_recompute_fixture.ts";

/** An honest one-record run of the bundled checkpoint `dir` (on `stack`, when given). */
async function honestOf(dir: string, logId: string, stack?: string) {
  const forward = forwardSection([`tables/models/${dir}`], { records: 1 });
  const scenario = parseScenario(oneGemmScenario({ logId, seed: `${logId}-v1` }, {
    forward: stack === undefined
      ? forward
      : { ...forward, stacks: [{ stack, components: { vllm: "0.11.0" } }] },
    falsify: [],
  }));
  const out = await makeClaims(scenario, { store, walker: engineWalker, attention });
  return { honest: out.records[1]!.predicate, blobs: new Map(out.blobs) as Blobs };
}

/** The record over its config text edited by `edit` (committed to `blobs`). */
function withConfig(
  honest: ClaimPredicate,
  blobs: Blobs,
  edit: (text: string) => string,
): ClaimPredicate {
  const w = honest.workload as ModelForwardWorkload;
  const text = new TextDecoder().decode(blobs.get(w.model.configSha256)!);
  const edited = edit(text);
  assert.notEqual(edited, text, "the edit changed nothing");
  const configSha256 = commit(blobs, new TextEncoder().encode(edited));
  return { ...honest, workload: { ...w, model: { ...w.model, configSha256 } } };
}

Deno.test("a vLLM record over a config naming no architectures FAILs: vLLM refuses such a config", async () => {
  const { honest, blobs } = await honestOf("qwen3-tiny-dense", "arch", "vllm-0.11-eager-fa2");
  assert.equal((await verifyAlone(honest, blobs)).status, "PASS");
  const edits: [string, (t: string) => string][] = [
    ["absent", (t) => JSON.stringify({ ...JSON.parse(t), architectures: undefined })],
    ["null", (t) => JSON.stringify({ ...JSON.parse(t), architectures: null })],
  ];
  for (const [what, edit] of edits) {
    const r = await verifyAlone(withConfig(honest, blobs, edit), blobs);
    assert.equal(r.status, "FAIL", `${what}: ${r.reason}`);
    assert.match(r.reason, /record contradicts its stack: .*names no architectures/, what);
  }
});

Deno.test("an integer HF only computes with, written as a float, is NOT_VERIFIED rather than a malformed config", async () => {
  const cases: [string, string, [string, string]][] = [
    ["llama3-tiny", "rope", [
      '"original_max_position_embeddings": 8192',
      '"original_max_position_embeddings": 8192.0',
    ]],
    ["qwen3-tiny-moe", "step", ['"decoder_sparse_step": 1,', '"decoder_sparse_step": 1.0,']],
  ];
  for (const [dir, logId, [from, to]] of cases) {
    const { honest, blobs } = await honestOf(dir, logId);
    assert.equal((await verifyAlone(honest, blobs)).status, "PASS", dir);
    const r = await verifyAlone(withConfig(honest, blobs, (t) => t.replace(from, to)), blobs);
    assert.equal(r.status, "NOT_VERIFIED", `${dir}: ${r.reason}`);
    assert.match(
      r.reason,
      /written as a fraction or with an exponent .*only an integer is modelled/,
    );
  }
});
