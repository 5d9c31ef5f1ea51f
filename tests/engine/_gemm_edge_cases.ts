/**
 * GEMM cases at the edges the kernel's fast path must get right, for the differential fuzz of
 * `gemm_differential_fuzz_test.ts` (besides the mixed, tiny-bound and saturating cases of
 * `_engine_fuzz.ts`):
 *
 * - "classes": each row of A and column of B draws its elements from its own weighted mix of
 *   zeros, subnormals, tiny values (below the tame range), values at both edges of the tame range,
 *   values around a centre, huge values, the largest finite value and infinities or NaNs, with
 *   whole zero blocks of K in some rows;
 * - "softmax-p": A as FA2's P rows (non-negative, at most 1, zero past a causal limit, tiny where
 *   one key dominates) against V-like columns;
 * - "cancel": products in pairs x·y and -x·y (or x·y twice), so that block sums cancel exactly;
 * - "bound": block exponents E = top(a) + top(b) at the fixed-point bound F - 126 and at the top
 *   of the FP32 range;
 * - "floor" (bf16 datapaths with an alignment floor): every product and the accumulator below the
 *   floor, mixed signs, so that the floor sets the grid and the sum rounds into FP32 subnormals;
 * - "overflow": products and accumulators near 2^127, so that sums cross 2^128 or cancel.
 *
 * Shapes: the small mix, and now and then N across the 256-column chunk, K around 512 and 1024
 * (several passes of the kernel's K loop) and M across the 16-row blocks.
 */
import type { Datapath, KSegment, KWalkGemmOperands } from "../../src/hardware/mod.ts";
import {
  Draw,
  fp32At,
  FRAC_BITS,
  halfAt,
  type HalfFormat,
  halfSpecial,
} from "./_differential_fuzz.ts";
import type { FuzzDatapath } from "./_engine_fuzz.ts";

/** The operand distribution of a case (see the module doc). */
export type EdgeMode = "classes" | "softmax-p" | "cancel" | "bound" | "floor" | "overflow";

/**
 * The modes a datapath gets: all but "floor" where no product can fall below the alignment floor
 * (fp16 inputs: a product's leading bit is at least 2^-48) or there is none.
 *
 * @param dp the datapath
 * @returns its modes
 */
export function edgeModes(dp: Datapath): readonly EdgeMode[] {
  const floor = dp.input.name === "bf16" && dp.alignFloor !== null;
  return [
    "classes",
    "softmax-p",
    "cancel",
    "bound",
    ...(floor ? ["floor" as const] : []),
    "overflow",
  ];
}

/** One case: where it comes from, its datapath and its operands. */
export interface EdgeCase {
  /** The run's seed. */
  readonly seed: number;
  /** The case's index in the run. */
  readonly index: number;
  /** The datapath's `profile/datapath` label. */
  readonly label: string;
  /** The datapath. */
  readonly dp: Datapath;
  /** The operand distribution. */
  readonly mode: EdgeMode;
  /** The operands (`init` and `segments` sometimes set). */
  readonly ops: KWalkGemmOperands;
}

/** Element classes of the "classes" mode, in the order of a row's weights. */
const CLASSES = ["zero", "sub", "tiny", "edgeLo", "mid", "edgeHi", "huge", "max", "special"];

/** A row's (or column's) class weights, centre, spread and sign (undefined: mixed signs). */
interface RowMix {
  readonly weights: number[];
  readonly center: number;
  readonly spread: number;
  readonly sign: number | undefined;
}

/** Draws a row's mix: one to four classes with weights, mostly values around a centre. */
function rowMix(r: Draw, fmt: HalfFormat): RowMix {
  const weights = CLASSES.map(() => 0);
  for (let i = r.int(1, 4); i > 0; i--) {
    weights[r.next() % CLASSES.length]! += r.pick([1, 2, 5, 20]);
  }
  weights[4]! += r.pick([0, 5, 30]);
  if (r.chance(0.7)) weights[8] = 0; // infinities and NaNs in a third of the rows at most
  if (!weights.some((w) => w > 0)) weights[4] = 1;
  const center = fmt === "bf16"
    ? r.pick([-67, -66, -60, -50, -35, -20, -5, 0, 5, 20, 40, 55, 62, 63])
    : r.pick([-14, -10, -5, 0, 5, 10, 14]);
  const sign = r.chance(0.3) ? r.bit() : undefined;
  return { weights, center, spread: r.pick([0, 0, 1, 2, 4, 10, 40]), sign };
}

/** An element of a row: a class drawn by the row's weights, then a value of that class. */
function classElement(r: Draw, fmt: HalfFormat, mix: RowMix): number {
  let u = r.next() % mix.weights.reduce((a, b) => a + b, 0);
  let cls = 0;
  while (u >= mix.weights[cls]!) u -= mix.weights[cls++]!;
  const bf = fmt === "bf16";
  const sign = mix.sign ?? r.bit();
  const emin = bf ? -126 : -14;
  switch (CLASSES[cls]) {
    case "zero":
      return r.bit() << 15;
    case "sub":
      return halfAt(r, fmt, emin - r.int(1, FRAC_BITS[fmt]), sign);
    case "tiny":
      return halfAt(r, fmt, bf ? r.int(-126, -68) : r.int(-24, -14), sign);
    case "edgeLo":
      return halfAt(r, fmt, bf ? r.int(-69, -65) : r.int(-15, -13), sign);
    case "mid":
      return halfAt(
        r,
        fmt,
        Math.max(bf ? -133 : -24, mix.center + r.int(-mix.spread, mix.spread)),
        sign,
      );
    case "edgeHi":
      return halfAt(r, fmt, bf ? r.int(61, 65) : r.int(13, 15), sign);
    case "huge":
      return halfAt(r, fmt, bf ? r.int(64, 127) : 15, sign);
    case "max":
      return (sign << 15) | (bf ? 0x7f7f : 0x7bff);
    default:
      return halfSpecial(r, fmt);
  }
}

/** The "classes" operands: a mix per row of A and per column of B, zero K blocks in some rows. */
function fillClasses(
  r: Draw,
  fmt: HalfFormat,
  dp: Datapath,
  a: Uint16Array,
  b: Uint16Array,
  k: number,
): void {
  for (let i = 0; i < a.length / k; i++) {
    const mix = rowMix(r, fmt);
    for (let kk = 0; kk < k; kk++) a[i * k + kk] = classElement(r, fmt, mix);
  }
  for (let j = 0; j < b.length / k; j++) {
    const mix = rowMix(r, fmt);
    for (let kk = 0; kk < k; kk++) b[j * k + kk] = classElement(r, fmt, mix);
  }
  if (!r.chance(0.3)) return;
  // Whole zero blocks of K in some rows (the kernel skips them; +0 and -0 both).
  const L = dp.blockSize;
  for (let i = 0; i < a.length / k; i++) {
    if (!r.chance(0.5)) continue;
    for (let k0 = 0; k0 < k; k0 += L) {
      if (!r.chance(0.5)) continue;
      for (let kk = k0; kk < Math.min(k, k0 + L); kk++) a[i * k + kk] = r.bit() << 15;
    }
  }
}

/** The "softmax-p" operands: P rows in A, V columns around one top in B. */
function fillSoftmaxP(r: Draw, fmt: HalfFormat, a: Uint16Array, b: Uint16Array, k: number): void {
  const bf = fmt === "bf16";
  for (let i = 0; i < a.length / k; i++) {
    const limit = r.int(0, k);
    const tiny = r.pick([0, 0.1, 0.5]);
    for (let kk = 0; kk < k; kk++) {
      a[i * k + kk] = kk >= limit
        ? (r.chance(0.9) ? 0 : 0x8000)
        : r.chance(tiny)
        ? halfAt(r, fmt, bf ? r.int(-133, -60) : r.int(-24, -10), 0)
        : halfAt(r, fmt, r.int(-8, 0), 0);
    }
  }
  const vTop = bf ? r.pick([-3, 0, 5, 40, 63]) : r.pick([-3, 0, 5, 14]);
  for (let i = 0; i < b.length; i++) {
    b[i] = r.chance(0.05) ? 0 : halfAt(r, fmt, vTop + r.int(-4, 2));
  }
}

/** The "cancel" operands. */
function fillCancel(r: Draw, fmt: HalfFormat, a: Uint16Array, b: Uint16Array, k: number): void {
  const bf = fmt === "bf16";
  const t = bf ? r.int(-67, 63) : r.int(-14, 15);
  // Pairs along K within each row: a = (x, -x), b = (y, y) or (y, -y).
  for (let row = 0; row < a.length; row += k) {
    for (let kk = 0; kk < k; kk += 2) {
      const x = halfAt(r, fmt, t + r.int(-3, 0));
      a[row + kk] = x;
      if (kk + 1 < k) a[row + kk + 1] = x ^ 0x8000;
    }
  }
  for (let col = 0; col < b.length; col += k) {
    for (let kk = 0; kk < k; kk += 2) {
      const y = halfAt(r, fmt, bf ? r.int(-60, 60) : r.int(-14, 15));
      b[col + kk] = y;
      if (kk + 1 < k) b[col + kk + 1] = r.chance(0.8) ? y : y ^ 0x8000;
    }
  }
}

/** The "bound" operands: tops ta and tb with ta + tb = E, some tiny bf16 elements in A. */
function fillBound(r: Draw, fmt: HalfFormat, dp: Datapath, a: Uint16Array, b: Uint16Array): void {
  const F = dp.fracBits;
  const E = r.pick([F - 127, F - 126, F - 125, F - 124, 125, 126, 127]);
  const bf = fmt === "bf16";
  const ta = bf ? Math.max(-67, Math.min(63, E - r.int(-67, 63))) : r.int(-14, 15);
  const tb = bf ? Math.max(-67, Math.min(63, E - ta)) : r.int(-14, 15);
  for (let i = 0; i < a.length; i++) {
    const u = r.next() % 10;
    a[i] = u < 2
      ? 0
      : u < 4 && bf
      ? halfAt(r, fmt, r.int(-126, -68))
      : halfAt(r, fmt, ta - r.int(0, 1));
  }
  for (let i = 0; i < b.length; i++) b[i] = r.chance(0.1) ? 0 : halfAt(r, fmt, tb - r.int(0, 1));
}

/** The "floor" operands (bf16). */
function fillFloor(r: Draw, floor: number, a: Uint16Array, b: Uint16Array): void {
  // Leading bits of the products at floor - 12 ... floor - 1 (2^-144 ... 2^-133 for a floor of
  // -132), factors in the bf16 normal range.
  const ta = r.int(-80, -66);
  for (let i = 0; i < a.length; i++) {
    a[i] = r.chance(0.1) ? 0 : halfAt(r, "bf16", ta - r.int(0, 2));
  }
  for (let i = 0; i < b.length; i++) {
    b[i] = r.chance(0.1) ? 0 : halfAt(r, "bf16", Math.max(-126, floor - ta - r.int(1, 10)));
  }
}

const C_SPECIALS = [0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fffffff];

/** Accumulator starting values around the fixed-point bounds, specials, subnormals, or none. */
function initC(r: Draw, mode: EdgeMode, size: number, F: number): Uint32Array | undefined {
  if (mode === "floor") {
    // Zeros and FP32 subnormals (all below 2^-126, most below the floor).
    return Uint32Array.from(
      { length: size },
      () => r.chance(0.3) ? 0 : fp32At(r, r.int(-149, -130)),
    );
  }
  if (mode === "overflow") {
    return Uint32Array.from(
      { length: size },
      () => r.chance(0.1) ? r.pick(C_SPECIALS) : fp32At(r, r.int(120, 127)),
    );
  }
  const kind = r.next() % 8;
  if (kind === 0) return undefined;
  const center = r.pick([
    F - 127,
    F - 126,
    F - 125,
    -126,
    -127,
    -140,
    -149,
    126,
    127,
    0,
    30,
    60,
    -60,
  ]);
  return Uint32Array.from({ length: size }, () => {
    const u = r.next() % 16;
    if (u < 2) return u === 0 ? 0x80000000 : 0;
    if (u === 2 && kind < 3) return r.pick(C_SPECIALS);
    if (u === 3) return fp32At(r, r.int(-149, -127));
    if (u === 4) return r.pick([0x7f7fffff, 0xff7fffff, 0x7f000000, 0xfeffffff]);
    return fp32At(r, center + r.int(-2, 2));
  });
}

/** M, N, K: mostly small, now and then across a column chunk, K passes or row blocks. */
function shape(r: Draw): [number, number, number] {
  const kind = r.next() % 14;
  if (kind === 0) return [r.int(1, 2), r.pick([255, 256, 257, 263]), r.int(1, 40)];
  if (kind === 1) {
    return [r.int(1, 3), r.int(1, 9), r.pick([496, 511, 512, 513, 520, 1023, 1024, 1025, 1100])];
  }
  if (kind === 2) return [r.pick([16, 17, 31, 32, 33, 47]), r.int(1, 9), r.int(1, 40)];
  return [
    r.pick([1, 1, 2, 3, 4, 5, 7, 15, 16, 17, 33]),
    r.pick([1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 31, 33]),
    r.pick([1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 100, 127]),
  ];
}

/**
 * Builds case `index` of the run `seed`: datapath `index % datapaths.length`, then the mode, the
 * shape and the operands from a generator seeded with (seed, index).
 *
 * @param datapaths the datapaths to cycle through
 * @param seed the run's seed
 * @param index the case's index
 * @returns the case
 */
export function edgeCase(
  datapaths: readonly FuzzDatapath[],
  seed: number,
  index: number,
): EdgeCase {
  const { label, dp } = datapaths[index % datapaths.length]!;
  const fmt: HalfFormat = dp.input.name === "bf16" ? "bf16" : "fp16";
  const r = new Draw(seed, index);
  const mode = r.pick(edgeModes(dp));
  const [m, n, k] = shape(r);
  const a = new Uint16Array(m * k);
  const b = new Uint16Array(n * k);
  if (mode === "classes") fillClasses(r, fmt, dp, a, b, k);
  else if (mode === "softmax-p") fillSoftmaxP(r, fmt, a, b, k);
  else if (mode === "cancel") fillCancel(r, fmt, a, b, k);
  else if (mode === "bound") fillBound(r, fmt, dp, a, b);
  else if (mode === "floor") fillFloor(r, dp.alignFloor!, a, b);
  else {
    const top = () => fmt === "bf16" ? r.int(55, 63) : r.int(12, 15);
    for (let i = 0; i < a.length; i++) a[i] = r.chance(0.2) ? 0 : halfAt(r, fmt, top());
    for (let i = 0; i < b.length; i++) b[i] = r.chance(0.2) ? 0 : halfAt(r, fmt, top());
  }
  const init = initC(r, mode, m * n, dp.fracBits);
  let segments: KSegment[] | undefined;
  if (k >= 4 && r.chance(0.1)) {
    const x = r.int(1, k - 1);
    segments = [[x, k], [0, x]];
  }
  const ops: KWalkGemmOperands = {
    a,
    b,
    m,
    n,
    k,
    ...(init === undefined ? {} : { init }),
    ...(segments === undefined ? {} : { segments }),
  };
  return { seed, index, label, dp, mode, ops };
}
