/**
 * Test-only reference scalar operations for any format, independent of `src/numerics`: operands
 * are decoded by the reference decoder into BigInt dyadics, combined exactly, and rounded by the
 * reference grid search (`refRound`). Division and square root carry 80 extra quotient bits and
 * the remainder as a sticky bit.
 *
 * @module
 */
import { type Dyadic, dyadic } from "./_dyadic.ts";
import { refDecode, refRound, type RefRoundOptions, type RefValue } from "./_exact_reference.ts";
import { allOnesNanPattern, indexPattern, infPattern, type RefFormat } from "./_ref_formats.ts";

/** Options of the reference operations (same meaning as `ScalarOptions`). */
export interface RefOpOptions extends RefRoundOptions {
  /** Read subnormal operands as signed zeros. */
  readonly daz?: boolean;
  /** The NaN pattern every NaN result takes. */
  readonly nan: number;
}

type Finite = { sign: 0 | 1; mag: Dyadic };

function operand(f: RefFormat, bits: number, o: RefOpOptions): RefValue {
  const v = refDecode(f, bits);
  if (v.kind === "finite" && v.sub && o.daz === true) {
    return { kind: "finite", sign: v.sign, mag: dyadic(0, 0), sub: false };
  }
  return v;
}

/** An infinite result: e4m3 has none and gives its signed NaN, as the reference's overflow does. */
function inf(f: RefFormat, sign: 0 | 1, _o: RefOpOptions): number {
  return f.e4m3fn ? allOnesNanPattern(f, sign) : infPattern(f, sign);
}

/** Signed exact sum; a zero result takes IEEE 754 §6.3's sign. */
function sum(f: RefFormat, x: Finite, y: Finite, o: RefOpOptions): number {
  const e = Math.min(x.mag.exp, y.mag.exp);
  const sx = (x.sign ? -x.mag.num : x.mag.num) << BigInt(x.mag.exp - e);
  const sy = (y.sign ? -y.mag.num : y.mag.num) << BigInt(y.mag.exp - e);
  const s = sx + sy;
  if (s === 0n) {
    const bothZero = x.mag.num === 0n && y.mag.num === 0n;
    const sign = bothZero && x.sign === y.sign ? x.sign : o.mode === "rd" ? 1 : 0;
    return indexPattern(f, sign, 0);
  }
  const sign = s < 0n ? 1 : 0;
  return refRound(f, sign, { num: sign ? -s : s, exp: e }, o);
}

/** Reference `a + b`. */
export function refAddOp(f: RefFormat, a: number, b: number, o: RefOpOptions): number {
  const x = operand(f, a, o), y = operand(f, b, o);
  if (x.kind === "nan" || y.kind === "nan") return o.nan;
  if (x.kind === "inf" || y.kind === "inf") {
    if (x.kind === "inf" && y.kind === "inf" && x.sign !== y.sign) return o.nan;
    return inf(f, x.kind === "inf" ? x.sign : y.sign, o);
  }
  return sum(f, x, y, o);
}

/** Reference `a * b`. */
export function refMulOp(f: RefFormat, a: number, b: number, o: RefOpOptions): number {
  const x = operand(f, a, o), y = operand(f, b, o);
  if (x.kind === "nan" || y.kind === "nan") return o.nan;
  const sign = (x.sign ^ y.sign) as 0 | 1;
  const zero = (v: RefValue) => v.kind === "finite" && v.mag.num === 0n;
  if (x.kind === "inf" || y.kind === "inf") return zero(x) || zero(y) ? o.nan : inf(f, sign, o);
  if (zero(x) || zero(y)) return indexPattern(f, sign, 0);
  const mag = { num: x.mag.num * y.mag.num, exp: x.mag.exp + y.mag.exp };
  return refRound(f, sign, mag, o);
}

/** Reference `a * b + c` with one rounding. */
export function refFmaOp(f: RefFormat, t: readonly number[], o: RefOpOptions): number {
  const [x, y, z] = t.map((b) => operand(f, b, o)) as [RefValue, RefValue, RefValue];
  if (x.kind === "nan" || y.kind === "nan" || z.kind === "nan") return o.nan;
  const sign = (x.sign ^ y.sign) as 0 | 1;
  const zero = (v: RefValue) => v.kind === "finite" && v.mag.num === 0n;
  const pInf = x.kind === "inf" || y.kind === "inf";
  if (pInf && (zero(x) || zero(y))) return o.nan;
  if (pInf || z.kind === "inf") {
    if (pInf && z.kind === "inf" && z.sign !== sign) return o.nan;
    return inf(f, pInf ? sign : z.sign, o);
  }
  if (x.kind !== "finite" || y.kind !== "finite") throw new Error("unreachable");
  const p = { sign, mag: { num: x.mag.num * y.mag.num, exp: x.mag.exp + y.mag.exp } };
  return sum(f, p, z, o);
}

/** Reference `a / b`. */
export function refDivOp(f: RefFormat, a: number, b: number, o: RefOpOptions): number {
  const x = operand(f, a, o), y = operand(f, b, o);
  if (x.kind === "nan" || y.kind === "nan") return o.nan;
  const sign = (x.sign ^ y.sign) as 0 | 1;
  const zero = (v: RefValue) => v.kind === "finite" && v.mag.num === 0n;
  if ((x.kind === "inf" && y.kind === "inf") || (zero(x) && zero(y))) return o.nan;
  if (x.kind === "inf" || zero(y)) return inf(f, sign, o);
  if (y.kind === "inf" || zero(x)) return indexPattern(f, sign, 0);
  if (x.kind !== "finite" || y.kind !== "finite") throw new Error("unreachable");
  const n = x.mag.num << 80n;
  const q = n / y.mag.num;
  const mag = { num: q, exp: x.mag.exp - y.mag.exp - 80 };
  return refRound(f, sign, mag, { ...o, sticky: n % y.mag.num !== 0n });
}

/** Reference `sqrt(a)`. */
export function refSqrtOp(f: RefFormat, a: number, o: RefOpOptions): number {
  const x = operand(f, a, o);
  if (x.kind === "nan") return o.nan;
  if (x.kind === "finite" && x.mag.num === 0n) return indexPattern(f, x.sign, 0);
  if (x.sign === 1) return o.nan;
  if (x.kind === "inf") return inf(f, 0, o);
  let e = x.mag.exp - 100;
  let n = x.mag.num << 100n;
  if ((e & 1) !== 0) {
    n <<= 1n;
    e -= 1;
  }
  let r = BigInt(Math.floor(Math.sqrt(Number(n))));
  while (r * r > n) r -= 1n;
  while ((r + 1n) * (r + 1n) <= n) r += 1n;
  return refRound(f, 0, { num: r, exp: e / 2 }, { ...o, sticky: r * r !== n });
}
