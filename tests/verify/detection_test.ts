/**
 * The signed detection statement and its check (review h141): each probability is never above
 * the true value, F is exact, and a checker refuses a stated value above the recomputed one
 * lowered by its error bound (exact values in tests/verify/detection_text_test.ts).
 */
import assert from "node:assert/strict";
import {
  detectionMismatch,
  type DetectionStatement,
  detectionStatement,
} from "../../src/verify/detection.ts";

/** The statement with one probability replaced. */
function withValue(
  s: DetectionStatement,
  level: number,
  which: "binomial" | "hypergeometric",
  value: string,
): DetectionStatement {
  return {
    ...s,
    levels: s.levels.map((l, i) => (i === level ? { ...l, [which]: value } : l)),
  };
}

/** One unit of the sixth decimal added (d = 1) or taken (d = −1). */
function unit(text: string, d: number): string {
  return ((Math.round(Number(text) * 1e6) + d) / 1e6).toFixed(6);
}

Deno.test("detectionStatement() states no probability above the true value (review h141)", () => {
  // N = 1860, F = 19, k = 270: 0.94999997982..., 0.950000 to nearest.
  assert.equal(detectionStatement(1860, { k: 270 }).levels[1]!.hypergeometric, "0.949999");
  // p = 5 %, k = 290: 0.99999965338..., 1.000000 to nearest.
  assert.equal(detectionStatement(999, { k: 290 }).levels[2]!.binomial, "0.999999");
  // A full sample cannot miss: exactly 1.
  assert.equal(detectionStatement(6, { k: 6 }).levels[0]!.hypergeometric, "1.000000");
});

Deno.test("detectionStatement() counts F exactly from the rate's decimal text", () => {
  const s = detectionStatement(279_928_000, { k: 10, rates: ["0.07"] });
  assert.equal(s.levels[0]!.falseCount, 19_594_960);
  const t = detectionStatement(2_280_804_700_000, { k: 10, rates: ["0.00001"] });
  assert.equal(t.levels[0]!.falseCount, 22_808_047);
  assert.throws(() => detectionStatement(10, { k: 1, rates: ["1.5"] }), RangeError);
});

Deno.test("detectionStatement() refuses a rate below 1 that doubles read as 1, and states 1 for 1", () => {
  // 1 - 1e-17 read as 1 would state certain detection (binomial 1.000000) for a single draw.
  assert.throws(
    () => detectionStatement(1000, { k: 1, rates: ["0.99999999999999999"] }),
    /below 1 but read as 1/,
  );
  assert.equal(detectionStatement(1000, { k: 1, rates: ["1.0"] }).levels[0]!.binomial, "1.000000");
});

Deno.test("detectionMismatch() refuses a value above the truth that rounds to nearest (review h141)", () => {
  // The review's forgeries: 0.950000 where the exact values are 0.94999851... and 0.94999867...
  for (const [n, k] of [[3406, 278], [1279, 262]] as const) {
    const s = detectionStatement(n, { k });
    assert.equal(s.levels[1]!.hypergeometric, "0.949998");
    assert.equal(detectionMismatch(s, { population: n, k }), null);
    const forged = withValue(s, 1, "hypergeometric", "0.950000");
    assert.match(
      detectionMismatch(forged, { population: n, k }) ?? "",
      /stated as 0\.950000, recomputed 0\.949998$/,
    );
  }
  // One unit above this build's figure, at every level of the review's cases, is refused (and
  // 1.000000 where detection is not certain: the test below).
  for (const [n, k] of [[4240, 58], [1860, 270], [999, 290], [1_000_000, 3200]] as const) {
    const s = detectionStatement(n, { k });
    for (const [i, l] of s.levels.entries()) {
      for (const which of ["binomial", "hypergeometric"] as const) {
        if (l[which] === "1.000000") continue;
        const up = withValue(s, i, which, unit(l[which], 1));
        assert.notEqual(detectionMismatch(up, { population: n, k }), null, `${n} ${k} ${which}`);
      }
    }
  }
});

Deno.test("detectionMismatch() accepts this build's statement and one unit below it, not two", () => {
  for (
    const [n, k] of [
      [4240, 58],
      [1860, 270],
      [999, 290],
      [6, 6],
      [100, 5],
      [2 ** 53 - 1, 3200],
    ] as const
  ) {
    const s = detectionStatement(n, { k });
    assert.equal(detectionMismatch(s, { population: n, k }), null, `${n} ${k}`);
    for (const [i, l] of s.levels.entries()) {
      for (const which of ["binomial", "hypergeometric"] as const) {
        if (l[which] === "0.000000") continue;
        const below = withValue(s, i, which, unit(l[which], -1));
        assert.equal(detectionMismatch(below, { population: n, k }), null, `${n} ${k} ${which}`);
        if (l[which] === "0.000001") continue;
        const twoBelow = withValue(s, i, which, unit(l[which], -2));
        assert.notEqual(detectionMismatch(twoBelow, { population: n, k }), null);
      }
    }
  }
  // Not a probability's text: refused whatever its value.
  const s = detectionStatement(100, { k: 5 });
  for (const bad of ["0.95", "1.0000001", "1.000001", " 0.000000", "4.9e-1"]) {
    assert.notEqual(
      detectionMismatch(withValue(s, 0, "binomial", bad), { population: 100, k: 5 }),
      null,
    );
  }
});

Deno.test("detectionMismatch() takes 1.000000 only where detection is certain", () => {
  // p = 5 %, k = 290: 1 − 3.5·10^−7, stated 1.000000 to nearest by earlier builds: refused.
  const s = detectionStatement(999, { k: 290 });
  const one = withValue(s, 2, "binomial", "1.000000");
  assert.match(detectionMismatch(one, { population: 999, k: 290 }) ?? "", /recomputed 0\.999999$/);
  // Within 10^−12 of 1 but not certain: every engine lowers its value by at least 2^−51 and
  // writes 0.999999, so 1.000000 states more than the truth (p = 5 % and k = 600: 1 − 4·10^−14;
  // k = 3200 and 5000: below 10^−70 from 1, at 1 % and 5 %).
  for (
    const [n, k, level, which] of [
      [1_000_000, 600, 2, "binomial"],
      [1_000_000, 600, 2, "hypergeometric"],
      [1_000_000, 3200, 2, "binomial"],
      [1_000_000, 5000, 1, "binomial"],
      [1_000_000, 5000, 1, "hypergeometric"],
      [1_000_000, 5000, 2, "binomial"],
      [1_000_000, 5000, 2, "hypergeometric"],
    ] as const
  ) {
    const t = detectionStatement(n, { k });
    assert.equal(t.levels[level]![which], "0.999999", `${k} ${level} ${which}`);
    const forged = withValue(t, level, which, "1.000000");
    assert.match(
      detectionMismatch(forged, { population: n, k }) ?? "",
      /stated as 1\.000000, recomputed 0\.999999$/,
      `${k} ${level} ${which}`,
    );
  }
  // Certain: a full sample (k > N − F) cannot miss, and 1.000000 is what it states.
  const sure = detectionStatement(6, { k: 6 });
  assert.equal(sure.levels[2]!.hypergeometric, "1.000000");
  assert.equal(detectionMismatch(sure, { population: 6, k: 6 }), null);
  // Where some k > N − F: 1,000 records, 5 % false (F = 50), 951 sampled.
  const most = detectionStatement(1000, { k: 951 });
  assert.equal(most.levels[2]!.hypergeometric, "1.000000");
  assert.equal(detectionMismatch(most, { population: 1000, k: 951 }), null);
});

/** ⌈p·N⌉ for a decimal p in [0, 1], in exact integer arithmetic. */
function ceilRate(p: string, n: number): number {
  const [whole, frac = ""] = p.split(".");
  const den = 10n ** BigInt(frac.length);
  const num = BigInt(whole! + frac) * BigInt(n);
  return Number((num + den - 1n) / den);
}

Deno.test("detectionMismatch() refuses a false count that is not ⌈p·N⌉, its figures unchanged", () => {
  // N = 1000, k = 10: F = ⌈p·N⌉ = 1, 10, 50 at 0.1 %, 1 %, 5 %.
  const s = detectionStatement(1000, { k: 10 });
  assert.deepEqual(
    s.levels.map((l) => l.falseCount),
    s.levels.map((l) => ceilRate(l.pFalse, 1000)),
  );
  assert.deepEqual(s.levels.map((l) => l.falseCount), [1, 10, 50]);
  // The 5 % level's figures (F = 50: 1 − C(950, 10)/C(1000, 10) ≈ 0.40) said of F = 1, where
  // 10 of 1000 records catch the one false record with probability 10/1000: the checker page's
  // sentence would state that one false record in 1000 is caught with probability 0.40.
  for (const forgedCount of [1, 49, 51, 1000]) {
    const forged = {
      ...s,
      levels: s.levels.map((l, i) => (i === 2 ? { ...l, falseCount: forgedCount } : l)),
    };
    assert.match(
      detectionMismatch(forged, { population: 1000, k: 10 }) ?? "",
      new RegExp(
        `^detection rate 2 is 0\\.05 \\(${forgedCount} false\\), not 0\\.05 \\(50 false\\)$`,
      ),
    );
  }
});

Deno.test("detectionMismatch() refuses a statement whose k or N is not the audit's, its figures the audit's", () => {
  // N = 1000, k = 10, F = 1: the sample catches the false record with probability k/N = 1/100,
  // written lowered by its error bound and rounded down.
  const s = detectionStatement(1000, { k: 10 });
  assert.equal(s.levels[0]!.hypergeometric, "0.009999");
  for (const [population, k] of [[1000, 500], [1000, 11], [1000, 9], [999, 10], [1001, 10]]) {
    assert.equal(
      detectionMismatch({ ...s, population: population!, k: k! }, { population: 1000, k: 10 }),
      `the detection statement is for ${k} of ${population} records, the audit drew 10 of 1000`,
    );
  }
});

Deno.test("detectionMismatch() takes only the six-decimal text of a probability", () => {
  // p = 0.1 %, k = 5: 1 − 0.999^5 = 1 − 995009990004999/10^15 = 0.004990009995001 exactly.
  const exact = 10n ** 15n - 999n ** 5n;
  assert.equal(exact, 4990009995001n);
  const s = detectionStatement(100, { k: 5 });
  assert.equal(s.levels[0]!.binomial, "0.004990");
  // The same value in fewer decimals, or more, is not the text signed.
  for (const bad of ["0.00499", "0.0049900", "0.004990000", ".004990", "00.004990"]) {
    assert.match(
      detectionMismatch(withValue(s, 0, "binomial", bad), { population: 100, k: 5 }) ?? "",
      /^at rate 0\.001 the binomial detection probability is stated as .*, recomputed 0\.004990$/,
      bad,
    );
  }
});
