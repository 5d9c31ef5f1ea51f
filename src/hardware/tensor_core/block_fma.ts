/**
 * The fused dot-add ("block FMA") of NVIDIA tensor cores, bit-exact reference implementation.
 *
 * Algorithm (Khattak & Mikaitis, arXiv:2512.07004 §IV and their MATLAB model's global-alignment
 * path; MMA-Sim arXiv:2511.10909 "T-FDPA"; restated in our spec `tensor_core_khattak_mikaitis.md`
 * §5-§6):
 * 1. Each product a_k*b_k with both factors non-zero is formed exactly and left unnormalised: its
 *    alignment exponent is e(a) + e(b) (subnormal factors pinned at the input format's emin) and
 *    its significand lies in [0, 4).
 * 2. C, if non-zero, is an addend with its own fp32 exponent (an fp16 C is widened to fp32 first,
 *    so an fp16 subnormal keeps its true exponent).
 * 3. E = max over the addends' exponents, then max with the datapath's `alignFloor`.
 * 4. Every addend's magnitude is truncated to the grid 2^(E - F) (no guard, round or sticky bit);
 *    signs are applied afterwards and the integers are summed exactly.
 * 5. The exact sum is rounded once to the result grid (round-toward-zero for fp32 outputs,
 *    nearest-even for fp16) with gradual underflow; an exact zero sum is +0, a negative sum that
 *    rounds to zero is -0, and overflow gives infinity whatever the rounding direction.
 * Special values follow the MATLAB model's pre-check: NaN in, Inf*0 or both infinities give NaN
 * (NVIDIA canonical NaN), otherwise an infinite product or C gives that infinity.
 *
 * Host arithmetic: every addend magnitude is an integer below 2^(F+2) <= 2^27 and at most 33 are
 * summed, so all integers stay below 2^33 and every number operation here is exact.
 *
 * @module
 */
import { decode, FP32, packInfinity, roundPack } from "../../numerics/mod.ts";
import type { Decoded } from "../../numerics/mod.ts";
import type { Datapath } from "./datapath.ts";

/** Operands of one fused block. */
export interface BlockOperands {
  /** Accumulator pattern in `dp.output`. */
  readonly c: number;
  /** A operands as `dp.input` patterns (length at most `dp.blockSize`). */
  readonly a: ArrayLike<number>;
  /** B operands as `dp.input` patterns (same length as `a`). */
  readonly b: ArrayLike<number>;
}

/**
 * Runs one fused block: d = c + sum(a_k * b_k) with the datapath's alignment and rounding.
 *
 * @param dp datapath parameters (from a GPU profile)
 * @param operands accumulator and operand patterns
 * @returns the result pattern in `dp.output`'s container, on `dp.resultFormat`'s grid
 * @throws {RangeError} when more than `dp.blockSize` products are given or lengths differ
 * @example
 * ```ts
 * import { blockFma } from "./block_fma.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const a100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * // Spec vector T2: 1.5*1.5 stays unnormalised (2.25, two integer bits), so 2^-23 + 2*2^-24
 * // survive alignment on the 2^-24 grid and the result is 2.25 + 2^-22.
 * const one = 0x3f80;
 * const d = blockFma(a100, { c: 0, a: [0x3fc0, 0x3400, 0x3380, 0x3380], b: [0x3fc0, one, one, one] });
 * if (d !== 0x40100001) throw new Error(d.toString(16));
 * ```
 */
export function blockFma(dp: Datapath, operands: BlockOperands): number {
  const { a, b } = operands;
  if (a.length !== b.length || a.length > dp.blockSize) {
    throw new RangeError(
      `Cannot run block FMA: expected equal operand lengths of at most ${dp.blockSize}, got ${a.length} and ${b.length}`,
    );
  }
  const c = decode(FP32, _widen(dp, operands.c));
  const da: Decoded[] = [];
  const db: Decoded[] = [];
  for (let k = 0; k < a.length; k++) {
    da.push(decode(dp.input, a[k] as number));
    db.push(decode(dp.input, b[k] as number));
  }
  const special = _specialResult(dp, c, da, db);
  if (special !== undefined) return special;
  return _fusedSum(dp, c, da, db);
}

function _widen(dp: Datapath, c: number): number {
  if (dp.output === FP32) return c;
  const d = decode(dp.output, c);
  if (d.kind === "finite") return roundPack(FP32, d);
  if (d.kind === "zero") return d.sign ? 0x80000000 : 0;
  if (d.kind === "inf") return packInfinity(FP32, d.sign);
  return FP32.canonicalNan;
}

function _specialResult(
  dp: Datapath,
  c: Decoded,
  da: Decoded[],
  db: Decoded[],
): number | undefined {
  let nan = c.kind === "nan";
  let posInf = c.kind === "inf" && c.sign === 0;
  let negInf = c.kind === "inf" && c.sign === 1;
  for (let k = 0; k < da.length; k++) {
    const x = da[k] as Decoded;
    const y = db[k] as Decoded;
    if (x.kind === "nan" || y.kind === "nan") nan = true;
    else if (x.kind === "inf" || y.kind === "inf") {
      if (x.kind === "zero" || y.kind === "zero") nan = true;
      else if ((x.sign ^ y.sign) === 0) posInf = true;
      else negInf = true;
    }
  }
  if (nan || (posInf && negInf)) return dp.output.canonicalNan;
  if (posInf) return packInfinity(dp.output, 0);
  if (negInf) return packInfinity(dp.output, 1);
  return undefined;
}

function _fusedSum(dp: Datapath, c: Decoded, da: Decoded[], db: Decoded[]): number {
  const signs: number[] = [];
  const mags: number[] = [];
  const lsbs: number[] = [];
  let emax = -Infinity;
  const fin = dp.input.fracBits;
  for (let k = 0; k < da.length; k++) {
    const x = da[k] as Decoded;
    const y = db[k] as Decoded;
    if (x.kind !== "finite" || y.kind !== "finite") continue; // zero products take no part
    signs.push(x.sign ^ y.sign);
    mags.push(x.significand * y.significand); // < 2^22: exact
    lsbs.push(x.exponent + y.exponent);
    emax = Math.max(emax, x.exponent + y.exponent + 2 * fin);
  }
  if (c.kind === "finite") {
    signs.push(c.sign);
    mags.push(c.significand);
    lsbs.push(c.exponent);
    emax = Math.max(emax, c.exponent + FP32.fracBits);
  }
  if (mags.length === 0) return 0; // no addends: +0
  const e = dp.alignFloor === null ? emax : Math.max(emax, dp.alignFloor);
  const gridLsb = e - dp.fracBits;
  let sum = 0;
  for (let i = 0; i < mags.length; i++) {
    const shift = (lsbs[i] as number) - gridLsb;
    const m = mags[i] as number;
    const aligned = shift >= 0 ? m * 2 ** shift : shift < -60 ? 0 : Math.floor(m / 2 ** -shift);
    sum += signs[i] ? -aligned : aligned;
  }
  if (sum === 0) return 0; // exact cancellation: +0
  return roundPack(
    dp.resultFormat,
    { sign: sum < 0 ? 1 : 0, significand: Math.abs(sum), exponent: gridLsb },
    { mode: dp.rounding, overflow: "infinity" },
  );
}
