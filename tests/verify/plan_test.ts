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

/**
 * How far above the exact minimum a sample size may be (the sizes' doc): one step, plus `share`
 * of k (the computation's bound with its judging, as a share of |S|), plus
 * 2^−53 / ((1 − c)·|ln(1 − c)|) of k.
 */
function allowed(k: number, c: number, share: number): number {
  return 1 + k * share + (k * 2 ** -53) / ((1 - c) * -Math.log1p(-c));
}

/** The binomial computation's bound with its judging, as a share of |S|: 19u. */
const BINOMIAL_SHARE = 19 * 2 ** -53;

/** The hypergeometric computation's bound at k as a share of |S| ≈ |ln(1 − c)|, and 13u judging. */
function hyperShare(n: number, sample: { falseCount: number; k: number }, c: number): number {
  const e = hypergeometricError(n, sample);
  return e.relative + e.absolute / -Math.log1p(-c) + 13 * 2 ** -53;
}

/**
 * Exact minimum k with 1 − C(N − F, k) / C(N, k) ≥ c, c a decimal text `0.ddd`: the ratio is the
 * product over j < F of (N − k − j) / (N − j), compared with 1 − c in BigInt.
 */
function exactHyperMinimum(n: number, f: number, c: string): number {
  const digits = c.slice(2);
  const den = 10n ** BigInt(digits.length);
  const miss = den - BigInt(digits); // (1 − c)·den
  const reaches = (k: number) => {
    if (k > n - f) return true;
    let [num, all] = [1n, 1n];
    for (let j = 0; j < f; j++) [num, all] = [num * BigInt(n - k - j), all * BigInt(n - j)];
    return num * den <= all * miss;
  };
  let [lo, hi] = [-1, n - f + 1];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
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

Deno.test("binomialError() and hypergeometricError() state the bounds their docs derive", () => {
  const u = 2 ** -53;
  // Binomial: log1p within 2u and one rounding of the product, 3u·|S|, stated with a factor 2.
  for (const [p, k] of [[0.05, 290], [0.001, 3200], [0.5, 1]] as const) {
    assert.deepEqual(binomialError(p, k), { exact: false, relative: 6 * u, absolute: 0 });
  }
  // Term by term: b terms within (b + 1)u·|S|, stated as 2(b + 1)u·|S|, b = min(F, k).
  for (const [n, f, k] of [[10, 1, 5], [1860, 19, 270], [1860, 270, 19], [1e9, EXACT_TERMS, 1e6]]) {
    const b = Math.min(f!, k!);
    const e = hypergeometricError(n!, { falseCount: f!, k: k! });
    assert.deepEqual(e, { exact: false, relative: 2 * (b + 1) * u, absolute: 0 }, `${n} ${f} ${k}`);
  }
  // Euler–Maclaurin: 16u·|S| + 8u·a²/N + 10^−3/(N − a − b + 1)^6. With N = 140,000 and
  // F = k = 70,000 the remainder's share is the whole 10^−3 (N − a − b + 1 = 1); with N = 10^9,
  // a² / N = 4·10^10 / 10^9 = 40 exactly.
  const em = [[140_000, 70_000, 70_000, 8 * u * 35_000 + 1e-3], [
    1e9,
    1e5,
    2e5,
    8 * u * 40 + 1e-3 / (1e9 - 3e5 + 1) ** 6,
  ]];
  for (const [n, f, k, absolute] of em) {
    const e = hypergeometricError(n!, { falseCount: f!, k: k! });
    assert.equal(e.exact, false);
    assert.equal(e.relative, 16 * u, `${n} ${f} ${k}`);
    assert.ok(
      Math.abs(e.absolute - absolute!) <= 1e-15 * absolute!,
      `${n} ${f} ${k}: ${e.absolute}`,
    );
  }
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

/**
 * Exact minimum k with 1 − (1 − p)^k ≥ c, p and c the exact decimals (Python mpmath at 100 digits,
 * checked one below), at c = 0.5, 0.8, 0.9, 0.95, 0.99, 0.999 and 0.999999999999.
 */
const EXACT_BINOMIAL: [number, readonly number[]][] = [
  [0.5, [1, 3, 4, 5, 7, 10, 40]],
  [0.2, [4, 8, 11, 14, 21, 31, 124]],
  [0.05, [14, 32, 45, 59, 90, 135, 539]],
  [0.013, [53, 123, 176, 229, 352, 528, 2112]],
  [0.001, [693, 1609, 2302, 2995, 4603, 6905, 27618]],
  [3e-4, [2311, 5364, 7675, 9985, 15349, 23023, 92090]],
  [1e-5, [69315, 160943, 230258, 299572, 460515, 690773, 2763089]],
  [1e-15, [
    693_147_180_559_945,
    1_609_437_912_434_100,
    2_302_585_092_994_045,
    2_995_732_273_553_990,
    4_605_170_185_988_090,
  ]],
];

Deno.test("requiredSampleBinomial() is never below the exact minimum, and above it by what its doc allows", () => {
  const confidences = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.999999999999];
  for (const [p, exact] of EXACT_BINOMIAL) {
    for (const [i, want] of exact.entries()) {
      const c = confidences[i]!;
      const k = requiredSampleBinomial(p, c);
      assert.ok(k >= want && k - want <= allowed(k, c, BINOMIAL_SHARE), `p=${p} c=${c}: ${k}`);
    }
  }
  // 1 − 0.5 = 0.5 exactly: a tie the doubles cannot tell from just below, so one step more.
  assert.equal(requiredSampleBinomial(0.5, 0.5), 2);
});

Deno.test("requiredSampleBinomial() judges in log space near c = 1 (review of 2230d78)", () => {
  // N = 2^53 − 1 (binomial), p = 10^−12, c = 0.999999999999: exact minimum 27,631,021,115,915
  // (mpmath); 1 − D judged in doubles to 2^−51 gave 27,631,431,900,054, 1.5·10^−5 of k above it.
  // Half a unit in the last place of c and the double's distance from 0.999999999999 (2^−54 and
  // 2.2·10^−17 against 1 − c = 10^−12) still allow 2.8·10^−6 of k.
  const k = requiredSampleBinomial(1e-12, 0.999999999999);
  const exact = 27_631_021_115_915;
  assert.ok(k >= exact && k - exact <= allowed(k, 0.999999999999, BINOMIAL_SHARE), String(k));
  assert.ok(k - exact < 3e-6 * k, String(k));
  // Every c that rounds to 1 − 2^−53 is at most 1 − 2^−54, which 0.5^54 reaches: no longer
  // refused as beyond any lowered value.
  const near1 = requiredSampleBinomial(0.5, 1 - 2 ** -53);
  assert.ok(near1 >= 54 && near1 <= 55, String(near1));
  // Past 2^53 draws: refused.
  assert.throws(() => requiredSampleBinomial(1e-16, 0.95), RangeError);
  assert.throws(() => requiredSampleBinomial(1e-15, 0.999999999999), RangeError);
});

Deno.test("requiredSampleBinomial() is never below the exact minimum near a tie (review h141)", () => {
  // p = 10^−15, c = 0.95: the exact minimum is 2,995,732,273,553,990 (Python mpmath, 60 digits,
  // p the exact decimal); the double p rounds below 10^−15, where more draws are needed.
  const k = requiredSampleBinomial(1e-15, 0.95);
  assert.ok(k >= 2_995_732_273_553_990 && k <= 2_995_732_273_554_010, String(k));
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

Deno.test("requiredSampleHypergeometric() is never below the exact minimum (BigInt), and never above the binomial size", () => {
  for (const n of [50, 1000, 20_000]) {
    for (const p of [0.2, 0.05, 0.01, 0.001]) {
      const f = Math.max(1, Math.ceil(p * n));
      for (const text of ["0.8", "0.95", "0.99", "0.999999999999"]) {
        const c = Number(text);
        const k = requiredSampleHypergeometric(n, { falseCount: f, confidence: c });
        const want = exactHyperMinimum(n, f, text);
        const slack = allowed(k, c, hyperShare(n, { falseCount: f, k }, c));
        assert.ok(k >= want && k - want <= slack, `N=${n} F=${f} c=${c}: ${k}, exact ${want}`);
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

Deno.test("requiredSampleHypergeometric() answers N = 2^53 − 1 near the exact minimum (issue 19)", () => {
  const n = 2 ** 53 - 1;
  // Exact minima: Python mpmath, log-gamma at 100 digits, c the exact decimal.
  for (
    const [f, c, want] of [
      [900_719_926, 0.99, 46_051_700],
      [1, 0.5, 4_503_599_627_370_496],
      [1000, 0.999999, 123_583_406_797_218],
      [2 ** 40, 0.9, 18_862],
    ] as const
  ) {
    // A scan of the population would not finish; the search is logarithmic in N.
    const k = requiredSampleHypergeometric(n, { falseCount: f, confidence: c });
    const slack = allowed(k, c, hyperShare(n, { falseCount: f, k }, c));
    assert.ok(k >= want && k - want <= slack, `F=${f} c=${c}: ${k}`);
    assert.ok(k <= requiredSampleBinomial(f / n, c));
  }
});

Deno.test("requiredSampleHypergeometric() judges in log space near c = 1 (review of 2230d78)", () => {
  // N = 2^53 − 1, p = 10^−12 (F = 9008), c = 0.999999999999: exact minimum 27,586,234,463,832
  // (mpmath); judged on 1 − D in doubles, 27,586,643,953,454, 1.5·10^−5 of k above it.
  const n = 2 ** 53 - 1;
  const c = 0.999999999999;
  const k = requiredSampleHypergeometric(n, { falseCount: 9008, confidence: c });
  const want = 27_586_234_463_832;
  const slack = allowed(k, c, hyperShare(n, { falseCount: 9008, k }, c));
  assert.ok(k >= want && k - want <= slack && k - want < 3e-6 * k, String(k));
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
  // Exact minimum 8,438,883,402,443,452 (mpmath); judged on 1 − D in doubles, 23,345,034,314
  // draws above it.
  const want = 8_438_883_402_443_452;
  const slack = allowed(k, confidence, hyperShare(n, { falseCount: 10, k }, confidence));
  assert.ok(k >= want && k - want <= slack && k - want < 1e-6 * k, String(k));
});
