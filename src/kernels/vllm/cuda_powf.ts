/**
 * `cudaPowf`: CUDA's accurate `powf` (libdevice `__nv_powf`), bit for bit given a MUFU model. It
 * lives beside the vLLM kernels because the RoPE cache that vLLM builds on the GPU is its first
 * user (`base ** (arange(0, d, 2) / d)` runs PyTorch's CUDA `pow_` = `::pow(float, float)` =
 * `powf`); it belongs with the other libdevice functions of `src/kernels/math/`.
 *
 * Source: `__nv_powf` in the toolkit's `libdevice.10.bc` (CUDA 13.0, V13.0.88, sha256 `91334d6e…`),
 * disassembled with `llvm-extract-14 --func=__nv_powf` + `llvm-dis-14`; the non-FTZ branch of every
 * `__nvvm_reflect("__CUDA_FTZ")` (PyTorch builds without fast-math). Evidence: derived from source,
 * checked against that bitcode compiled for the CPU (`tools/libdevice_oracle/`, fixture
 * `tests/kernels/vllm/fixtures/powf_oracle_sample.json`); never compared with a GPU.
 *
 * GPU-only question: the bitcode's `fsub float f, u` with `u = fmul (2 f) r` is a plain (not
 * `.rn`-intrinsic) multiply feeding a subtract, which a compiler run with `--fmad=true` may contract
 * into `fma(-2f, r, f)`. It is the only such site on the non-FTZ path whose result can change:
 * the other, `b - 2 trunc(0.5 b)`, is exact either way, and the remaining plain multiplies feed no
 * add. The default keeps them apart, as the CPU oracle (`--fp-contract=off`) does;
 * `contract: true` gives the fused form. A GPU must settle what nvcc emits.
 *
 * Inferred, not checked: that the libdevice of the CUDA release that built the PyTorch wheel
 * (12.8 for torch 2.8.0 cu128, vLLM 0.11's pin) has the same `__nv_powf` as CUDA 13.0's.
 *
 * @module
 */
import { fmaRnValue, isNanF32 } from "../../hardware/mod.ts";
import { bitsFromF32 as _bits, f32FromBits as _value, FP32 } from "../../numerics/mod.ts";
import type { Mufu } from "../math/mod.ts";

/** Options of {@link cudaPowf}. */
export interface CudaPowfOptions {
  /** The MUFU model whose `rcp` stands for the inline `rcp.approx.ftz.f32`. */
  readonly mufu: Mufu;
  /**
   * Contract the log step's `f - u` (u = `fmul (2f) r`, plain IR operations) into
   * `fma(-2f, r, f)`, as nvcc's default `--fmad=true` may; default false (the IR's operations
   * kept apart, as the CPU oracle computes them). A GPU must settle which one nvcc emits: the two
   * differ in the last bit on about one input in eight (e.g. 3 of the 64 `inv_freq` entries for
   * base 10,000 and d = 128; none for base 1,000,000 and d = 128).
   */
  readonly contract?: boolean;
}

const f = Math.fround;
/** Log-side polynomial of `__internal_log2_ep` (FP32 patterns 0x3A2C32E4, 0x3B52E7DB, ...). */
const LOG_C = [
  0.0006568862590938807,
  0.0032181653659790754,
  0.018033718690276146,
  0.12022458761930466,
] as const;
const L2E = 1.4426950216293335; // 0x3FB8AA3B
const L2E_LO = 1.925136672298322e-8; // 0x32A55E34
/** Exp2-side polynomial of `__internal_powf_exp2`, highest first, ending in 1. */
const EXP2_C = [
  0.00015239251661114395, // 0x391FCB8E
  0.0013391353422775865, // 0x3AAF85ED
  0.009618839249014854, // 0x3C1D9856
  0.055503588169813156, // 0x3D6357BB
  0.24022644758224487, // 0x3E75FDEC
  0.6931471824645996, // 0x3F317218
  1,
] as const;
const NO_BIAS_SCALE = 0x7f000000; // 2^127
const LOW_BIAS = -2097152000; // -0x7D000000: 2^-123 then 2^(123 + n)

/**
 * a^b as `__nv_powf` computes it (non-FTZ build):
 * 1. `odd = |b - 2 trunc(0.5 b)| == 1` (b is an odd integer);
 * 2. log2|a| in double-single: |a| below 2^-126 is scaled by 2^24 (`expo = -24`); the pattern minus
 *    0x3F3504F3, masked to the exponent field, splits |a| = 2^e m with m in [0.707, 1.414);
 *    `k = fma(float(e), 2^-23, expo)`, `f = m - 1`, `r = MUFU.RCP(m + 1)` (inline
 *    `rcp.approx.ftz`), `u = fl(2f r)`, `v = u^2`, `y = r fma(-u, f, 2 fl(f - u))`, a cubic in v,
 *    `q = fl(p v)`, then the FMA chain `hi = fma(u, L2E, k)`,
 *    `lo = fma(q, u, fma(3q, y, fma(u, L2E_LO, fma(y, L2E, fma(u, L2E, k - hi)))))` and the
 *    renormalisation `s = hi + lo`, `l = lo - (s - hi)`;
 * 3. `P = fl(s b)`, `Pl = fma(l, b, fma(s, b, -P))`, `n = rni(P)` (`cvt.rni`), `z = (P - n) + Pl`,
 *    a degree-6 Horner chain for 2^z, scaled by 2^n in two multiplies (so subnormal results
 *    round once, at the second); `|P| > 152` gives 0 (P < 0) or +inf;
 * 4. special cases as C99 Annex F: `a == 1` or `b == ±0` gives 1; NaN operands give `a + b`
 *    (NaN); `a` = ±0 or ±inf gives `bits(a + a)`, with the exponent field flipped for `b < 0` and
 *    the sign cleared unless b is an odd integer; `a == -1, |b| == inf` gives 1; `a < 0` negates
 *    the result for odd b and gives NaN for a non-integer b.
 *
 * Host arithmetic: `Math.fround` of a float64 sum, difference or product of two FP32 values is the
 * nearest-even FP32 result (exact product, innocuous double rounding for sums); FMAs go through
 * `fmaRnValue` (one rounding).
 *
 * @param aBits FP32 pattern of the base a
 * @param bBits FP32 pattern of the exponent b
 * @param options the MUFU model (`rcp` is used) and the contraction choice
 * @returns FP32 pattern of powf(a, b); NaN results are 0x7FFFFFFF
 * @example
 * ```ts
 * import { cudaPowf } from "./cuda_powf.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * const mufu = createSfu({ mode: "ieee", ftz: true });
 * if (cudaPowf(0x40000000, 0x41200000, { mufu }) !== 0x44800000) throw new Error(); // 2^10
 * if (cudaPowf(0xc0000000, 0x3f000000, { mufu }) !== 0x7fffffff) throw new Error(); // (-2)^0.5
 * ```
 */
export function cudaPowf(aBits: number, bBits: number, options: CudaPowfOptions): number {
  const a = _value(aBits);
  const b = _value(bBits);
  const odd = Math.abs(f(b - f(2 * Math.trunc(f(0.5 * b))))) === 1;
  if (a === 1 || b === 0) return 0x3f800000;
  if (a !== a || b !== b) return FP32.canonicalNan;
  if (a === 0 || Math.abs(a) === Infinity) {
    let ti = _bits(f(a + a));
    if (b < 0) ti = (ti ^ 0x7f800000) >>> 0;
    return odd ? ti : (ti & 0x7fffffff) >>> 0;
  }
  if (a === -1 && Math.abs(b) === Infinity) return 0x3f800000;
  let t = _powAbs(Math.abs(a), b, options.mufu, options.contract === true);
  if (a < 0) {
    if (odd) t = -t;
    if (b !== Math.floor(b)) return FP32.canonicalNan;
  }
  const out = _bits(t);
  return isNanF32(out) ? FP32.canonicalNan : out;
}

/** `__internal_accurate_powf(|a|, b)` for finite non-zero |a| (the general path). */
function _powAbs(absA: number, b: number, mufu: Mufu, contract: boolean): number {
  const [s, l] = _log2Ep(absA, mufu, contract);
  const p = f(s * b);
  const pl = fmaRnValue(l, b, fmaRnValue(s, b, -p));
  if (Math.abs(p) > 152) return p < 0 ? 0 : Infinity;
  const n = _rni(p);
  const z = f(f(p - n) + pl);
  let e = fmaRnValue(EXP2_C[0], z, EXP2_C[1]);
  for (let j = 2; j < EXP2_C.length; j++) e = fmaRnValue(e, z, EXP2_C[j] as number);
  const bias = n > 0 ? 0 : LOW_BIAS;
  const first = f(e * _value((NO_BIAS_SCALE + bias) >>> 0));
  return f(first * _value((((n | 0) << 23) - bias) >>> 0));
}

/** `__internal_log2_ep`: log2(x) as an unevaluated sum `[hi, lo]` of two FP32 values. */
function _log2Ep(x: number, mufu: Mufu, contract: boolean): [number, number] {
  let expo = 0;
  if (x < 2 ** -126) {
    x = f(x * 2 ** 24); // exact scaling of a subnormal
    expo = -24;
  }
  const bits = _bits(x);
  const e = ((bits - 0x3f3504f3) & 0xff800000) | 0; // int32 multiple of 2^23
  const m = _value((bits - e) >>> 0);
  const k = fmaRnValue(e, 2 ** -23, expo); // sitofp(e) is exact
  const fm = f(m - 1);
  const r = _value(mufu.rcp(_bits(f(m + 1))));
  const u = f(f(2 * fm) * r);
  const v = f(u * u);
  const fMinusU = contract ? fmaRnValue(-f(2 * fm), r, fm) : f(fm - u);
  const y = f(r * fmaRnValue(-u, fm, f(2 * fMinusU)));
  let p = fmaRnValue(LOG_C[0], v, LOG_C[1]);
  p = fmaRnValue(p, v, LOG_C[2]);
  p = fmaRnValue(p, v, LOG_C[3]);
  const q = f(p * v);
  const hi = fmaRnValue(u, L2E, k);
  let lo = fmaRnValue(u, L2E, f(k - hi));
  lo = fmaRnValue(y, L2E, lo);
  lo = fmaRnValue(u, L2E_LO, lo);
  lo = fmaRnValue(f(3 * q), y, lo);
  lo = fmaRnValue(q, u, lo);
  const s = f(hi + lo);
  return [s, f(lo - f(s - hi))];
}

/** `cvt.rni.f32.f32`: nearest integer, ties to even, keeping the sign of a zero result. */
function _rni(x: number): number {
  if (!(Math.abs(x) < 2 ** 23)) return x; // already an integer (or NaN/inf)
  const fl = Math.floor(x);
  const d = x - fl; // exact below 2^23
  const r = d > 0.5 || (d === 0.5 && fl % 2 !== 0) ? fl + 1 : fl;
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r;
}
