/**
 * Independent BigInt references for the SFU tests: exact rational rounding for 1/x, integer
 * square roots for 1/sqrt(x), and a square-root-product 2^f for 2^x. None of them shares code or
 * method with src/hardware/sfu.
 *
 * @module
 */
import { TESLA_TABLE_URL } from "./_tesla_sfu.ts";

/** Loads the committed table asset (tests only; the model itself never reads files). */
export function readTeslaTableBytes(): Uint8Array {
  return Deno.readFileSync(TESLA_TABLE_URL);
}

/** Exact value of a finite non-zero FP32 pattern as `sig · 2^exp` (sig a positive BigInt). */
export function fp32Parts(x: number): { neg: boolean; sig: bigint; exp: number } {
  const e = (x >>> 23) & 0xff;
  const m = x & 0x7fffff;
  const sig = BigInt(e === 0 ? m : m | 0x800000);
  return { neg: (x & 0x80000000) !== 0, sig, exp: (e === 0 ? 1 : e) - 150 };
}

/** Integer square root (floor) of a non-negative BigInt, by Newton's method. */
export function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt((n.toString(2).length >> 1) + 1);
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/**
 * Rounds a positive real to FP32 (nearest-even, subnormals, overflow to Inf), given `floor2(t)`:
 * a function returning ⌊2·v·2^t⌋ for any integer t, and whether 2·v·2^t is an exact integer.
 */
function _roundPositive(floor2: (t: number) => [bigint, boolean]): number {
  let t = 0;
  // Find t with 2^24 <= floor(2·v·2^t) < 2^25 (v·2^t in [2^23, 2^24)), or stop at the subnormal grid.
  for (;;) {
    const [f2] = floor2(t);
    if (f2 >= 1n << 25n) t -= 1;
    else if (f2 < 1n << 24n && t < 149) t += 1;
    else break;
  }
  const exp = 23 - t; // v in [2^exp, 2^(exp+1)) when normal
  const [f2, exact] = floor2(t);
  let q = (f2 + 1n) >> 1n; // round half up ...
  if (exact && (f2 & 1n) === 1n && (q & 1n) === 1n) q -= 1n; // ... except exact ties go to even
  if (exp > 127) return 0x7f800000;
  if (t === 149 && q < 1n << 23n) return Number(q); // subnormal (or zero)
  const bits = ((exp + 127) << 23) + Number(q) - 0x800000;
  return bits >= 0x7f800000 ? 0x7f800000 : bits;
}

/** Correctly rounded 1/x for a finite non-zero FP32 pattern. */
export function refRcp(x: number): number {
  const { neg, sig, exp } = fp32Parts(x);
  // 1/x = 2^-exp / sig; 2·v·2^t = 2^(1 + t - exp) / sig.
  const r = _roundPositive((t) => {
    const k = 1 + t - exp;
    const num = k >= 0 ? 1n << BigInt(k) : 1n;
    const den = k >= 0 ? sig : sig << BigInt(-k);
    return [num / den, num % den === 0n];
  });
  return (neg ? 0x80000000 | r : r) >>> 0;
}

/** Correctly rounded 1/sqrt(x) for a finite positive FP32 pattern. */
export function refRsqrt(x: number): number {
  const { sig, exp } = fp32Parts(x);
  // 2·v·2^t = sqrt(2^(2 + 2t - exp) / sig) = sqrt(A/B); floor = isqrt(floor(A/B)).
  return _roundPositive((t) => {
    const k = 2 + 2 * t - exp;
    const a = k >= 0 ? 1n << BigInt(k) : 1n;
    const b = k >= 0 ? sig : sig << BigInt(-k);
    const r = isqrt(a / b);
    return [r, r * r * b === a];
  });
}

const _W = 320n;
const _roots: bigint[] = [2n << _W]; // _roots[j] ≈ 2^(2^-j) · 2^W, each within a few units

function _root(j: number): bigint {
  while (_roots.length <= j) {
    _roots.push(isqrt((_roots[_roots.length - 1] as bigint) << _W));
  }
  return _roots[j] as bigint;
}

/**
 * Correctly rounded 2^x for a finite FP32 pattern with |x| < 128 and x not an integer (subnormal
 * results included): 2^f as the product of 2^(2^-j) over the set bits of f (320-bit square roots,
 * relative error below 2^-300); throws if that is not enough to decide (never observed).
 */
export function refEx2(x: number): number {
  const { neg, sig, exp } = fp32Parts(x);
  const den = BigInt(-exp);
  const s = neg ? -sig : sig;
  const n = s >> den; // floor
  const f = s - (n << den);
  if (den <= 0n || f === 0n) throw new RangeError("refEx2 needs a non-integer x");
  let v = 1n << _W;
  for (let j = 1n; j <= den; j++) {
    if ((f >> (den - j)) & 1n) v = (v * _root(Number(j))) >> _W;
  }
  // 2·2^x·2^t = v·2^(1 + n + t - W); 2^x is irrational, so never an exact integer.
  return _roundPositive((t) => {
    const k = 1n + n + BigInt(t) - _W;
    const lo = k >= 0n ? (v - 1000n) << k : (v - 1000n) >> -k;
    const hi = k >= 0n ? (v + 1000n) << k : (v + 1000n) >> -k;
    if (lo !== hi) throw new Error(`reference undecided for 0x${x.toString(16)}`);
    return [lo, false];
  });
}

/**
 * Correctly rounded log2(x) for a finite positive FP32 pattern that is not a power of two, by
 * the binary digit method: m in [1, 2) is squared 100 times at 400 bits, each square ≥ 2 giving
 * a digit 1 (and a halving), so log2 m lies in [0.b1…b100, 0.b1…b100 + 2^-100] up to a relative
 * error near 2^-300; both ends must round alike, or it throws. Shares nothing with `log2Fixed`.
 */
export function refLg2(x: number): number {
  const { sig, exp } = fp32Parts(x);
  const len = sig.toString(2).length;
  const n = BigInt(exp + len - 1); // x = m · 2^n, m = sig / 2^(len-1)
  const P = 400n, K = 100n;
  let m = sig << (P - BigInt(len - 1));
  let digits = 0n;
  for (let i = 0n; i < K; i++) {
    m = (m * m) >> P;
    digits <<= 1n;
    if (m >= 2n << P) {
      m >>= 1n;
      digits |= 1n;
    }
  }
  const ends = [(n << K) + digits, (n << K) + digits + 1n].map((y) => {
    const a = y < 0n ? -y : y;
    const r = _roundPositive((t) => {
      const k = BigInt(t) + 1n - K;
      return [k >= 0n ? a << k : a >> -k, false];
    });
    return (y < 0n ? 0x80000000 | r : r) >>> 0;
  });
  if (ends[0] !== ends[1]) throw new Error(`reference undecided for 0x${x.toString(16)}`);
  return ends[0] as number;
}
