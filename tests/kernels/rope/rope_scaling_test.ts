import assert from "node:assert/strict";
import { ropeInvFreq, scaleInvFreq } from "../../../src/kernels/mod.ts";

const f32 = (bits: number) => new Float32Array(new Uint32Array([bits]).buffer)[0]!;

// Llama 3.1's published rope_scaling (config.json of Llama-3.1-8B): theta 500000, head dim 128.
const LLAMA31 = {
  kind: "llama3",
  factor: 8,
  lowFreqFactor: 1,
  highFreqFactor: 4,
  originalMaxPositions: 8192,
} as const;

Deno.test("scaleInvFreq() llama3: high band unchanged, low band divided by the factor, middle band between", () => {
  const base = ropeInvFreq(128, { theta: 500000 });
  const scaled = scaleInvFreq(base, LLAMA31);
  let high = 0, low = 0, mid = 0;
  for (let i = 0; i < base.length; i++) {
    const inv = f32(base[i]!);
    const wavelen = 2 * Math.PI / inv;
    const got = f32(scaled[i]!);
    if (wavelen < 8192 / 4) {
      assert.equal(scaled[i], base[i], `index ${i} is high-frequency`);
      high++;
    } else if (wavelen > 8192) {
      assert.equal(got, Math.fround(inv / 8), `index ${i} is low-frequency`);
      low++;
    } else {
      const s = (8192 / wavelen - 1) / 3;
      const want = (1 - s) * inv / 8 + s * inv; // float64 formula: agrees within a few ulp
      assert.ok(Math.abs(got - want) <= 4 * 2 ** -23 * want, `index ${i}: ${got} vs ${want}`);
      assert.ok(got < inv && got > inv / 8, `index ${i} interpolates`);
      mid++;
    }
  }
  // Llama 3.1 at head dim 128: every band is populated.
  assert.ok(high > 0 && low > 0 && mid > 0, `${high} ${low} ${mid}`);
});

Deno.test("scaleInvFreq() linear divides every frequency by the factor (float32 division)", () => {
  const base = ropeInvFreq(64, { theta: 10000 });
  const scaled = scaleInvFreq(base, { kind: "linear", factor: 3 });
  base.forEach((b, i) => assert.equal(f32(scaled[i]!), Math.fround(f32(b) / 3)));
});

Deno.test("scaleInvFreq() refuses factors that are not positive and high <= low", () => {
  const base = ropeInvFreq(64, { theta: 10000 });
  assert.throws(() => scaleInvFreq(base, { kind: "linear", factor: 0 }), RangeError);
  assert.throws(() => scaleInvFreq(base, { ...LLAMA31, highFreqFactor: 1 }), RangeError);
  assert.throws(() => scaleInvFreq(base, { ...LLAMA31, factor: Number.NaN }), RangeError);
});
