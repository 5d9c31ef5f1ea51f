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
