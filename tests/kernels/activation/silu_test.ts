import assert from "node:assert/strict";
import { createSfu, divF32 } from "../../../src/hardware/mod.ts";
import { addBf16, expfParts, mulBf16, siluBf16, siluF32 } from "../../../src/kernels/mod.ts";
import { BF16, bitsFromF32, convert, f32FromBits, FP32 } from "../../../src/numerics/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const ieee = createSfu({ mode: "ieee" });
const table = teslaSfu();
const ALL = Uint16Array.from({ length: 65536 }, (_, i) => i);

Deno.test("siluBf16() is within one bf16 ulp of the real SiLU on every bf16 input (ieee SFU)", () => {
  const y = siluBf16(ALL, { mufu: ieee });
  let exact = 0;
  let checked = 0;
  for (let i = 0; i < 65536; i++) {
    const x = f32FromBits(i << 16);
    // Below -87 the fp32 denominator 1 + e^-x overflows to infinity on the GPU too (result -0).
    if (!Number.isFinite(x) || x < -87) continue;
    const want = convert(
      FP32,
      BF16,
      new Uint32Array(new Float32Array([x / (1 + Math.exp(-x))]).buffer)[0]!,
    );
    const got = y[i]!;
    checked++;
    if (got === want) exact++;
    else {
      const gv = f32FromBits(got << 16);
      const wv = f32FromBits(want << 16);
      const ulp = Math.max(Math.abs(wv) * 2 ** -7, 2 ** -133);
      assert.ok(Math.abs(gv - wv) <= ulp, `x=${x}: got ${gv}, want ${wv}`);
    }
  }
  assert.ok(exact > 0.99 * checked, `${exact} of ${checked} exact`);
});

Deno.test("siluF32() equals the unfused denominator on every bf16 input (the FFMA cannot matter)", () => {
  for (const mufu of [ieee, table]) {
    for (let i = 0; i < 65536; i++) {
      const x = (i << 16) >>> 0;
      const { e, scale } = expfParts((x ^ 0x80000000) >>> 0, mufu);
      const den = bitsFromF32(Math.fround(Math.fround(f32FromBits(e) * f32FromBits(scale)) + 1));
      assert.equal(siluF32(x, { mufu }), divF32(x, den), `x = 0x${x.toString(16)}`);
    }
  }
});

Deno.test("siluBf16() is -0 for large negative inputs (denominator overflow) and exact at 10", () => {
  const y = siluBf16(new Uint16Array([0xc2b2, /* -89 */ 0x4120 /* 10 */]), { mufu: table });
  assert.equal(y[0], 0x8000);
  assert.equal(y[1], 0x4120); // 10 / (1 + e^-10) = 9.99955 -> bf16 10
});

Deno.test("siluBf16() handles zeros, infinities and NaN as the formula does", () => {
  const y = siluBf16(new Uint16Array([0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x4120]), {
    mufu: table,
  });
  assert.equal(y[0], 0x0000);
  assert.equal(y[1], 0x8000);
  assert.equal(y[2], 0x7f80); // inf / (1 + 0)
  assert.equal(y[3], 0x7fff); // -inf / (1 + inf) = NaN (canonical)
  assert.equal(y[4], 0x7fff);
  assert.equal(y[5], 0x4120);
});

Deno.test("mulBf16() and addBf16() round once to bf16 after exact or fp32 arithmetic", () => {
  assert.deepEqual(
    mulBf16(new Uint16Array([0x3f81, 0x7f00]), new Uint16Array([0x3f81, 0x4000])),
    new Uint16Array([0x3f82, 0x7f80]),
  );
  assert.deepEqual(
    addBf16(new Uint16Array([0x3f80, 0x3f80]), new Uint16Array([0xbf80, 0x3b80])),
    new Uint16Array([0x0000, 0x3f80]),
  );
  assert.throws(() => addBf16(new Uint16Array(1), new Uint16Array(2)), RangeError);
});

Deno.test("siluBf16() through its table equals siluF32() element by element on every bf16 input", () => {
  for (const mufu of [ieee, table]) {
    const direct = Uint16Array.from(
      ALL,
      (p) => convert(FP32, BF16, siluF32((p << 16) >>> 0, { mufu })),
    );
    const big = siluBf16(ALL, { mufu }); // 65,536 elements: the table path
    assert.deepStrictEqual(big, direct);
    const small = siluBf16(ALL.subarray(0x3f00, 0x4100), { mufu }); // cached table, a slice
    assert.deepStrictEqual(small, direct.subarray(0x3f00, 0x4100));
    // A fresh model object with the same functions and a short tensor: the element path.
    const fresh = { ex2: mufu.ex2, rcp: mufu.rcp, rsqrt: mufu.rsqrt };
    assert.deepStrictEqual(
      siluBf16(ALL.subarray(0, 1000), { mufu: fresh }),
      direct.subarray(0, 1000),
    );
  }
  // The table is per model: a different ex2 gives different bits through the table path too.
  const skewed = { ...ieee, ex2: (b: number) => ieee.ex2(b) ^ 1 };
  const a = siluBf16(ALL, { mufu: skewed });
  const b = siluBf16(ALL, { mufu: ieee });
  assert.ok(a.some((v, i) => v !== b[i]));
});
