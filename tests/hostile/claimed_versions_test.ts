/**
 * Red-team finding: the library versions a record states (`software.components`) were never
 * read, so a record naming a stack that pins PyTorch 2.8.0 and stating PyTorch 2.4.0 (whose
 * reduction trees differ) PASSed. A stated version the stack excludes now FAILs as a contradiction
 * of the stack; one with no release number to compare makes a match NOT_VERIFIED, and never hides
 * a FAIL.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate } from "../../src/claims/mod.ts";
import { forwardScenario, proverRun, verifyAlone } from "./_recompute_fixture.ts";

const out = await proverRun(forwardScenario([], 1));
const honest = out.records.find((r) => r.predicate.workload.kind === "model_forward")!.predicate;

const withComponents = (
  p: ClaimPredicate,
  components: Record<string, string>,
): ClaimPredicate => ({
  ...p,
  software: { ...p.software, components: { ...p.software.components, ...components } },
});

Deno.test("a record stating library versions its stack excludes FAILs; the stack's own pass", async () => {
  assert.equal((await verifyAlone(honest, out.blobs)).status, "PASS");
  const agreeing = withComponents(honest, { torch: "2.8.0+cu128", transformers: "4.57.1" });
  assert.equal((await verifyAlone(agreeing, out.blobs)).status, "PASS");
  for (const [key, value] of [["pytorch", "2.4.0"], ["flash_attn", "2.5.6"]] as const) {
    const r = await verifyAlone(withComponents(honest, { [key]: value }), out.blobs);
    assert.equal(r.status, "FAIL", `${key} ${value}: ${r.reason}`);
    assert.match(
      r.reason,
      new RegExp(`record contradicts its stack .*components\\.${key} '${value}'`),
    );
  }
});

Deno.test("a version with no release number makes a match NOT_VERIFIED, and hides no FAIL", async () => {
  const vague = withComponents(honest, { pytorch: "nightly" });
  const r = await verifyAlone(vague, out.blobs);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /^recomputed output matches the fingerprint, but .*no release number/);
  const falsified = {
    ...vague,
    fingerprint: { ...vague.fingerprint, sha256: "0".repeat(64) },
  };
  assert.equal((await verifyAlone(falsified, out.blobs)).status, "FAIL");
});
