/**
 * Detection probabilities as stated (review h141): never above the true value. Exact values come
 * from BigInt products here, and for cases too large for them from Python `mpmath` (log-gamma at
 * 60 digits: 1 − exp(lnΓ(N−F+1) − lnΓ(N−F−k+1) − lnΓ(N+1) + lnΓ(N−k+1)), binomial
 * 1 − (1 − p)^k with p the exact decimal), printed to 22 digits. The large cases are the review's
 * (values rounded to nearest above the truth) and those closest to the error bound among 24,000
 * random audits of N up to 2^53 − 1 (their error stayed within 0.3 of the bound; here within
 * half of it is asserted).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type DetectionError,
  detectionErrorBound,
  lowerDetection,
  sixDecimalsDown,
} from "../../src/verify/detection_text.ts";
import {
  binomialError,
  detectionBinomial,
  detectionHypergeometric,
  hypergeometricError,
} from "../../src/verify/plan.ts";

/** A computed probability as every writer states it: lowered by its error bound, rounded down. */
const stated = (computed: number, error: DetectionError) =>
  sixDecimalsDown(lowerDetection(computed, error));

/** [N, F, k, exact detection probability (22 digits)]. */
const HYPERGEOMETRIC: readonly [number, number, number, string][] = [
  [1860, 19, 270, "0.9499999798224007838105"], // 0.950000 to nearest
  [4240, 212, 58, "0.949999503467100694468"], // 0.950000 to nearest
  [4382, 44, 287, "0.9499998747778523229174"],
  [4687, 47, 288, "0.9499999398548213342352"],
  [3406, 35, 278, "0.9499985179194909230691"],
  [1279, 13, 262, "0.9499986768392069869717"],
  // Euler–Maclaurin, the closest to the bound found.
  [3966302461472816, 1094251826, 3950744, "0.6637699220393051012407"],
  [3765306293475501, 4341593746, 138433, "0.1475327883395293390744"],
  [9007199254740991, 479127, 140719953473, "0.9994388291210129713236"],
  [9007199254740991, 83998, 151750347654, "0.7571187790037723637069"],
  [9007199254740991, 65822, 275440355340, "0.8663951898033237189"],
  [9007199254740991, 67065, 2260056059356, "0.9999999509210272758785"],
  // Term by term.
  [9007199254740991, 163830643277, 17827, "0.2769346481856786551654"],
  [641845780446809, 656, 35591834525251, "0.9999999999999999441696"],
  [9007199254740991, 10, 2331653597082016, "0.9500000000000000424798"],
  [9007199254740991, 10, 2331653597082015, "0.9499999999999999675796"],
];

/** [p, k, exact detection probability (22 digits)]. */
const BINOMIAL: readonly [string, number, string][] = [
  ["0.05", 290, "0.9999996533864520856243"], // 1.000000 to nearest
  ["1e-15", 1465712314405520, "0.7690865500951744423612"],
  ["0.001", 3200, "0.9593030068429268325278"],
  ["0.01", 270, "0.9337016772796145188167"],
];

/** The text is not above the exact value and at most one unit below its six-decimal floor. */
function assertStated(text: string, exact: string, what: string): void {
  const floor = exact.slice(0, 8); // "0.xxxxxx" of a 22-digit value below 1
  assert.ok(text <= floor, `${what}: ${text} above the exact ${exact}`);
  assert.ok(Number(text) >= Number(floor) - 1e-6 - 1e-12, `${what}: ${text} vs ${exact}`);
}

Deno.test("a stated probability never states more than the exact value on the review's and the closest cases", () => {
  for (const [n, f, k, exact] of HYPERGEOMETRIC) {
    const d = detectionHypergeometric(n, { falseCount: f, k });
    const e = hypergeometricError(n, { falseCount: f, k });
    assert.ok(Math.abs(d - Number(exact)) <= detectionErrorBound(d, e) / 2, `${n} ${f} ${k}`);
    assertStated(stated(d, e), exact, `N=${n} F=${f} k=${k}`);
  }
  for (const [p, k, exact] of BINOMIAL) {
    const d = detectionBinomial(Number(p), k);
    const e = binomialError(Number(p), k);
    assert.ok(Math.abs(d - Number(exact)) <= detectionErrorBound(d, e) / 2, `${p} ${k}`);
    assertStated(stated(d, e), exact, `p=${p} k=${k}`);
  }
  // The review's: 0.950000 and 1.000000 to nearest, above the truth.
  const d = detectionHypergeometric(1860, { falseCount: 19, k: 270 });
  assert.equal(d.toFixed(6), "0.950000");
  assert.equal(stated(d, hypergeometricError(1860, { falseCount: 19, k: 270 })), "0.949999");
  assert.equal(stated(detectionBinomial(0.05, 290), binomialError(0.05, 290)), "0.999999");
});

/** A double in [0, 1] as an exact fraction over 2^1074. */
function exactDouble(x: number): bigint {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  const bits = v.getBigUint64(0);
  const e = Number(bits >> 52n);
  const m = bits & ((1n << 52n) - 1n);
  return e === 0 ? m : (m | (1n << 52n)) << BigInt(e - 1);
}

/** Whether 1 − num/den ≥ x exactly. */
function atLeast(x: number, num: bigint, den: bigint): boolean {
  const one = 1n << 1074n;
  return (den - num) * one >= exactDouble(x) * den;
}

Deno.test("lowerDetection() is never above the exact hypergeometric value (BigInt products, property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      fc.integer({ min: 1, max: 40 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.boolean(),
      (n, small, share, swap) => {
        const b = Math.min(small, n);
        const a = Math.min(n - b, Math.max(1, Math.floor(share * (n - b))));
        if (a < 1) return;
        const sample = swap ? { falseCount: a, k: b } : { falseCount: b, k: a };
        let num = 1n;
        let den = 1n;
        for (let i = 0; i < b; i++) {
          num *= BigInt(n - a - i);
          den *= BigInt(n - i);
        }
        const low = lowerDetection(
          detectionHypergeometric(n, sample),
          hypergeometricError(n, sample),
        );
        assert.ok(atLeast(low, num, den), `N=${n} F=${sample.falseCount} k=${sample.k}`);
      },
    ),
    { numRuns: 400, seed: 141 },
  );
});

Deno.test("lowerDetection() is never above the exact binomial value of the decimal p (property)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 999_999 }),
      fc.integer({ min: 1, max: 60 }),
      (units, k) => {
        const p = units / 1e6; // the decimal units·10^−6, rounded to a double
        const num = BigInt(1e6 - units) ** BigInt(k);
        const den = 10n ** BigInt(6 * k);
        const low = lowerDetection(detectionBinomial(p, k), binomialError(p, k));
        assert.ok(atLeast(low, num, den), `p=${p} k=${k}`);
      },
    ),
    { numRuns: 400, seed: 142 },
  );
});

Deno.test("a stated probability is 1.000000 only when the inputs make detection certain", () => {
  // k > N − F: no sample avoids every false record.
  const certain = { falseCount: 1, k: 6 };
  assert.equal(
    stated(detectionHypergeometric(6, certain), hypergeometricError(6, certain)),
    "1.000000",
  );
  assert.equal(stated(detectionBinomial(1, 3), binomialError(1, 3)), "1.000000");
  // Computed as 1 by rounding (1 − 0.5^80): just below.
  assert.equal(detectionBinomial(0.5, 80), 1);
  assert.equal(stated(detectionBinomial(0.5, 80), binomialError(0.5, 80)), "0.999999");
  assert.equal(stated(0, binomialError(0.5, 0)), "0.000000");
  assert.equal(stated(1e-9, binomialError(0.5, 3)), "0.000000");
});

Deno.test("sixDecimalsDown() rounds down and refuses a value outside [0, 1]", () => {
  assert.equal(sixDecimalsDown(0.9999999999), "0.999999");
  assert.equal(sixDecimalsDown(1), "1.000000");
  assert.equal(sixDecimalsDown(0), "0.000000");
  assert.equal(sixDecimalsDown(0.0000019), "0.000001");
  assert.equal(sixDecimalsDown(0.123456789), "0.123456");
  for (const bad of [-1e-9, 1.0000001, Number.NaN]) {
    assert.throws(() => sixDecimalsDown(bad), RangeError);
    assert.throws(() => stated(bad, binomialError(0.5, 1)), RangeError);
  }
});
