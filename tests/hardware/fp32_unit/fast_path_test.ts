/**
 * The FP32 unit's float64 fast paths bit for bit against the format-generic reference of
 * `src/numerics` (`floatAdd`/`floatMul`/`floatFma` on FP32, `.ftz` = `daz` + `ftz`, rounded by
 * `roundPack`): adversarial operands (signed zeros, subnormals, ties, overflow, NaN and infinity,
 * cancellation) and seeded random samples, in every mode with and without FTZ. Also
 * `roundToF32()` against `roundPack(FP32, ...)` of the exact float64, and the value-level
 * `fmaRnValue()` against `fma.rn`.
 *
 * @module
 */
import {
  addF32,
  divF32,
  F32_RN,
  f32Arith,
  fmaF32,
  fmaRnValue,
  mulF32,
  roundToF32,
  roundToOdd,
} from "../../../src/hardware/fp32_unit/mod.ts";
import {
  floatAdd,
  floatDiv,
  floatFma,
  floatMul,
  FP32,
  type RoundingMode,
  roundPack,
} from "../../../src/numerics/mod.ts";
import { FP32_SPECIALS } from "../../numerics/_boundary_inputs.ts";
import { Mismatches } from "../../numerics/_mismatches.ts";
import { prng32 } from "../../numerics/_prng.ts";
import { hex } from "../../numerics/_ref_convert.ts";

const MODES: readonly RoundingMode[] = ["rne", "rz", "ru", "rd"];
const h = (x: number) => hex(x >>> 0, 32);

/** Operand triples: specials crossed, ties, cancellation, overflow, subnormals, random. */
function triples(seed: number, count: number): [number, number, number][] {
  const next = prng32(seed);
  const out: [number, number, number][] = [];
  const sp = [...FP32_SPECIALS, 0x33800000, 0x34000000, 0xb3800000, 0x3f800001, 0x00400000];
  for (const a of sp) for (const b of sp) out.push([a, b, sp[((a ^ b) >>> 0) % sp.length]!]);
  const exp = (x: number) => (x >>> 23) & 0xff;
  const withExp = (sign: number, e: number, frac: number) =>
    ((sign << 31) | (Math.min(254, Math.max(0, e)) << 23) | frac) >>> 0;
  for (let i = 0; i < count; i++) {
    const a = next();
    const r = next() % 6;
    if (r === 0) { // cancellation: b = -a plus a few ulps, c near the product
      const b = ((a ^ 0x80000000) + (next() % 5) - 2) >>> 0;
      out.push([a, b, withExp(next() & 1, exp(a) * 2 - 127, next() & 0x7fffff)]);
    } else if (r === 1) { // ties: b is half an ulp of a (times an odd factor below 2)
      const b = withExp(next() & 1, exp(a) - 24, (next() & 0x7fffff) | (next() & 1 ? 0 : 0x400000));
      out.push([a, b, b]);
    } else if (r === 2) { // subnormal operands and results
      const sub = () => (next() & 0x807fffff) >>> 0;
      out.push([sub(), withExp(next() & 1, 100 + (next() % 40), next() & 0x7fffff), sub()]);
    } else if (r === 3) { // overflow
      const big = () => withExp(next() & 1, 250 + (next() % 5), next() & 0x7fffff);
      out.push([big(), big(), big()]);
    } else {
      out.push([a, next(), next()]);
    }
  }
  return out;
}

Deno.test("`addF32()`, `mulF32()`, `fmaF32()` equal the roundPack reference in every mode and FTZ setting", () => {
  const m = new Mismatches();
  const inputs = triples(0xf32, 6000);
  for (const mode of MODES) {
    for (const ftz of [false, true]) {
      const ref = { mode, ftz, daz: ftz };
      const bound = f32Arith({ mode, ftz });
      for (const [a, b, c] of inputs) {
        const tag = `${mode} ftz=${ftz} ${h(a)} ${h(b)} ${h(c)}`;
        const add = floatAdd(FP32, [a, b], ref);
        const mul = floatMul(FP32, [a, b], ref);
        const fma = floatFma(FP32, [a, b, c], ref);
        m.check(addF32(a, b, { mode, ftz }) === add, () => `add ${tag}`);
        m.check(bound.add(a, b) === add, () => `f32Arith add ${tag}`);
        m.check(mulF32(a, b, { mode, ftz }) === mul, () => `mul ${tag}`);
        m.check(bound.mul(a, b) === mul, () => `f32Arith mul ${tag}`);
        m.check(fmaF32([a, b, c], { mode, ftz }) === fma, () => `fma ${tag}`);
        m.check(bound.fma(a, b, c) === fma, () => `f32Arith fma ${tag}`);
      }
    }
  }
  for (const [a, b] of inputs) {
    m.check(F32_RN.add(a, b) === floatAdd(FP32, [a, b]), () => `F32_RN.add ${h(a)} ${h(b)}`);
  }
  m.assertNone("fp32 fast paths");
});

/**
 * Division operand pairs: the triples' pairs, plus quotients on or next to FP32 values and
 * midpoints (a = b * f for a random f, exactly or rounded; b a power of two, giving exact ties
 * in the subnormal range) and results around the subnormal boundary 2^-126.
 */
function divPairs(seed: number, count: number): [number, number][] {
  const next = prng32(seed);
  const out: [number, number][] = triples(seed, count).map(([a, b]) => [a, b]);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  const bits = (x: number) => {
    f32[0] = x;
    return u32[0]!;
  };
  const val = (b: number) => {
    u32[0] = b;
    return f32[0]!;
  };
  for (let i = 0; i < count; i++) {
    const sign = (next() & 1) << 31;
    const e = 1 + (next() % 254);
    // b with few significant bits makes b * f exact more often (quotient exactly on f).
    const b = (sign | (e << 23) | (next() & (next() & 1 ? 0x7f0000 : 0x7fffff))) >>> 0;
    const f = (next() & 0x80000000 | (1 + (next() % 254)) << 23 | (next() & 0x7fffff)) >>> 0;
    out.push([bits(val(b) * val(f)), b]);
    const mid = val(f) * (1 + 2 ** -24); // near an FP32 midpoint above f
    out.push([bits(val(b) * mid), b]);
    const pow2 = (((next() % 60) + 127) << 23) >>> 0; // 2^0..2^59
    out.push([(next() & 0x807fffff) >>> 0, pow2]); // subnormal / 2^k: exact ties below 2^-126
    out.push([((next() & 0x80000000) | ((next() % 40) << 23) | (next() & 0x7fffff)) >>> 0, pow2]);
    const near = (0x00800000 + (next() % 64) - 32) >>> 0; // a/b around 2^-126
    out.push([bits(val(near) * val(b & 0x7fffffff)), b & 0x7fffffff]);
  }
  return out;
}

Deno.test("`divF32()` equals the floatDiv reference in every mode and FTZ setting", () => {
  const m = new Mismatches();
  const inputs = divPairs(0xd1f, 4000);
  for (const mode of MODES) {
    for (const ftz of [false, true]) {
      const ref = { mode, ftz, daz: ftz };
      for (const [a, b] of inputs) {
        const want = floatDiv(FP32, [a, b], ref) >>> 0;
        m.check(
          divF32(a, b, { mode, ftz }) === want,
          () => `div ${mode} ftz=${ftz} ${h(a)} ${h(b)}`,
        );
      }
    }
  }
  m.assertNone("fp32 division fast path");
});

Deno.test("`fmaRnValue()` equals `fma.rn` of the reference on FP32 values", () => {
  const f = new Float32Array(3);
  const u = new Uint32Array(f.buffer);
  const m = new Mismatches();
  for (const [a, b, c] of triples(0xfa, 6000)) {
    u[0] = a, u[1] = b, u[2] = c;
    const got = Math.fround(fmaRnValue(f[0]!, f[1]!, f[2]!));
    const want = floatFma(FP32, [a, b, c]);
    f[0] = got;
    const bits = got !== got ? FP32.canonicalNan : u[0]!;
    m.check(bits === want, () => `${h(a)} ${h(b)} ${h(c)}: got ${h(bits)}, want ${h(want)}`);
  }
  m.assertNone("fmaRnValue");
});

/** The exact magnitude of a finite non-zero float64. */
function exactOf(x: number): { sign: 0 | 1; significand: number; exponent: number } {
  const d = new Float64Array([Math.abs(x)]);
  const w = new Uint32Array(d.buffer);
  const hi = w[1]!, lo = w[0]!;
  const field = hi >>> 20;
  const frac = (hi & 0xfffff) * 2 ** 32 + lo;
  const sign = x < 0 ? 1 : 0;
  if (field === 0) return { sign, significand: frac, exponent: -1074 };
  return { sign, significand: frac + 2 ** 52, exponent: field - 1075 };
}

Deno.test("`roundToF32()` of an exact or rounded-to-odd float64 equals roundPack(FP32)", () => {
  const next = prng32(0x0dd);
  const m = new Mismatches();
  const values: number[] = [];
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (let i = 0; i < 20000; i++) {
    u[0] = next();
    const base = f[0]!;
    if (!Number.isFinite(base)) continue;
    const ulp = 2 ** Math.max(-149, Math.floor(Math.log2(Math.abs(base) || 2 ** -149)) - 23);
    const k = [0.5, -0.5, 0.25, 0.75, 1e-9, -1e-9][next() % 6]!;
    values.push(base, base + k * ulp, roundToOdd(base + k * ulp, 2 ** -80 * (base || 1)));
  }
  values.push(2 ** 128, -(2 ** 128), 2 ** 128 - 2 ** 103, 2 ** -150, -(2 ** -150), 3 * 2 ** -151);
  for (const x of values) {
    if (x === 0) continue;
    for (const mode of MODES) {
      for (const ftz of [false, true]) {
        const got = roundToF32(x, { mode, ftz });
        const want = roundPack(FP32, exactOf(x), { mode, ftz }) >>> 0;
        m.check(got === want, () => `${x} ${mode} ftz=${ftz}: got ${h(got)}, want ${h(want)}`);
      }
    }
  }
  m.assertNone("roundToF32");
});
