import assert from "node:assert/strict";
import {
  binomialError,
  detectionBinomial,
  detectionHypergeometric,
  EXACT_TERMS,
  hypergeometricError,
  lowerBinomial,
  lowerHypergeometric,
  requiredSampleBinomial,
  requiredSampleHypergeometric,
} from "../../src/verify/plan.ts";
import { lowerDetection } from "../../src/verify/detection_text.ts";

/** The hypergeometric detection probability lowered by its error bound. */
function lowHyper(n: number, f: number, k: number): number {
  return lowerHypergeometric(n, { falseCount: f, k });
}

Deno.test("lowerBinomial() and lowerHypergeometric() lower each value by its own error bound", () => {
  for (const [p, k] of [[0.05, 290], [0.001, 3200], [1e-15, 10], [1, 3], [0.5, 0]] as const) {
    const want = lowerDetection(detectionBinomial(p, k), binomialError(p, k));
    assert.equal(lowerBinomial(p, k), want, `${p} ${k}`);
    assert.ok(want <= detectionBinomial(p, k));
  }
  for (const [n, f, k] of [[1860, 19, 270], [6, 1, 6], [2 ** 53 - 1, 10, 1e6], [1e9, 7e4, 7e4]]) {
    const sample = { falseCount: f!, k: k! };
    const want = lowerDetection(
      detectionHypergeometric(n!, sample),
      hypergeometricError(n!, sample),
    );
    assert.equal(lowerHypergeometric(n!, sample), want, `${n} ${f} ${k}`);
  }
  assert.equal(lowerHypergeometric(6, { falseCount: 1, k: 6 }), 1); // certain: not lowered
  assert.throws(() => lowerBinomial(1.5, 1), RangeError);
  assert.throws(() => lowerHypergeometric(10, { falseCount: 1, k: 11 }), RangeError);
});

Deno.test("detectionBinomial() reproduces the paper's appendix C values when p = 0.1 %", () => {
  assert.ok(Math.abs(detectionBinomial(0.001, 3200) - 0.96) < 0.001);
  const miss = 1 - detectionBinomial(0.001, 32000);
  // (0.999)^32000 = exp(32000 ln 0.999) ≈ 1.25e-14 ("1 − 10^−14" in the paper).
  const exact = Math.exp(32000 * Math.log1p(-0.001));
  assert.ok(Math.abs(miss - exact) / exact < 0.02, `miss ${miss} vs ${exact}`);
  assert.ok(miss > 1e-14 && miss < 2e-14);
});

Deno.test("detectionBinomial() handles the edges when p or k is 0 or 1", () => {
  assert.equal(detectionBinomial(0, 100), 0);
  assert.equal(detectionBinomial(0.5, 0), 0);
  assert.equal(detectionBinomial(1, 1), 1);
  assert.equal(detectionBinomial(0.5, 1), 0.5);
  // 1 − (1 − p)^3 = 3p − 3p² + p³; the naive formula loses ~4 digits here, log1p/expm1 does not.
  const tiny = detectionBinomial(1e-12, 3);
  assert.ok(Math.abs(tiny - (3e-12 - 3e-24)) / 3e-12 < 1e-12, "tiny p keeps precision");
  assert.throws(() => detectionBinomial(-0.1, 1), RangeError);
  assert.throws(() => detectionBinomial(1.1, 1), RangeError);
  assert.throws(() => detectionBinomial(NaN, 1), RangeError);
  assert.throws(() => detectionBinomial(0.1, 1.5), RangeError);
});

Deno.test("requiredSampleBinomial() gives the spec's table at 95 % confidence", () => {
  assert.equal(requiredSampleBinomial(0.05, 0.95), 59);
  assert.equal(requiredSampleBinomial(0.01, 0.95), 299);
  assert.equal(requiredSampleBinomial(0.001, 0.95), 2995);
  assert.equal(requiredSampleBinomial(0.0001, 0.95), 29956);
  assert.equal(requiredSampleBinomial(0.5, 0), 0);
  assert.equal(requiredSampleBinomial(1, 0.99), 1);
  assert.throws(() => requiredSampleBinomial(0, 0.95), RangeError);
  assert.throws(() => requiredSampleBinomial(0.1, 1), RangeError);
});

Deno.test("requiredSampleBinomial() is minimal: k meets the bound and k − 1 does not, lowered", () => {
  for (const p of [0.5, 0.2, 0.05, 0.013, 0.001, 3e-4, 1e-5, 1e-15]) {
    for (const c of [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.999999999999]) {
      if (p === 1e-15 && c > 0.99) continue; // past 2^53 draws
      const k = requiredSampleBinomial(p, c);
      assert.ok(lowerBinomial(p, k) >= c, `p=${p} c=${c}`);
      assert.ok(k === 0 || lowerBinomial(p, k - 1) < c, `p=${p} c=${c}`);
    }
  }
});

Deno.test("requiredSampleBinomial() is never below the exact minimum near a tie (review h141)", () => {
  // p = 10^−15, c = 0.95: the exact minimum is 2,995,732,273,553,990 (Python mpmath, 60 digits,
  // p the exact decimal); the double p rounds below 10^−15, where more draws are needed.
  const k = requiredSampleBinomial(1e-15, 0.95);
  assert.ok(k >= 2_995_732_273_553_990 && k <= 2_995_732_273_554_010, String(k));
  // 1 − 0.5^1 = 0.5 exactly: a tie the doubles cannot tell from just below, so one step more.
  assert.equal(requiredSampleBinomial(0.5, 0.5), 2);
  // A confidence no lowered value reaches below certainty is refused, not searched forever.
  assert.throws(() => requiredSampleBinomial(0.5, 1 - 2 ** -53), RangeError);
});

/** Exact 1 − C(N−F,k)/C(N,k) with BigInt, for small cases. */
function exactHyper(n: number, f: number, k: number): number {
  const choose = (a: number, b: number): bigint => {
    if (b < 0 || b > a) return 0n;
    let r = 1n;
    for (let i = 0; i < b; i++) r = (r * BigInt(a - i)) / BigInt(i + 1);
    return r;
  };
  const num = choose(n - f, k);
  const den = choose(n, k);
  return 1 - Number((num * 10n ** 30n) / den) / 1e30;
}

Deno.test("detectionHypergeometric() matches exact binomial coefficients for small N", () => {
  for (const n of [1, 2, 5, 17, 60]) {
    for (let f = 0; f <= n; f += Math.max(1, Math.floor(n / 5))) {
      for (let k = 0; k <= n; k++) {
        const got = detectionHypergeometric(n, { falseCount: f, k });
        assert.ok(Math.abs(got - exactHyper(n, f, k)) < 1e-12, `N=${n} F=${f} k=${k}`);
      }
    }
  }
  assert.throws(() => detectionHypergeometric(10, { falseCount: 11, k: 1 }), RangeError);
  assert.throws(() => detectionHypergeometric(10, { falseCount: 1, k: 11 }), RangeError);
});

Deno.test("detectionHypergeometric() is at least the binomial value and approaches it for large N", () => {
  for (const k of [10, 100, 3200]) {
    const hyper = detectionHypergeometric(10_000_000, { falseCount: 10_000, k });
    const bin = detectionBinomial(0.001, k);
    assert.ok(hyper >= bin);
    assert.ok(hyper - bin < 1e-3);
  }
});

Deno.test("requiredSampleHypergeometric() is minimal and never above the binomial size", () => {
  for (const n of [50, 1000, 20_000]) {
    for (const p of [0.2, 0.05, 0.01, 0.001]) {
      const f = Math.max(1, Math.ceil(p * n));
      for (const c of [0.8, 0.95, 0.99]) {
        const k = requiredSampleHypergeometric(n, { falseCount: f, confidence: c });
        assert.ok(lowHyper(n, f, k) >= c);
        assert.ok(k === 0 || lowHyper(n, f, k - 1) < c);
        assert.ok(k <= requiredSampleBinomial(f / n, c), `N=${n} F=${f} c=${c}`);
      }
    }
  }
  // 5 of 10 catch the one false record with probability 1/2 exactly: a tie, so 6.
  assert.equal(requiredSampleHypergeometric(10, { falseCount: 1, confidence: 0.5 }), 6);
  assert.equal(requiredSampleHypergeometric(10, { falseCount: 1, confidence: 0.49 }), 5);
  assert.equal(requiredSampleHypergeometric(10, { falseCount: 3, confidence: 0 }), 0);
  assert.throws(
    () => requiredSampleHypergeometric(10, { falseCount: 0, confidence: 0.5 }),
    RangeError,
  );
  assert.throws(
    () => requiredSampleHypergeometric(10, { falseCount: 1, confidence: 1 }),
    RangeError,
  );
});

/** Σ log1p(−F/(N − i)) term by term with Kahan compensation (the reference for large sums). */
function kahanLogMiss(n: number, f: number, k: number): number {
  let s = 0;
  let c = 0;
  for (let i = 0; i < k; i++) {
    const y = Math.log1p(-f / (n - i)) - c;
    const t = s + y;
    c = (t - s) - y;
    s = t;
  }
  return s;
}

Deno.test("detectionHypergeometric() by Euler–Maclaurin agrees with the term-by-term sum when F and k exceed EXACT_TERMS (issue 19)", () => {
  for (
    const [n, f, k] of [
      [1e9, 1e5, 2e5],
      [1e9, 7e4, 7e4],
      [5e10, 2e5, 3e5],
      [2 ** 53 - 1, 9e8, 5e6],
      [1e12, 1e5, 3e7],
      [5e6, 2e6, 7e4],
      [3e6, 7e4, 1e6],
    ] as const
  ) {
    assert.ok(Math.min(f, k) > EXACT_TERMS);
    const ref = kahanLogMiss(n, f, Math.min(k, n));
    const got = Math.log(1 - detectionHypergeometric(n, { falseCount: f, k }));
    const miss = 1 - detectionHypergeometric(n, { falseCount: f, k });
    // The miss probability relatively; near 1 the detection itself rounds (absolute 1e-16).
    assert.ok(
      Math.abs(miss - Math.exp(ref)) <= 1e-9 * Math.exp(ref) + 1e-15,
      `${n} ${f} ${k}: ${got} vs ${ref}`,
    );
  }
});

Deno.test("requiredSampleHypergeometric() answers N = 2^53 − 1 with a minimal k (issue 19)", () => {
  const n = 2 ** 53 - 1;
  for (
    const [f, c] of [[Math.ceil(n * 1e-7), 0.99], [1, 0.5], [1000, 0.999999], [
      2 ** 40,
      0.9,
    ]] as const
  ) {
    // A scan of the population would not finish; the search is logarithmic in N.
    const k = requiredSampleHypergeometric(n, { falseCount: f, confidence: c });
    assert.ok(lowHyper(n, f, k) >= c);
    assert.ok(lowHyper(n, f, k - 1) < c);
    assert.ok(k <= requiredSampleBinomial(f / n, c));
  }
});

Deno.test("requiredSampleHypergeometric() is never below the exact minimum near a tie (review h141)", () => {
  // N = 2^53 − 1, F = 10 (p = 10^−15), c = 0.95: the exact minimum is 2,331,653,597,082,016
  // (Python mpmath, log-gamma at 60 digits: 0.94999999999999996758 at one less, and
  // 0.95000000000000004248 there); earlier builds gave ...014.
  const k = requiredSampleHypergeometric(2 ** 53 - 1, { falseCount: 10, confidence: 0.95 });
  assert.ok(k >= 2_331_653_597_082_016 && k <= 2_331_653_597_082_036, String(k));
  // N = 1860, F = 19: k = 270 gives 0.94999997982..., so 271.
  assert.equal(requiredSampleHypergeometric(1860, { falseCount: 19, confidence: 0.95 }), 271);
});

Deno.test("requiredSampleHypergeometric() answers where the binomial size passes 2^53 draws", () => {
  const n = Number.MAX_SAFE_INTEGER;
  const confidence = 0.999999999999;
  assert.throws(() => requiredSampleBinomial(10 / n, confidence), RangeError);
  const k = requiredSampleHypergeometric(n, { falseCount: 10, confidence });
  assert.ok(k > 0.93 * n && k < 0.94 * n, String(k));
  assert.ok(lowHyper(n, 10, k) >= confidence);
  assert.ok(lowHyper(n, 10, k - 1) < confidence);
});
