import assert from "node:assert/strict";
import {
  applyRope,
  ropeInvFreq,
  ropeInvFreqGap,
  ropeTables,
  sleefPowfU10,
} from "../../../src/kernels/mod.ts";
import { divF32 } from "../../../src/hardware/mod.ts";
import { BF16, bitsFromF32, convert, f32FromBits, FP32 } from "../../../src/numerics/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";

const bf = (x: number) => f32FromBits((x << 16) >>> 0);
const toBf = (v: number) => convert(FP32, BF16, new Uint32Array(new Float32Array([v]).buffer)[0]!);

Deno.test("ropeInvFreq() for Qwen3 (theta 1e6, d 128) is 1 / SLEEF powf, within an ulp of 1/theta^t", () => {
  const f = ropeInvFreq(128, { theta: 1_000_000 });
  assert.equal(f.length, 64);
  assert.equal(f[0], 0x3f800000);
  for (let i = 1; i < 64; i++) {
    const want = 1 / Math.pow(1_000_000, (2 * i) / 128);
    const got = f32FromBits(f[i]!);
    assert.ok(Math.abs(got - want) <= want * 2 ** -23, `entry ${i}`);
    assert.ok(got < f32FromBits(f[i - 1]!), "decreasing");
    assert.equal(
      f[i],
      divF32(0x3f800000, sleefPowfU10(0x49742400, bitsFromF32(i / 64))),
      `entry ${i}`,
    );
  }
  assert.throws(() => ropeInvFreq(127, { theta: 10000 }), RangeError);
});

Deno.test("ropeInvFreq() takes SLEEF's last bit where it is not the correctly rounded powf", () => {
  // theta 1e6, entry 37: 1e6^(74/128) correctly rounded 0x4537EBA3 (inverse 0x39B229FA); SLEEF's
  // powf gives 0x4537EBA2, whose IEEE inverse PyTorch's AVX2 and AVX-512 builds return.
  assert.equal(ropeInvFreq(128, { theta: 1_000_000 })[37], 0x39b229fb);
  assert.equal(divF32(0x3f800000, 0x4537eba3), 0x39b229fa);
  // theta 5e6, entry 19: correctly rounded 0x42C2E384 (inverse 0x3C282310); SLEEF 0x42C2E383.
  assert.equal(ropeInvFreq(128, { theta: 5_000_000 })[19], 0x3c282311);
  assert.equal(divF32(0x3f800000, 0x42c2e384), 0x3c282310);
});

Deno.test("ropeTables() at theta 1e6, d 128: position 3344 takes SLEEF's inv_freq[37] (cos 0x3ED7, not 0x3ED8)", () => {
  const inv = ropeInvFreq(128, { theta: 1_000_000 });
  const rounded = inv.slice();
  rounded[37] = 0x39b229fa; // 1 / the correctly rounded powf
  const t = ropeTables(inv, [3344]);
  assert.deepEqual([t.cos[37], t.sin[37]], [0x3ed7, 0x3f68]);
  assert.equal(ropeTables(rounded, [3344]).cos[37], 0x3ed8);
});

Deno.test("ropeInvFreq() refuses a head dimension PyTorch leaves partly to the scalar glibc powf", () => {
  // Entries past the last 32-element block (AVX-512: two 16-lane vectors) take std::pow.
  for (const d of [4, 8, 32, 80, 96, 160]) {
    assert.throws(() => ropeInvFreq(d, { theta: 10000 }), /scalar glibc powf/, `d ${d}`);
    // What callers ask before they compute (rather than matching the error's words).
    assert.match(ropeInvFreqGap(d) ?? "", /scalar glibc powf/, `d ${d}`);
  }
  for (const d of [2, 64, 128, 192, 256, 512]) {
    assert.equal(ropeInvFreq(d, { theta: 1e4 }).length, d / 2);
    assert.equal(ropeInvFreqGap(d), null, `d ${d}`);
  }
  assert.deepEqual(ropeInvFreq(2, { theta: 1e4 }), Uint32Array.of(0x3f800000)); // theta^0 = 1 in every libm
});

Deno.test("ropeTables() gives cos 1 / sin 0 at position 0 and tracks cos/sin to one bf16 rounding", () => {
  const inv = ropeInvFreq(128, { theta: 1_000_000 });
  const positions = [0, 1, 2, 17, 100, 1000, 4095, 40959];
  const t = ropeTables(inv, positions);
  for (let i = 0; i < 128; i++) {
    assert.equal(t.cos[i], 0x3f80);
    assert.equal(t.sin[i], 0x0000);
  }
  positions.forEach((p, r) => {
    for (let i = 0; i < 64; i++) {
      const f = Math.fround(f32FromBits(inv[i]!) * p);
      for (const [table, fn] of [[t.cos, Math.cos], [t.sin, Math.sin]] as const) {
        const got = bf(table[r * 128 + i]!);
        assert.equal(table[r * 128 + i], table[r * 128 + 64 + i], "halves repeat");
        assert.ok(
          Math.abs(got - fn(f)) <= 2 ** -8 * Math.max(Math.abs(fn(f)), 2 ** -20) + 1e-30,
          `pos ${p} i ${i}`,
        );
      }
    }
  });
});

Deno.test("applyRope() rotates half with -x2 first and rounds each product to bf16 (spec ops.md §4.1)", () => {
  // d = 8 as HF computes it: theta^(-2i/8) = entries 0, 8, 16, 24 of d = 64 (same exponents).
  const inv = ropeInvFreq(64, { theta: 10000 }).filter((_, i) => i % 8 === 0);
  const tables = ropeTables(inv, [3, 250]);
  const heads = 2;
  const x = synthBf16("rope", { label: "x", count: 2 * heads * 8, span: 6 });
  const y = applyRope(x, { tables, heads });
  for (let t = 0; t < 2; t++) {
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < 8; i++) {
        const base = (t * heads + h) * 8;
        const c = bf(tables.cos[t * 8 + i]!);
        const s = bf(tables.sin[t * 8 + i]!);
        const rot = i < 4 ? -bf(x[base + i + 4]!) : bf(x[base + i - 4]!);
        const a = bf(toBf(bf(x[base + i]!) * c));
        const b = bf(toBf(rot * s));
        assert.equal(y[base + i], toBf(Math.fround(a + b)), `t ${t} h ${h} i ${i}`);
      }
    }
  }
  assert.throws(() => applyRope(x.subarray(1), { tables, heads }), RangeError);
  // Hand-made tables: an odd head dimension has no halves to rotate, and short tables would be
  // read past their end.
  const odd = { ...tables, headDim: 3, positions: 1, cos: tables.cos.subarray(0, 3) };
  assert.throws(
    () =>
      applyRope(x.subarray(0, 3), { tables: { ...odd, sin: tables.sin.subarray(0, 3) }, heads: 1 }),
    /head dimension 3 \(even needed\)/,
  );
  const short = { ...tables, cos: tables.cos.subarray(1) };
  assert.throws(() => applyRope(x, { tables: short, heads }), RangeError);
});

Deno.test("applyRope() differs from rounding only the sum: the per-product rounding is observable", () => {
  const tables = ropeTables(
    ropeInvFreq(64, { theta: 1_000_000 }),
    Array.from({ length: 64 }, (_, i) => i * 37),
  );
  const x = synthBf16("rope2", { label: "x", count: 64 * 64, span: 4 });
  const y = applyRope(x, { tables, heads: 1 });
  let differ = 0;
  for (let t = 0; t < 64; t++) {
    for (let i = 0; i < 64; i++) {
      const rot = i < 32 ? -bf(x[t * 64 + i + 32]!) : bf(x[t * 64 + i - 32]!);
      const fused = toBf(
        Math.fround(
          bf(x[t * 64 + i]!) * bf(tables.cos[t * 64 + i]!) + rot * bf(tables.sin[t * 64 + i]!),
        ),
      );
      if (fused !== y[t * 64 + i]) differ++;
    }
  }
  assert.ok(differ > 0, "the intermediate bf16 products must matter on some elements");
});
