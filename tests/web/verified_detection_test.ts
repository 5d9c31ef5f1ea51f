/**
 * The verified records' detection figures beside the signed statement: only PASS and FAIL count,
 * and a level whose F, or a count, is not one of N's records gets no figure (and no exception).
 */
import assert from "node:assert/strict";
import { type DetectionStatement, detectionStatement } from "../../src/verify/mod.ts";
import { verifiedDetection } from "../../src/web/mod.ts";

/** Results with these statuses. */
const results = (...s: string[]) => s.map((status) => ({ status }));

/** The statement with level 0's false count replaced. */
function withFalseCount(d: DetectionStatement, falseCount: number): DetectionStatement {
  return { ...d, levels: d.levels.map((l, i) => (i === 0 ? { ...l, falseCount } : l)) };
}

Deno.test("verifiedDetection() counts PASS and FAIL only, not any other status", () => {
  // N = 10, F = ⌈0.1 · 10⌉ = 1: k verified records catch it with probability k/10 exactly,
  // written lowered by the error bound and rounded down: (k/10 − 10^−6) in six decimals.
  const d = detectionStatement(10, { k: 5, rates: ["0.1"] });
  const v = verifiedDetection(d, results("PASS", "FAIL", "NOT_VERIFIED", "", "SKIPPED"));
  assert.equal(v.sampled, 5);
  assert.equal(v.verified, 2);
  assert.equal(v.hypergeometric[0], "0.199999");
});

Deno.test("verifiedDetection() gives no figure for a count that is not one of N's records", () => {
  const d = detectionStatement(6, { k: 4, rates: ["0.5"] });
  assert.equal(d.levels[0]!.falseCount, 3);
  // 3 of 6 false, 2 verified: 1 − C(3, 2)/C(6, 2) = 1 − 3/15 = 0.8, written one unit below.
  assert.deepEqual(verifiedDetection(d, results("PASS", "PASS")).hypergeometric, ["0.799999"]);
  // F = N + 1, F = −1, F = 2.5: no figure.
  for (const f of [7, -1, 2.5]) {
    assert.deepEqual(
      verifiedDetection(withFalseCount(d, f), results("PASS", "PASS")).hypergeometric,
      [null],
      String(f),
    );
  }
  // F = N: every record false, any verified record catches one.
  assert.deepEqual(
    verifiedDetection(withFalseCount(d, 6), results("PASS")).hypergeometric,
    ["1.000000"],
  );
  // More verified records (7) than the N = 6 signed: no figure.
  assert.deepEqual(verifiedDetection(d, results(...Array(7).fill("PASS"))).hypergeometric, [null]);
});
