// The correctly rounded FP32 2^x of the `ieee` SFU mode (src/hardware/sfu/ieee_ex2.ts `ieeeEx2`,
// whose bits it reproduces), for the FA2 softmax on that SFU: the same case split, then the same
// float64 first step with a proven error bound (src/hardware/sfu/_round_exp2_fast.ts
// `_roundExp2Fast`: the same operations in the same order, the same constants bit for bit, and
// the same 64-entry table of 2^(j/64)). Wasm's f64 add, mul and floor are IEEE binary64 with
// round to nearest-even and are never fused, as in the TypeScript. The inputs that step leaves
// undecided (about 2^-21 of them) go back to the host's `ieeeEx2` (the import `env.ieeeEx2`),
// which runs the BigInt steps. Tests compare it with `ieeeEx2` on all 2^32 patterns.

/** Host fallback: `ieeeEx2(x, { ftz })` of src/hardware/sfu/ieee_ex2.ts. */
@external("env", "ieeeEx2")
declare function hostIeeeEx2(x: u32, ftz: bool): u32;

/** 2^(j/64), j = 0..63, as `_roundExp2Fast` builds them (exp2Fixed at 128 bits, rounded). */
const TABLE: usize = memory.data<u64>([
  0x3ff0000000000000, 0x3ff02c9a3e778061, 0x3ff059b0d3158574, 0x3ff0874518759bc8,
  0x3ff0b5586cf9890f, 0x3ff0e3ec32d3d1a2, 0x3ff11301d0125b51, 0x3ff1429aaea92de0,
  0x3ff172b83c7d517b, 0x3ff1a35beb6fcb75, 0x3ff1d4873168b9aa, 0x3ff2063b88628cd6,
  0x3ff2387a6e756238, 0x3ff26b4565e27cdd, 0x3ff29e9df51fdee1, 0x3ff2d285a6e4030b,
  0x3ff306fe0a31b715, 0x3ff33c08b26416ff, 0x3ff371a7373aa9cb, 0x3ff3a7db34e59ff7,
  0x3ff3dea64c123422, 0x3ff4160a21f72e2a, 0x3ff44e086061892d, 0x3ff486a2b5c13cd0,
  0x3ff4bfdad5362a27, 0x3ff4f9b2769d2ca7, 0x3ff5342b569d4f82, 0x3ff56f4736b527da,
  0x3ff5ab07dd485429, 0x3ff5e76f15ad2148, 0x3ff6247eb03a5585, 0x3ff6623882552225,
  0x3ff6a09e667f3bcd, 0x3ff6dfb23c651a2f, 0x3ff71f75e8ec5f74, 0x3ff75feb564267c9,
  0x3ff7a11473eb0187, 0x3ff7e2f336cf4e62, 0x3ff82589994cce13, 0x3ff868d99b4492ed,
  0x3ff8ace5422aa0db, 0x3ff8f1ae99157736, 0x3ff93737b0cdc5e5, 0x3ff97d829fde4e50,
  0x3ff9c49182a3f090, 0x3ffa0c667b5de565, 0x3ffa5503b23e255d, 0x3ffa9e6b5579fdbf,
  0x3ffae89f995ad3ad, 0x3ffb33a2b84f15fb, 0x3ffb7f76f2fb5e47, 0x3ffbcc1e904bc1d2,
  0x3ffc199bdd85529c, 0x3ffc67f12e57d14b, 0x3ffcb720dcef9069, 0x3ffd072d4a07897c,
  0x3ffd5818dcfba487, 0x3ffda9e603db3285, 0x3ffdfc97337b9b5f, 0x3ffe502ee78b3ff6,
  0x3ffea4afa2a490da, 0x3ffefa1bee615a27, 0x3fff50765b6e4540, 0x3fffa7c1819e90d8,
]);

// The TypeScript's constants, as their binary64 patterns: RN(ln 2) and RN(1/k!) for k = 3..6.
const LN2: f64 = reinterpret<f64>(0x3fe62e42fefa39ef);
const C3: f64 = reinterpret<f64>(0x3fc5555555555555);
const C4: f64 = reinterpret<f64>(0x3fa5555555555555);
const C5: f64 = reinterpret<f64>(0x3f81111111111111);
const C6: f64 = reinterpret<f64>(0x3f56c16c16c16c17);

/** 2^p exactly, for -1022 <= p <= 1023. */
@inline function pow2(p: i32): f64 {
  return reinterpret<f64>(<u64>(1023 + p) << 52);
}

/** `_roundExp2Fast(f, k)`: RN(2^f * 2^k), or -1 when the float64 evaluation cannot decide it. */
@inline function roundExp2Fast(f: f64, k: i32): i32 {
  const j = Math.floor(f * 64);
  const r = f - j / 64;
  const t = r * LN2;
  const p = 1 + t * (1 + t * (0.5 + t * (C3 + t * (C4 + t * (C5 + t * C6)))));
  const v = load<f64>(TABLE + (<usize>(<i32>j) << 3)) * p * pow2(k);
  const e = v * pow2(-47);
  const lo = Math.floor(v - e + 0.5);
  return lo == Math.floor(v + e + 0.5) ? <i32>lo : -1;
}

/** 2^n exactly, for n <= 127: normal, subnormal (flushed under `ftz`) or +0. */
@inline function packPow2(n: i32, ftz: bool): u32 {
  if (n >= -126) return <u32>(n + 127) << 23;
  if (n >= -149 && !ftz) return <u32>1 << <u32>(n + 149);
  return 0;
}

/** `ieeeEx2(x, { ftz })` on one FP32 pattern. */
export function ieeeEx2(x: u32, ftz: bool): u32 {
  const negative = (x & 0x80000000) != 0;
  const e = <i32>((x >>> 23) & 0xff);
  const m = x & 0x7fffff;
  if (e == 255) return m != 0 ? x | 0x00400000 : (negative ? 0 : 0x7f800000);
  if (e < 102) return 0x3f800000; // zero, subnormal or |x| < 2^-25
  if (e >= 134 && !negative) return 0x7f800000; // x >= 128
  if (e >= 135) return 0; // x <= -256
  // x = ±sig * 2^-den with den in [16, 48]: every value below is exact in f64.
  const den = 150 - e;
  const scale = pow2(-den);
  const mag = <f64>(m | 0x800000);
  const sig = negative ? -mag : mag;
  const n = Math.floor(sig * scale);
  const num = sig - n * pow2(den);
  const ni = <i32>n;
  if (num == 0) return packPow2(ni, ftz);
  const k = min<i32>(23, ni + 149);
  if (k < -1) return 0;
  if (k == -1) return ftz ? 0 : 1; // 2^x in (2^-150, 2^-149): above the tie, rounds up
  const q = roundExp2Fast(num * scale, k);
  if (q < 0) return hostIeeeEx2(x, ftz);
  if (k == 23) return <u32>(((ni + 127) << 23) + q - 0x800000);
  return ftz && q < 0x800000 ? 0 : <u32>q;
}

/** `ieeeEx2` on each of four lanes. */
export function ieeeEx2x4(x: v128, ftz: bool): v128 {
  let r = i32x4.splat(ieeeEx2(i32x4.extract_lane(x, 0), ftz));
  r = i32x4.replace_lane(r, 1, ieeeEx2(i32x4.extract_lane(x, 1), ftz));
  r = i32x4.replace_lane(r, 2, ieeeEx2(i32x4.extract_lane(x, 2), ftz));
  return i32x4.replace_lane(r, 3, ieeeEx2(i32x4.extract_lane(x, 3), ftz));
}
