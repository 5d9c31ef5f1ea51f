import assert from "node:assert/strict";
import { detectionCurve, detectionStatement } from "../../mod.ts";

Deno.test("detectionCurve() at the audit's k equals the signed detection statement", () => {
  const curve = detectionCurve(300, { k: 120 });
  const signed = detectionStatement(300, { k: 120 });
  for (const l of signed.levels) {
    const at = (method: string) =>
      curve.find((p) => p.k === 120 && p.rate === l.pFalse && p.method === method)!.probability;
    assert.equal(at("binomial"), Number(l.binomial));
    assert.equal(at("hypergeometric"), Number(l.hypergeometric));
  }
});

Deno.test("detectionCurve() spans 0..min(N, 4k), includes k, and never decreases with k", () => {
  const curve = detectionCurve(1_000_000, { k: 777, rates: ["0.001"], points: 40 });
  const ks = [...new Set(curve.map((p) => p.k))];
  assert.equal(ks[0], 0);
  assert.equal(ks.at(-1), 4 * 777);
  assert.ok(ks.includes(777));
  for (const method of ["binomial", "hypergeometric"]) {
    const ps = curve.filter((p) => p.method === method).map((p) => p.probability);
    assert.equal(ps[0], 0);
    ps.slice(1).forEach((p, i) => assert.ok(p >= ps[i]!, `${method} at point ${i + 1}`));
  }
  assert.equal(detectionCurve(5, { k: 5 }).at(-1)!.k, 5);
});

Deno.test("detectionCurve() includes the audit's k where the even steps miss it", () => {
  // N = 1000, k = 7, 3 points: the steps are 0, 9, 19, 28 (4k), which miss 7.
  const curve = detectionCurve(1000, { k: 7, rates: ["0.01"], points: 3 });
  assert.deepEqual([...new Set(curve.map((p) => p.k))], [0, 7, 9, 19, 28]);
  // F = ⌈0.01 · 1000⌉ = 10: P = 1 − C(990, 7)/C(1000, 7) = 1 − ∏_{i<7} (990 − i)/(1000 − i),
  // in millionths rounded down, exactly; the curve's point is that or one unit below (lowered
  // by its error bound first), never above.
  let miss = 1n, all = 1n;
  for (let i = 0n; i < 7n; i++) [miss, all] = [miss * (990n - i), all * (1000n - i)];
  const units = Number(((all - miss) * 1_000_000n) / all);
  const at = curve.find((p) => p.k === 7 && p.method === "hypergeometric")!.probability;
  assert.ok(at === units / 1e6 || at === (units - 1) / 1e6, `${at} vs ${units}`);
  assert.equal(units, 68133); // Python: floor(10**6 * (1 - Fraction(comb(990, 7), comb(1000, 7))))
});
