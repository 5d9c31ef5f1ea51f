/**
 * The verified records' detection figures beside the signed statement: only PASS and FAIL count,
 * and a level whose F, or a count, is not one of N's records gets no figure (and no exception).
 */
import assert from "node:assert/strict";
import { detectionStatement } from "../../src/verify/mod.ts";
import { verifiedDetection } from "../../src/web/mod.ts";

/** Results with these statuses. */
const results = (...s: string[]) => s.map((status) => ({ status }));

Deno.test("verifiedDetection() counts PASS and FAIL only, not any other status", () => {
  // N = 10, F = ⌈0.1 · 10⌉ = 1: k verified records catch it with probability k/10 exactly,
  // written lowered by the error bound and rounded down: (k/10 − 10^−6) in six decimals.
  const d = detectionStatement(10, { k: 5, rates: ["0.1"] });
  const v = verifiedDetection(d, results("PASS", "FAIL", "NOT_VERIFIED", "", "SKIPPED"));
  assert.equal(v.sampled, 5);
  assert.equal(v.verified, 2);
  assert.equal(v.hypergeometric[0], "0.199999");
});
