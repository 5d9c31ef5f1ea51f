import assert from "node:assert/strict";
import { sleefPowfU10 } from "../../../src/kernels/math/mod.ts";
import { ropeGrid, specialPairs } from "../../../tools/sleef_oracle/inputs.ts";

/** SLEEF's own output (x, y, result) triples; see fixtures/README.md. */
const BYTES = Deno.readFileSync(new URL("./fixtures/sleef_powf_sample.bin", import.meta.url));
const T = new Uint32Array(BYTES.buffer, BYTES.byteOffset, BYTES.byteLength / 4);
const COUNT = T.length / 3;
const hex = (x: number) => `0x${(x >>> 0).toString(16).padStart(8, "0")}`;

/** Mismatches of the emulation over triples [from, to): count and the first few. */
function mismatches(from: number, to: number): { count: number; first: string[] } {
  const first: string[] = [];
  let count = 0;
  for (let i = from; i < to; i++) {
    const [x, y, want] = [T[3 * i]!, T[3 * i + 1]!, T[3 * i + 2]!];
    const got = sleefPowfU10(x, y) >>> 0;
    if (got !== want && count++ < 5) {
      first.push(`pow(${hex(x)}, ${hex(y)}) = ${hex(got)}, SLEEF ${hex(want)}`);
    }
  }
  return { count, first };
}

Deno.test("`sleefPowfU10()` matches SLEEF's powf on all 103,337 fixture triples, bit for bit", () => {
  assert.equal(BYTES.byteLength % 12, 0);
  assert.equal(COUNT, 103_337);
  assert.deepEqual(mismatches(0, COUNT), { count: 0, first: [] });
});

Deno.test("the fixture holds the RoPE grid and the special pairs in the order inputs.ts makes them", () => {
  const grid = ropeGrid();
  const specials = specialPairs();
  [...grid, ...specials].forEach(([x, y], i) => {
    assert.equal(T[3 * i], x, `pair ${i}`);
    assert.equal(T[3 * i + 1], y, `pair ${i}`);
  });
  // Both NaN patterns SLEEF leaves occur, so the selections are exercised.
  const results = new Set(Array.from({ length: COUNT }, (_, i) => T[3 * i + 2]));
  assert.ok(results.has(0xffffffff) && results.has(0x7fc00000));
});

Deno.test("`sleefPowfU10()` is not correctly rounded: the RoPE witnesses of theta 1e6 and 5e6", () => {
  // 1e6^(74/128) = 2942.727176..., correctly rounded 0x4537EBA3; SLEEF one ulp below.
  assert.equal(sleefPowfU10(0x49742400, 0x3f140000), 0x4537eba2);
  // 5e6^(38/128) = 97.444362797..., correctly rounded 0x42C2E384; SLEEF one ulp below.
  assert.equal(new Uint32Array(new Float32Array([Math.pow(5e6, 38 / 128)]).buffer)[0], 0x42c2e384);
  assert.equal(sleefPowfU10(0x4a989680, 0x3e980000), 0x42c2e383);
});

Deno.test("`sleefPowfU10()` special cases follow SLEEF's selections (each checked against the library)", () => {
  const cases: [number, number, number][] = [
    [0x7fc00000, 0, 0x3f800000], // y = 0 wins over NaN
    [0x3f800000, 0x7fc00000, 0x3f800000], // x = 1 wins over NaN
    [0x7fc00000, 0x3f000000, 0xffffffff], // NaN operand: all bits set
    [0xc0000000, 0x3f000000, 0x7fc00000], // negative x, non-integer y: SLEEF_NANf
    [0xc0000000, 0x40400000, 0xc1000000], // (-2)^3 = -8
    [0xc0000000, 0x40000000, 0x40800000], // (-2)^2 = 4
    [0x80000000, 0x40400000, 0x80000000], // (-0)^3 = -0
    [0x80000000, 0xc0400000, 0xff800000], // (-0)^-3 = -inf
    [0x00000000, 0xbf000000, 0x7f800000], // 0^-0.5 = inf
    [0xff800000, 0x40400000, 0xff800000], // (-inf)^3 = -inf
    [0xff800000, 0x3f000000, 0x7f800000], // (-inf)^0.5 = inf
    [0x3f000000, 0x7f800000, 0x00000000], // 0.5^inf = 0
    [0xbf800000, 0xff800000, 0x3f800000], // (-1)^-inf = 1
    [0x40000000, 0x7f800000, 0x7f800000], // 2^inf = inf
    [0x7f7fffff, 0x40000000, 0x7f800000], // overflow
    [0x00000001, 0x40000000, 0x00000000], // underflow below -104 in expk: +0
  ];
  for (const [x, y, want] of cases) {
    assert.equal(sleefPowfU10(x, y) >>> 0, want, `${hex(x)} ${hex(y)}`);
  }
});
