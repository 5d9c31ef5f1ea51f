/**
 * `roundPack()` with wide significands (up to 2^53 - 1) and sticky bits against the exact
 * reference: fast-check properties over every format, direction, overflow rule and FTZ setting,
 * with significands built to sit on and around ties, plus hand-written edge cases.
 *
 * @module
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type FloatFormat,
  type FormatName,
  FORMATS,
  packFields,
  roundPack,
} from "../../src/numerics/mod.ts";
import { dyadic } from "./_dyadic.ts";
import { refRound } from "./_exact_reference.ts";
import { hex } from "./_ref_convert.ts";
import { refFormat } from "./_ref_formats.ts";

const NAMES = Object.keys(FORMATS) as FormatName[];
const RUNS = 15_000;

const options = fc.record({
  mode: fc.constantFrom("rne", "rz", "ru", "rd" as const),
  overflow: fc.constantFrom("ieee", "saturate", "infinity" as const),
  ftz: fc.boolean(),
});

/** An exact input `significand * 2^exponent` for `roundPack()`. */
interface Input {
  readonly sig: number;
  readonly exponent: number;
}

function bitLen(n: number): number {
  return n === 0 ? 0 : BigInt(n).toString(2).length;
}

/** `kept * 2^s + tail` at quantum `q`: the tail sits at, just off, or away from a tie. */
function tieInput(keptMin: number, keptMax: number, qMin: number, qMax: number) {
  const p = bitLen(keptMax);
  return fc.record({
    kept: fc.integer({ min: keptMin, max: keptMax }),
    s: fc.integer({ min: 1, max: 53 - p }),
    tailKind: fc.integer({ min: 0, max: 4 }),
    r: fc.nat(),
    q: fc.integer({ min: qMin, max: qMax }),
  }).map(({ kept, s, tailKind, r, q }): Input => {
    const unit = 2 ** s;
    const half = unit / 2;
    const tails = [0, half, Math.max(0, half - 1), Math.min(half + 1, unit - 1), r % unit];
    return { sig: kept * unit + (tails[tailKind] as number), exponent: q - s };
  });
}

/**
 * Inputs for a format: arbitrary safe-integer significands with the leading bit anywhere around
 * the format's range (or far outside), and significands with exactly the format's precision
 * followed by a tie-shaped tail, at every quantum from the subnormals to past the overflow.
 */
function inputFor(f: FloatFormat): fc.Arbitrary<Input> {
  const qmin = f.emin - f.fracBits;
  const hidden = 2 ** f.fracBits;
  const wide = fc.tuple(
    fc.oneof(fc.maxSafeNat(), fc.integer({ min: 0, max: 2 ** 12 })),
    fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: qmin - 4, max: f.emax + 3 }) },
      { weight: 1, arbitrary: fc.integer({ min: -1200, max: 1200 }) },
    ),
  ).map(([sig, lead]): Input => ({ sig, exponent: lead - Math.max(bitLen(sig), 1) + 1 }));
  return fc.oneof(
    { weight: 3, arbitrary: wide },
    { weight: 3, arbitrary: tieInput(hidden, 2 * hidden - 1, qmin - 2, f.emax - f.fracBits + 2) },
    { weight: 1, arbitrary: tieInput(0, hidden - 1, qmin, qmin) },
  );
}

function check(
  f: FloatFormat,
  sign: 0 | 1,
  { sig, exponent }: Input,
  sticky: boolean,
  opts: {
    mode: "rne" | "rz" | "ru" | "rd";
    overflow: "ieee" | "saturate" | "infinity";
    ftz: boolean;
  },
): void {
  const got = roundPack(f, { sign, significand: sig, exponent, sticky }, opts);
  const want = refRound(refFormat(f.name), sign, dyadic(sig, exponent), { ...opts, sticky });
  assert.equal(
    hex(got, f.storageBits),
    hex(want, f.storageBits),
    `${f.name} ${sign ? "-" : "+"}${sig}*2^${exponent}${sticky ? "+sticky" : ""} ${
      JSON.stringify(opts)
    }`,
  );
}

for (const name of NAMES) {
  const f = FORMATS[name];
  Deno.test(`\`roundPack()\` matches the reference for ${name} when significands are wide and sticky`, () => {
    fc.assert(
      fc.property(
        fc.constantFrom(0 as const, 1 as const),
        inputFor(f),
        fc.boolean(),
        options,
        (sign, input, sticky, opts) => check(f, sign, input, sticky, opts),
      ),
      { numRuns: RUNS, seed: 0x5eed + f.fracBits * 17 + f.expBits },
    );
  });
}

Deno.test("`roundPack()` rounds a 53-bit significand once when it is just below a power of two", () => {
  const justBelowTwo = { sign: 0 as const, significand: 2 ** 53 - 1, exponent: -52 };
  assert.equal(roundPack(FORMATS.bf16, justBelowTwo), 0x4000);
  assert.equal(roundPack(FORMATS.bf16, justBelowTwo, { mode: "rz" }), 0x3fff);
  assert.equal(roundPack(FORMATS.fp32, justBelowTwo, { mode: "rd" }), 0x3fffffff);
  assert.equal(roundPack(FORMATS.fp32, { ...justBelowTwo, sign: 1 }, { mode: "rd" }), 0xc0000000);
  // 2^53 - 1 at 2^-1126 is far below every subnormal: zero, or the smallest subnormal upward.
  const tiny = { sign: 0 as const, significand: 2 ** 53 - 1, exponent: -1126 };
  assert.equal(roundPack(FORMATS.fp32, tiny), 0);
  assert.equal(roundPack(FORMATS.fp32, tiny, { mode: "ru" }), 1);
  assert.equal(roundPack(FORMATS.e4m3, { ...tiny, exponent: 1000 }), 0x7f);
});

Deno.test("`roundPack()` treats sticky as a positive amount below any rounding boundary when significand is 0", () => {
  const dust = { sign: 0 as const, significand: 0, exponent: 40, sticky: true };
  assert.equal(roundPack(FORMATS.bf16, dust), 0x0000);
  assert.equal(roundPack(FORMATS.bf16, dust, { mode: "ru" }), 0x0001);
  assert.equal(roundPack(FORMATS.bf16, { ...dust, sign: 1 }, { mode: "rd" }), 0x8001);
  assert.equal(roundPack(FORMATS.bf16, dust, { mode: "ru", ftz: true }), 0x0000);
  // A tie plus sticky is above the tie: rounds away even in nearest-even.
  const tie = { sign: 0 as const, significand: 0x101, exponent: -8 };
  assert.equal(roundPack(FORMATS.bf16, tie), 0x3f80);
  assert.equal(roundPack(FORMATS.bf16, { ...tie, sticky: true }), 0x3f81);
});

Deno.test("`roundPack()` throws RangeError when the significand is not a non-negative safe integer", () => {
  for (const bad of [-1, 2 ** 53, 1.5, NaN, Infinity]) {
    assert.throws(
      () => roundPack(FORMATS.fp16, { sign: 0, significand: bad, exponent: 0 }),
      RangeError,
    );
  }
});

Deno.test("`packFields()` places fields below the container padding when the format is tf32", () => {
  assert.equal(packFields(FORMATS.tf32, { sign: 0, biased: 127, fraction: 1 }), 0x3f802000);
  assert.equal(packFields(FORMATS.e8m13, { sign: 1, biased: 127, fraction: 1 }), 0xbf800400);
  assert.equal(packFields(FORMATS.e4m3, { sign: 1, biased: 15, fraction: 6 }), 0xfe);
});
