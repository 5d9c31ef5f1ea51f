/**
 * `trigReduceF32`: the argument reduction of libdevice's `__nv_sinf`/`__nv_cosf`.
 *
 * @module
 */
import { f2iValue, fmaRnValue } from "../../hardware/mod.ts";

/** 2/pi as FP32 (0x3F22F983). */
const TWO_OVER_PI = 0.6366197466850281;
/** -pi/2 split in three FP32 parts (0xBFC90FDA, 0xB3A22168, 0xA7C234C5): Cody-Waite. */
const PIO2_1 = -1.570796251296997;
const PIO2_2 = -7.549789415861596e-8;
const PIO2_3 = -5.390302953474238e-15;
/** |a| at and above which the Payne-Hanek path runs (105615.0, 0x47CE4780). */
const SLOW_PATH_FROM = 105615;
/** `__cudart_i2opi_f`: 192 bits of 2/pi, least significant word first. */
const I2OPI_F = new Uint32Array([
  0x3c439041,
  0xdb629599,
  0xf534ddc0,
  0xfc2757d1,
  0x4e441529,
  0xa2f9836e,
]);
/** pi/2 * 2^-62 as float64 (0x3BF921FB54442D19), scales the 64-bit fixed-point remainder. */
const PIO2_2M62 = new Float64Array(new BigUint64Array([0x3bf921fb54442d19n]).buffer)[0] as number;

const _words = new Uint32Array(7);
/** Quadrant of the last {@link _trigReduce} call (the IR's `i`). */
export let _quadrant = 0;

/**
 * Reduces `a` to `r` in about [-pi/4, pi/4] and a quadrant `q` with `a ~ q * pi/2 + r`, exactly as
 * `__internal_trig_reduction_kernel` of libdevice.10.bc does (non-FTZ build):
 * - `|a| < 105615` (or NaN): `j = cvt.rni.s32(fl(a * 2/pi))`, then three single-rounding FMAs
 *   `r = fma(j, -pi/2_hi, a)`, `fma(j, -pi/2_mid, r)`, `fma(j, -pi/2_lo, r)`;
 * - `|a| = inf`: `r = a * 0` (NaN), `q = 0`;
 * - otherwise Payne-Hanek: the 24-bit significand times 192 bits of 2/pi in 32-bit multiply-add
 *   steps, 64 bits of the fraction taken at the exponent, rounded to float64 (`sitofp i64`),
 *   multiplied by pi/2 * 2^-62 in float64 and rounded to FP32.
 *
 * @param bits FP32 pattern of a
 * @returns `{ quadrant, r }` with `r` an FP32 value held in a number
 * @example
 * ```ts
 * import { trigReduceF32 } from "./trig_reduce.ts";
 * const { quadrant, r } = trigReduceF32(0x40490fdb); // fl32(pi)
 * if (quadrant !== 2 || r !== Math.fround(Math.fround(Math.PI) - Math.PI)) throw new Error();
 * ```
 */
export function trigReduceF32(bits: number): { quadrant: number; r: number } {
  const r = _trigReduce(bits);
  return { quadrant: _quadrant, r };
}

const _f32 = new Float32Array(1);
const _u32 = new Uint32Array(_f32.buffer);

/**
 * Positional core of {@link trigReduceF32}: returns `r` and leaves the quadrant in `_quadrant`.
 *
 * @param bits FP32 pattern of a
 * @returns r, an FP32 value
 */
export function _trigReduce(bits: number): number {
  _u32[0] = bits;
  const a = _f32[0] as number;
  if (!(Math.abs(a) >= SLOW_PATH_FROM)) {
    const j = f2iValue(Math.fround(a * TWO_OVER_PI), "rne");
    _quadrant = j;
    const jf = Math.fround(j);
    return fmaRnValue(jf, PIO2_3, fmaRnValue(jf, PIO2_2, fmaRnValue(jf, PIO2_1, a)));
  }
  if (a === Infinity || a === -Infinity) {
    _quadrant = 0;
    return a * 0;
  }
  return _payneHanek(bits >>> 0);
}

/** 32x32+32 -> 64-bit multiply-add (`mad.lo.cc.u32` + `madc.hi.u32`); returns the high word. */
function _madWide(a: number, b: number, c: number, out: Uint32Array, index: number): number {
  const x = a * (b & 0xffff) + c; // < 2^49: exact
  const y = a * (b >>> 16); // < 2^48: exact
  const t = (y % 65536) * 65536 + x; // < 2^50: exact; full = floor(y / 2^16) * 2^32 + t
  const tHigh = Math.floor(t / 4294967296);
  out[index] = t - tHigh * 4294967296;
  return Math.floor(y / 65536) + tHigh;
}

function _payneHanek(bits: number): number {
  let sign = bits & 0x80000000;
  const shiftedExp = ((bits >>> 23) & 0xff) - 128; // >= 15 here
  const m = ((bits << 8) | 0x80000000) >>> 0;
  const base = 4 - (shiftedExp >>> 5);
  let carry = 0;
  for (let i = 0; i < 6; i++) carry = _madWide(I2OPI_F[i] as number, m, carry, _words, i);
  _words[6] = carry;
  const s = shiftedExp & 31;
  let hi = _words[base + 2] as number;
  let lo = _words[base + 1] as number;
  if (s !== 0) {
    hi = ((hi << s) + (lo >>> (32 - s))) >>> 0;
    lo = ((lo << s) + ((_words[base] as number) >>> (32 - s))) >>> 0;
  }
  let q = hi >>> 30;
  hi = ((hi << 2) + (lo >>> 30)) >>> 0;
  lo = (lo << 2) >>> 0;
  q += hi >>> 31;
  _quadrant = sign !== 0 ? -q | 0 : q;
  if (hi >>> 31 !== 0) {
    hi = ~hi >>> 0;
    lo = ~lo >>> 0;
    sign ^= 0x80000000;
  }
  // hi < 2^31: hi * 2^32 is exact and adding lo rounds once, as `sitofp i64 to double` does.
  const d = (hi * 4294967296 + lo) * PIO2_2M62;
  const r = Math.fround(d);
  return sign !== 0 ? -r : r;
}
