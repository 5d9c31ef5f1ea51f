/**
 * Differential fuzzing of the wasm GEMM kernel against the plain K-walk: a case generator with
 * edge-heavy operand distributions and a checker, shared by the CI sample
 * (`engine_fuzz_sample_test.ts`) and the long run (`tests/slow/engine/engine_fuzz_test.ts`).
 *
 * A case is a pure function of (datapaths, seed, index), so any case a run reports can be
 * rebuilt alone with {@link fuzzCase}. The operands mix, per row of A and column of B: exponents
 * around the fast path's tame range and its edges (A rows below -67, the top of the range),
 * subnormals, NaN and infinities, zeros and whole zero blocks of K, accumulator starting values
 * (zeros, specials, subnormals, values near the block sums), odd M, partial 8-column panels, K
 * that is not a multiple of 512 or of the block size, and reordered K segments. Two targeted
 * modes push the block exponent E to the bounds of the proof in `wasm/assembly/walk.ts`:
 * "tiny-bound" (bf16 rows with tiny elements, E near the tiny row's bound tT + tB + 2 + F) and
 * "saturating" (equal tops, largest significands, one sign: block sums at the top of the i32
 * range, accumulators near them).
 */
import { engineSupports, type GemmEngine, type GemmPool } from "../../src/engine/mod.ts";
import {
  type Datapath,
  type KSegment,
  type KWalkGemmOperands,
  kWalkReference,
} from "../../src/hardware/mod.ts";
import { sixteenBitFp32Datapaths } from "./_engine_fixture.ts";
import {
  Draw,
  fp32At,
  FRAC_BITS,
  halfAt as pat,
  type HalfFormat as Fmt,
  halfSpecial as special,
  hex,
} from "./_differential_fuzz.ts";

/** A datapath to fuzz, with its profile label (e.g. `a100/mma-bf16-fp32`). */
export interface FuzzDatapath {
  /** `profile/datapath` id. */
  readonly label: string;
  /** The datapath. */
  readonly dp: Datapath;
}

/**
 * The operand distribution a case was drawn from: `mixed` (per-row and per-column edge
 * distributions), or one of the two targeted modes (see the module doc).
 */
export type FuzzMode = "mixed" | "tiny-bound" | "saturating";

/** One generated case: a datapath and K-walk operands. */
export interface FuzzCase {
  /** The run's seed. */
  readonly seed: number;
  /** The case's index in the run (with `seed` and the datapath list, it rebuilds the case). */
  readonly index: number;
  /** The datapath's label. */
  readonly label: string;
  /** The datapath. */
  readonly dp: Datapath;
  /** The distribution the operands were drawn from. */
  readonly mode: FuzzMode;
  /** The operands (`init` and `segments` sometimes set). */
  readonly ops: KWalkGemmOperands;
}

/** Options of {@link fuzzCase}. */
export interface FuzzOptions {
  /**
   * Shapes for a pool (M in {1, 3, 16, 17, 33, 40}, N in {9, 17, 20, 33}, K in {16, 24, 32, 48}:
   * several column chunks and row blocks per job) instead of the single-thread mix (default
   * false).
   */
  readonly poolShapes?: boolean;
  /** Probability of a targeted mode (default 0.3). */
  readonly targeted?: number;
}

/** The first output of a case where the engine and the reference differ. */
export interface FuzzMismatch {
  /** The case. */
  readonly fuzzCase: FuzzCase;
  /** Row of C. */
  readonly row: number;
  /** Column of C. */
  readonly col: number;
  /** The reference's fp32 pattern. */
  readonly want: number;
  /** The engine's fp32 pattern. */
  readonly got: number;
}

/**
 * The kernel's parameters of a datapath (input format, instruction K, block size, fraction bits,
 * alignment floor): datapaths with the same key run the same kernel code on the same data.
 *
 * @param dp a datapath
 * @returns e.g. `bf16 k=16 L=8 F=24 floor=-132`
 */
export function parameterKey(dp: Datapath): string {
  return `${dp.input.name} k=${dp.k} L=${dp.blockSize} F=${dp.fracBits} floor=${dp.alignFloor}`;
}

/**
 * The engine-supported bf16/fp16 -> fp32 datapaths of every profile in `profiles/gpu`, sorted by
 * label.
 *
 * @param options `distinct`: keep only the first datapath of each {@link parameterKey}
 * @returns the labelled datapaths
 */
export async function fuzzDatapaths(
  options: { readonly distinct?: boolean } = {},
): Promise<FuzzDatapath[]> {
  const out: FuzzDatapath[] = [];
  const seen = new Set<string>();
  for (const [label, dp] of await sixteenBitFp32Datapaths()) {
    if (!engineSupports(dp)) continue;
    const key = parameterKey(dp);
    if (options.distinct === true && seen.has(key)) continue;
    seen.add(key);
    out.push({ label, dp });
  }
  return out;
}

/** A distribution of one row of A or column of B. */
interface Dist {
  readonly center: number;
  readonly spread: number;
  /** Probabilities of a zero, a special, a tiny value, a subnormal, a large value. */
  readonly pz: number;
  readonly pspec: number;
  readonly ptiny: number;
  readonly psub: number;
  readonly pbig: number;
  /** One sign for the whole row or column, or mixed signs. */
  readonly sign: number | undefined;
}

const A_CENTERS_BF = [-67, -66, -68, -60, -51, -40, -20, 0, 10, 40, 62, 63, 64];
const B_CENTERS_BF = [-67, -66, -51, -35, -10, 0, 20, 50, 62, 63];
const CENTERS_FP = [-14, -12, -8, 0, 5, 10, 15];

function dist(r: Draw, fmt: Fmt, isA: boolean): Dist {
  const center = fmt === "bf16" ? r.pick(isA ? A_CENTERS_BF : B_CENTERS_BF) : r.pick(CENTERS_FP);
  const spread = r.pick([0, 0, 1, 2, 3, 8, 30]);
  const mode = r.next() % 6;
  return {
    center,
    spread,
    pz: r.pick([0, 0, 0.1, 0.5, 0.9, 1]),
    pspec: mode === 0 ? r.pick([0.001, 0.01, 0.05]) : 0,
    ptiny: mode === 1 || mode === 2 ? r.pick([0.01, 0.1, 0.5]) : 0,
    psub: mode === 3 ? r.pick([0.01, 0.1, 0.5]) : 0,
    pbig: mode === 4 ? r.pick([0.01, 0.1, 0.5]) : 0,
    sign: r.chance(0.3) ? r.bit() : undefined,
  };
}

function elem(r: Draw, fmt: Fmt, d: Dist): number {
  const bf = fmt === "bf16";
  let u = r.next() / 2 ** 32;
  if ((u -= d.pz) < 0) return r.chance(0.5) ? 0 : 0x8000;
  if ((u -= d.pspec) < 0) return special(r, fmt);
  if ((u -= d.ptiny) < 0) return pat(r, fmt, bf ? r.int(-133, -68) : r.int(-24, -15), d.sign);
  if ((u -= d.psub) < 0) return pat(r, fmt, bf ? r.int(-133, -127) : r.int(-24, -15), d.sign);
  if ((u -= d.pbig) < 0) return pat(r, fmt, bf ? r.int(60, 127) : r.int(12, 15), d.sign);
  return pat(r, fmt, d.center + r.int(-d.spread, d.spread), d.sign);
}

const C_CENTERS = [-149, -140, -127, -126, -125, -110, -103, -102, -101, -60, -30, 0, 20, 60, 100];
const C_SPECIALS = [0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001];

/** Accumulator starting values, or none (+0 everywhere). */
function initC(r: Draw, m: number, n: number): Uint32Array | undefined {
  const mode = r.next() % 9;
  if (mode === 0) return undefined;
  const c = new Uint32Array(m * n);
  const center = r.pick([...C_CENTERS, 126, 127]);
  for (let i = 0; i < c.length; i++) {
    const u = r.next() % 10;
    if (mode === 1) c[i] = r.chance(0.5) ? 0 : 0x80000000;
    else if (mode === 2 && u === 0) c[i] = r.pick(C_SPECIALS);
    else if (mode === 3) c[i] = fp32At(r, r.int(-149, -120));
    else if (u < 2) c[i] = r.chance(0.5) ? 0 : 0x80000000;
    else c[i] = fp32At(r, center + r.int(-3, 3));
  }
  return c;
}

/**
 * "tiny-bound" (bf16): rows mixing tiny elements at tT (below -67) with elements at tA = tT + F
 * + d, d in [-1, 3], and columns at tB, so that E = tA + tB sits at the tiny row's bound
 * tT + tB + 2 + F and around it. tT is drawn where tA stays in the tame range [-67, 63] (the
 * first, one-off fuzzer drew tT in [-110, -68] or -126 and fell back to the mixed operands when
 * tA left the range: the same cases, less often, and -126 never fit).
 */
function tinyBound(r: Draw, dp: Datapath, a: Uint16Array, b: Uint16Array): void {
  const F = dp.fracBits;
  const d = r.int(-1, 3);
  const tT = r.int(Math.max(-110, -67 - F - d), -68);
  const tA = tT + F + d;
  const tB = r.int(-67, Math.min(63, 126 - tA));
  for (let i = 0; i < a.length; i++) {
    const u = r.next() % 10;
    a[i] = u < 3
      ? pat(r, "bf16", tT - (r.chance(0.2) ? 1 : 0)) | 0x7f
      : u < 4
      ? 0
      : pat(r, "bf16", tA - (r.chance(0.5) ? 0 : r.int(0, 2)));
  }
  for (let i = 0; i < b.length; i++) {
    b[i] = r.chance(0.1) ? 0 : pat(r, "bf16", tB - (r.chance(0.8) ? 0 : 1)) |
      (r.chance(0.7) ? 0x7f : 0);
  }
}

/**
 * "saturating": every element at one top t with (mostly) the largest significand, A of one sign
 * and B mostly positive, accumulators of that sign near the block sums.
 */
function saturating(
  r: Draw,
  fmt: Fmt,
  a: Uint16Array,
  b: Uint16Array,
  m: number,
  n: number,
): Uint32Array {
  const mx = (1 << FRAC_BITS[fmt]) - 1;
  const t = fmt === "bf16" ? r.int(-60, 60) : r.int(-14, 7);
  const sg = r.bit();
  for (let i = 0; i < a.length; i++) a[i] = pat(r, fmt, t, sg) | (r.chance(0.9) ? mx : 0);
  for (let i = 0; i < b.length; i++) {
    b[i] = pat(r, fmt, t, r.chance(0.95) ? 0 : 1) | (r.chance(0.9) ? mx : 0);
  }
  const c = new Uint32Array(m * n);
  for (let i = 0; i < c.length; i++) {
    const field = Math.max(1, Math.min(254, 2 * t + r.int(-3, 2) + 127));
    const frac = r.chance(0.7) ? 0x7fffff : r.next() & 0x7fffff;
    c[i] = r.chance(0.2) ? 0 : ((sg << 31) | (field << 23) | frac) >>> 0;
  }
  return c;
}

/**
 * Builds case `index` of the run `seed`: datapath `index % datapaths.length`, then shapes and
 * operands from a generator seeded with (seed, index).
 *
 * @param datapaths the datapaths to cycle through (e.g. from {@link fuzzDatapaths})
 * @param seed the run's seed
 * @param index the case's index
 * @param options shapes and targeted-mode probability
 * @returns the case
 */
export function fuzzCase(
  datapaths: readonly FuzzDatapath[],
  seed: number,
  index: number,
  options: FuzzOptions = {},
): FuzzCase {
  const { label, dp } = datapaths[index % datapaths.length] as FuzzDatapath;
  const fmt: Fmt = dp.input.name === "bf16" ? "bf16" : "fp16";
  const r = new Draw(seed, index);
  const shape = r.next() % 10;
  let m = r.pick([1, 1, 2, 2, 3, 4, 5]);
  let n = r.pick([1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24]);
  let k = r.pick([1, 2, 3, 4, 7, 8, 12, 15, 16, 17, 24, 31, 32, 33, 48, 64, 100]);
  if (shape === 0) [m, n, k] = [r.int(1, 2), r.int(1, 9), r.pick([496, 512, 520, 528, 1040])];
  if (shape === 1) [m, n, k] = [r.pick([17, 18, 33, 35]), r.int(1, 9), r.pick([16, 32, 40])];
  if (options.poolShapes === true) {
    [m, n, k] = [r.pick([1, 3, 16, 17, 33, 40]), r.pick([9, 17, 20, 33]), r.pick([16, 24, 32, 48])];
  }
  const a = new Uint16Array(m * k);
  const b = new Uint16Array(n * k);
  const rowD = Array.from({ length: m }, () => r.chance(0.5) ? null : dist(r, fmt, true));
  const colD = Array.from({ length: n }, () => r.chance(0.5) ? null : dist(r, fmt, false));
  const dA = dist(r, fmt, true);
  const dB = dist(r, fmt, false);
  const zeroBlocks = r.chance(0.2); // every other block of 8 in K zero in every row of A
  for (let i = 0; i < m; i++) {
    for (let kk = 0; kk < k; kk++) {
      a[i * k + kk] = elem(r, fmt, rowD[i] ?? dA);
      if (zeroBlocks && ((kk >> 3) & 1) === 0) a[i * k + kk] = r.chance(0.5) ? 0 : 0x8000;
    }
  }
  for (let j = 0; j < n; j++) {
    for (let kk = 0; kk < k; kk++) b[j * k + kk] = elem(r, fmt, colD[j] ?? dB);
  }
  let init = initC(r, m, n);
  let mode: FuzzMode = "mixed";
  if (r.chance(options.targeted ?? 0.3)) {
    if (r.next() % 2 === 0 && fmt === "bf16") {
      mode = "tiny-bound";
      tinyBound(r, dp, a, b);
      init = r.chance(0.5) ? undefined : initC(r, m, n);
    } else {
      mode = "saturating";
      init = saturating(r, fmt, a, b, m, n);
    }
  }
  let segments: KSegment[] | undefined;
  if (r.chance(0.1) && k >= 4) {
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

/**
 * Cases `start` to `start + count - 1` of the run `seed` (see {@link fuzzCase}).
 *
 * @param datapaths the datapaths to cycle through
 * @param seed the run's seed
 * @param count how many cases
 * @param options shapes and targeted-mode probability, and `start` (default 0)
 * @returns the cases, built one at a time
 */
export function* fuzzCases(
  datapaths: readonly FuzzDatapath[],
  seed: number,
  count: number,
  options: FuzzOptions & { readonly start?: number } = {},
): Generator<FuzzCase> {
  const start = options.start ?? 0;
  for (let i = start; i < start + count; i++) yield fuzzCase(datapaths, seed, i, options);
}

/**
 * Runs a case on the engine (one thread) or a pool and on `kWalkReference`.
 *
 * @param runner the engine or a pool
 * @param c the case
 * @returns null when every output has the reference's bits, else the first that differs
 */
export async function checkCase(
  runner: GemmEngine | GemmPool,
  c: FuzzCase,
): Promise<FuzzMismatch | null> {
  const want = kWalkReference(c.dp, c.ops);
  const got = "supports" in runner ? runner.kWalk(c.dp, c.ops) : await runner.kWalk(c.dp, c.ops);
  const i = want.findIndex((w, idx) => w !== got[idx]);
  if (i < 0) return null;
  const n = c.ops.n;
  return { fuzzCase: c, row: Math.floor(i / n), col: i % n, want: want[i] ?? 0, got: got[i] ?? 0 };
}

/**
 * One line naming a mismatch: the case (seed, index, datapath, mode, shape, K segments), the
 * output, the patterns wanted and got, the accumulator's start, and the output's A row and B
 * column when K is at most 32.
 *
 * @param x a mismatch from {@link checkCase}
 * @returns the description
 */
export function describeMismatch(x: FuzzMismatch): string {
  const { seed, index, label, mode, ops } = x.fuzzCase;
  const { m, n, k } = ops;
  const at = x.row * n + x.col;
  const parts = [
    `seed ${seed} case ${index} ${label} (${parameterKey(x.fuzzCase.dp)}) ${mode}`,
    `m=${m} n=${n} k=${k}${
      ops.segments === undefined ? "" : ` segments=${JSON.stringify(ops.segments)}`
    }`,
    `C[${x.row}][${x.col}] want ${hex(x.want, 8)} got ${hex(x.got, 8)}`,
    `init ${ops.init === undefined ? "+0" : hex(ops.init[at] ?? 0, 8)}`,
  ];
  if (k <= 32) {
    const row = (v: Uint16Array, r: number) =>
      Array.from(v.subarray(r * k, r * k + k), (p) => p.toString(16).padStart(4, "0")).join(",");
    parts.push(`a[${x.row}]=${row(ops.a, x.row)}`, `b[${x.col}]=${row(ops.b, x.col)}`);
  }
  return parts.join("; ");
}
