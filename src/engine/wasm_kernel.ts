/**
 * One instance of the compiled GEMM kernel (`tables/wasm/gemm_engine.wasm`, sources in `wasm/`)
 * and the host side of its memory layout. Used by the engine on the calling thread and by each
 * pool worker.
 *
 * @module
 */
import { createSfu, type Datapath, type OperandMemo } from "../hardware/mod.ts";
import type { Fa2TileSoftmaxTile } from "../kernels/mod.ts";
import { BF16 } from "../numerics/mod.ts";

/** Kernel parameters derived from a supported datapath. */
export interface KernelParams {
  /** Products per fused block (L). */
  readonly blockSize: number;
  /** Fraction bits below the alignment exponent (F). */
  readonly fracBits: number;
  /** Alignment floor; -65536 stands for none. */
  readonly floor: number;
  /** 0 = bf16, 1 = fp16. */
  readonly fmt: 0 | 1;
}

/** Columns of B packed per kernel call: bounds the module's memory whatever N is. */
export const COLUMN_CHUNK = 256;

/** One unit of a walk: the outputs in rows `[i0, i1)` and columns `[j0, j1)` of C. */
export interface WalkUnit {
  /** First row. */
  readonly i0: number;
  /** Row past the last. */
  readonly i1: number;
  /** First column. */
  readonly j0: number;
  /** Column past the last. */
  readonly j1: number;
}

/**
 * Bytes of A's decoded rows a kernel instance holds at most (raw patterns, values and exponent
 * bytes: 8 bytes a row element): taller walks go row block by row block. Each pool thread holds
 * its own copy, so this bounds a thread's memory whatever M is (a 32,768-token prefill's down
 * projection would otherwise take 32,768 x 9,728 x 8 bytes on every thread); B's panels are
 * packed again for each row block, about 1 / rows of the walk's work.
 */
export const ROW_BLOCK_BYTES = 128 * 2 ** 20;

/**
 * Rows of a walk's row block: as many as fit {@link ROW_BLOCK_BYTES} (or `bytes`) at 8 bytes a
 * row element, in whole tiles of 16 rows, at least 16.
 *
 * @param kp the walk's padded K
 * @param bytes the budget (default {@link ROW_BLOCK_BYTES})
 * @returns rows per block (a multiple of 16, >= 16)
 * @example
 * ```ts
 * import { walkRowBlock } from "./wasm_kernel.ts";
 * if (walkRowBlock(9728) !== 1712 || walkRowBlock(1024) !== 16384) throw new Error();
 * ```
 */
export function walkRowBlock(kp: number, bytes: number = ROW_BLOCK_BYTES): number {
  return Math.max(16, Math.floor(bytes / (8 * Math.max(1, kp)) / 16) * 16);
}

/**
 * Unit `u` of a walk in row blocks of `rows` rows, each over the column chunks
 * `[bounds[c], bounds[c + 1])`: row block floor(u / chunks), chunk u mod chunks (row block by
 * row block, the order in which `walkClaimed` decodes each block once); null past the last.
 *
 * @param u the unit's index
 * @param o rows of C (`m`), rows of a block and the chunk boundaries
 * @returns the unit, or null when u is past the last one
 * @example
 * ```ts
 * import { walkUnit } from "./wasm_kernel.ts";
 * const u = walkUnit(3, { m: 5, rows: 2, bounds: [0, 8, 10] });
 * if (u?.i0 !== 2 || u.i1 !== 4 || u.j0 !== 8 || u.j1 !== 10) throw new Error();
 * if (walkUnit(6, { m: 5, rows: 2, bounds: [0, 8, 10] }) !== null) throw new Error();
 * ```
 */
export function walkUnit(
  u: number,
  o: { readonly m: number; readonly rows: number; readonly bounds: ArrayLike<number> },
): WalkUnit | null {
  const chunks = o.bounds.length - 1;
  if (u >= Math.ceil(o.m / o.rows) * chunks) return null;
  const i0 = Math.floor(u / chunks) * o.rows;
  const c = u % chunks;
  return { i0, i1: Math.min(o.m, i0 + o.rows), j0: o.bounds[c]!, j1: o.bounds[c + 1]! };
}

/** A gathered walk: operands already concatenated and padded to `kp` (a multiple of dp.k). */
export interface GatheredWalk {
  /** Gathered A [m][kp]. */
  readonly a: Uint16Array;
  /** Gathered B [n][kp]. */
  readonly b: Uint16Array;
  /** Rows of A. */
  readonly m: number;
  /** Rows of B. */
  readonly n: number;
  /** Padded K length. */
  readonly kp: number;
  /** Accumulators [m][n], read and overwritten for the walked columns. */
  readonly c: Uint32Array;
}

/**
 * One FA2 tile's online softmax on flat state arrays (the kernel's `fa2SoftmaxTile`; fields as
 * `Fa2TileSoftmaxTile`), with the build's flags and the SFU: the table model's EX2 table, or the
 * `ieee` SFU (flag 16, and 32 for its FTZ flag).
 */
export interface Fa2SoftmaxTileArgs extends Fa2TileSoftmaxTile {
  /**
   * The build's flags (1 FTZ, 2 FFMA argument, 4 bare MUFU.EX2, 8 FFMA row-sum rescale) and the
   * SFU's (16 the `ieee` SFU's correctly rounded MUFU.EX2, 32 with its FTZ flag).
   */
  readonly flags: number;
  /** The table-model SFU's EX2 table (64 rows x 3 coefficients); unused with flag 16. */
  readonly ex2Table?: Int32Array | undefined;
}

/**
 * The FP32 and MUFU instruction models inside the kernel's FA2 softmax: `ieee-ex2` and
 * `ieee-ex2-approx` are MUFU.EX2 and ex2.approx.f32 on the `ieee` SFU (`ftz` its FTZ flag).
 */
export type Fa2InstructionOp =
  | "ex2"
  | "ffma"
  | "fmul"
  | "fadd"
  | "ex2-approx"
  | "ieee-ex2"
  | "ieee-ex2-approx";

/** The kernel's entry points, bound to one instance. */
export interface WasmKernel {
  /**
   * The kernel's FA2 instruction models one call at a time, for checks against the TypeScript
   * models (`mufuEx2`, `fmaF32`, `mulF32`, `addF32`, `ex2ApproxF32`, and the `ieee` SFU's `ex2`
   * bare and through `ex2ApproxF32`): sets the EX2 table, then
   * returns `(op, a, b, c, ftz) => result` on FP32 patterns (b and c unused by the EX2 forms).
   *
   * @param ex2Table the SFU's EX2 table (64 rows x 3 coefficients)
   * @throws {RangeError} when the table has the wrong length
   */
  fa2Instructions(
    ex2Table: Int32Array,
  ): (op: Fa2InstructionOp, a: number, b: number, c: number, ftz: boolean) => number;
  /**
   * One FA2 tile's online softmax with the table-model or the `ieee` SFU's MUFU.EX2 (see
   * {@link Fa2SoftmaxTileArgs}).
   *
   * @param args the tile, its state and the build
   * @throws {RangeError} when an array does not match the shape
   */
  fa2SoftmaxTile(args: Fa2SoftmaxTileArgs): void;
  /**
   * Walks the columns `[j0, j1)` of `job.c` in place, in row blocks of at most `rows` rows
   * (default {@link walkRowBlock} of the job's kp).
   *
   * @param params kernel parameters
   * @param job gathered operands and accumulators
   * @param range column range, and `rows`: the row block (>= 1)
   * @param bMemo where B's packed panels are kept for the next walk of the same B (used when
   *   the walk covers all of B in one chunk; see `KWalkGemmOperands.bMemo`)
   */
  walkColumns(
    params: KernelParams,
    job: GatheredWalk,
    range: { j0: number; j1: number; rows?: number },
    bMemo?: OperandMemo,
  ): void;
  /**
   * Walks the units of `job.c` (rows `[i0, i1)`, columns `[j0, j1)`) in place that `claim()`
   * returns, until it returns null. A row block is decoded once for the units that follow it
   * with the same rows, so claim units row block by row block. Threads sharing `job.c` can claim
   * from one atomic counter: each output is computed alone, so the bits do not depend on who
   * walks which unit, on the unit sizes or on their order.
   *
   * @param params kernel parameters
   * @param job gathered operands and accumulators
   * @param units `width` (the widest unit: a multiple of 4 in [4, 256]), `rows` (the tallest:
   *   >= 1) and `claim`
   * @throws {RangeError} when `width` or `rows` is out of range, or a unit is empty, past the
   *   matrix, or wider or taller than they allow
   */
  walkClaimed(
    params: KernelParams,
    job: GatheredWalk,
    units: { width: number; rows: number; claim: () => WalkUnit | null },
  ): void;
}

/**
 * Derives kernel parameters from a datapath the kernel supports.
 *
 * @param dp the datapath (see `engineSupports`)
 * @returns the parameters
 * @example
 * ```ts
 * import { kernelParams } from "./wasm_kernel.ts";
 * import { BF16, FP32 } from "../numerics/mod.ts";
 * const p = kernelParams({
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * });
 * if (p.fmt !== 0 || p.floor !== -132) throw new Error();
 * ```
 */
export function kernelParams(dp: Datapath): KernelParams {
  return {
    blockSize: dp.blockSize,
    fracBits: dp.fracBits,
    floor: dp.alignFloor ?? -65536,
    fmt: dp.input === BF16 ? 0 : 1,
  };
}

interface _Exports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  setWalk(l: number, f: number, floor: number, fmt: number): void;
  decodeRows(...args: number[]): void;
  packPanels(...args: number[]): void;
  walk(...args: number[]): void;
  fa2SetEx2Table(table: number): void;
  fa2SoftmaxTile(...args: number[]): void;
  fa2Instruction(op: number, a: number, b: number, c: number, ftz: number): number;
}

/**
 * Instantiates the compiled kernel module (synchronously; the module is small).
 *
 * @param module the compiled `WebAssembly.Module`
 * @returns the bound kernel
 * @throws {TypeError} when the module lacks an expected export
 * @example
 * ```ts ignore
 * const kernel = instantiateKernel(new WebAssembly.Module(bytes));
 * ```
 */
export function instantiateKernel(module: WebAssembly.Module): WasmKernel {
  // The `ieee` SFU's EX2 for the inputs the kernel's float64 step leaves undecided.
  const ieee = [createSfu({ mode: "ieee" }), createSfu({ mode: "ieee", ftz: true })] as const;
  const inst = new WebAssembly.Instance(module, {
    env: {
      abort: () => _fail("wasm abort"),
      ieeeEx2: (x: number, ftz: number) => ieee[ftz ? 1 : 0].ex2(x >>> 0),
    },
  });
  const x = inst.exports as unknown as _Exports;
  const names = [
    "memory",
    "heapBase",
    "setWalk",
    "decodeRows",
    "packPanels",
    "walk",
    "fa2SetEx2Table",
    "fa2SoftmaxTile",
    "fa2Instruction",
  ];
  for (const name of names) {
    if (!(name in x)) {
      throw new TypeError(`Cannot instantiate GEMM kernel: missing export '${name}'`);
    }
  }
  // The EX2 table the kernel holds (copied into its static memory): set again only when a caller
  // brings another one.
  const ex2: { table?: Int32Array } = {};
  return {
    fa2SoftmaxTile: (args) => _fa2SoftmaxTile(x, args, ex2),
    fa2Instructions: (ex2Table) => {
      if (ex2Table.length !== 192) {
        throw new RangeError("Cannot set the EX2 table: expected 64 rows of 3 coefficients");
      }
      _setEx2Table(x, ex2, ex2Table);
      const codes = {
        "ex2": 0,
        "ffma": 1,
        "fmul": 2,
        "fadd": 3,
        "ex2-approx": 4,
        "ieee-ex2": 5,
        "ieee-ex2-approx": 6,
      } as const;
      return (op, a, b, c, ftz) => x.fa2Instruction(codes[op], a, b, c, ftz ? 1 : 0) >>> 0;
    },
    walkColumns: (params, job, { j0, j1, rows }, bMemo) => {
      const n = Math.min(job.n, j1);
      const height = rows ?? walkRowBlock(job.kp);
      if (!(Number.isInteger(height) && height >= 1)) {
        throw new RangeError(`Cannot walk GEMM columns: rows must be >= 1, got ${height}`);
      }
      // Row block by row block, each over the columns in chunks of COLUMN_CHUNK.
      const bounds = [Math.min(j0, n)];
      while (bounds.at(-1)! < n) bounds.push(Math.min(n, bounds.at(-1)! + COLUMN_CHUNK));
      const of = { m: job.m, rows: height, bounds };
      let u = 0;
      const claim = () => walkUnit(u++, of);
      // B packed once for every walk that brings the same memo: one chunk covering all of B.
      const memo = bMemo !== undefined && j0 === 0 && n === job.n && n <= COLUMN_CHUNK
        ? bMemo
        : undefined;
      _walkUnits(x, params, job, { width: COLUMN_CHUNK, rows: height, claim }, memo);
    },
    walkClaimed: (params, job, units) => {
      const w = units.width;
      if (!Number.isInteger(w) || w < 4 || w > COLUMN_CHUNK || w % 4 !== 0) {
        throw new RangeError(`Cannot walk GEMM chunks: width must be 4..256 by 4, got ${w}`);
      }
      if (!(Number.isInteger(units.rows) && units.rows >= 1)) {
        throw new RangeError(`Cannot walk GEMM chunks: rows must be >= 1, got ${units.rows}`);
      }
      _walkUnits(x, params, job, units);
    },
  };
}

function _fail(why: string): never {
  throw new Error(`Cannot run GEMM kernel: ${why}`);
}

/**
 * Bytes of B's packed panels in the kernel's memory (wasm/assembly/operands.ts `packPanels`): f32
 * values (8 lanes x 4 bytes a k), exponent bytes (8 a k) and one tame byte a panel.
 */
function _packedPanelBytes(panels: number, kp: number): { val: number; exp: number; tame: number } {
  return { val: panels * kp * 32, exp: panels * kp * 8, tame: panels };
}

/**
 * Walks claimed units; `job.n` may stop short of C's row stride (a range ending early). The
 * memory holds one row block of A (decoded when a unit brings other rows) and one chunk of B
 * (packed when a unit brings other columns).
 */
function _walkUnits(
  x: _Exports,
  p: KernelParams,
  job: GatheredWalk,
  units: { width: number; rows: number; claim: () => WalkUnit | null },
  memo?: OperandMemo,
): void {
  const { m, kp, n } = job;
  x.setWalk(p.blockSize, p.fracBits, p.floor, p.fmt);
  let u = units.claim();
  if (m === 0 || u === null) return;
  const maxCols = units.width;
  const maxRows = Math.min(m, units.rows);
  const panels = Math.ceil(maxCols / 8); // the kernel packs B in panels of 8 columns
  const al = (v: number) => Math.ceil(v / 16) * 16;
  const aRaw = al(x.heapBase());
  const aVal = al(aRaw + maxRows * kp * 2);
  const aExp = al(aVal + maxRows * kp * 4);
  const aTame = al(aExp + maxRows * kp * 2);
  const cPtr = al(aTame + maxRows);
  const bRaw = al(cPtr + maxRows * panels * 32);
  const bVal = al(bRaw + maxCols * kp * 2);
  const packed = _packedPanelBytes(panels, kp);
  const bExp = al(bVal + packed.val);
  const bTame = al(bExp + packed.exp);
  const end = bTame + packed.tame + 16;
  const need = Math.ceil((end - x.memory.buffer.byteLength) / 65536);
  if (need > 0) x.memory.grow(need);
  const ldc = job.c.length / m; // the row stride of C: the full N
  let rows = { i0: -1, i1: -1 }; // the row block decoded in the kernel's memory
  let cols = { j0: -1, j1: -1 }; // the chunk of B packed there
  for (; u !== null; u = units.claim()) {
    const { i0, i1, j0, j1 } = u;
    const mr = i1 - i0;
    const nc = j1 - j0;
    if (
      !(Number.isInteger(i0) && Number.isInteger(j0) && i0 >= 0 && j0 >= 0 && mr >= 1 &&
        mr <= maxRows && i1 <= m && nc >= 1 && nc <= maxCols && j1 <= n)
    ) {
      throw new RangeError(
        `Cannot walk GEMM chunks: unit rows [${i0}, ${i1}) columns [${j0}, ${j1}) is empty, ` +
          "too large or past the matrix",
      );
    }
    if (i0 !== rows.i0 || i1 !== rows.i1) {
      new Uint16Array(x.memory.buffer, aRaw, mr * kp).set(job.a.subarray(i0 * kp, i1 * kp));
      x.decodeRows(aRaw, mr, kp, p.fmt, aVal, aExp, aTame);
      rows = { i0, i1 };
    }
    if (j0 !== cols.j0 || j1 !== cols.j1) {
      new Uint16Array(x.memory.buffer, bRaw, nc * kp).set(job.b.subarray(j0 * kp, j1 * kp));
      if (memo === undefined) x.packPanels(bRaw, nc, kp, p.fmt, bVal, bExp, bTame);
      else _packOnce(x, { memo, b: job.b, fmt: p.fmt, nc, kp, bRaw, bVal, bExp, bTame });
      cols = { j0, j1 };
    }
    const ldk = Math.ceil(nc / 8) * 8; // the kernel's row stride of C: whole panels
    const c = new Uint32Array(x.memory.buffer, cPtr, mr * ldk);
    const whole = nc === ldc && ldk === ldc; // the block's rows are contiguous in both layouts
    if (whole) c.set(job.c.subarray(i0 * ldc, i1 * ldc));
    else {
      if (ldk > nc) c.fill(_PAD_ONE); // lanes past the edge hold 1.0 (see the kernel's walk)
      for (let i = 0; i < mr; i++) {
        const at = (i0 + i) * ldc + j0;
        c.set(job.c.subarray(at, at + nc), i * ldk);
      }
    }
    x.walk(aRaw, aVal, aExp, aTame, mr, bRaw, bVal, bExp, bTame, nc, kp, cPtr);
    if (whole) job.c.set(c, i0 * ldc);
    else {
      for (let i = 0; i < mr; i++) {
        job.c.set(c.subarray(i * ldk, i * ldk + nc), (i0 + i) * ldc + j0);
      }
    }
  }
}

/** B's packed panels as `packPanels` leaves them, kept in a memo with what they were made from. */
interface _PackedB {
  readonly b: ArrayBufferLike;
  readonly offset: number;
  readonly fmt: number;
  readonly nc: number;
  readonly kp: number;
  readonly val: Uint8Array;
  readonly exp: Uint8Array;
  readonly tame: Uint8Array;
}

/**
 * Packs B's panels, or copies them from the memo when it holds the panels of this B (the same
 * buffer and offset, format and shape; its patterns unchanged, as the memo's owner vouches).
 */
function _packOnce(
  x: _Exports,
  o: {
    memo: OperandMemo;
    b: Uint16Array;
    fmt: number;
    nc: number;
    kp: number;
    bRaw: number;
    bVal: number;
    bExp: number;
    bTame: number;
  },
): void {
  const { memo, b, fmt, nc, kp } = o;
  const sizes = _packedPanelBytes(Math.ceil(nc / 8), kp);
  const held = memo.prepared as _PackedB | undefined;
  const buf = x.memory.buffer;
  if (
    held !== undefined && held.b === b.buffer && held.offset === b.byteOffset &&
    held.fmt === fmt && held.nc === nc && held.kp === kp
  ) {
    new Uint8Array(buf, o.bVal, sizes.val).set(held.val);
    new Uint8Array(buf, o.bExp, sizes.exp).set(held.exp);
    new Uint8Array(buf, o.bTame, sizes.tame).set(held.tame);
    return;
  }
  x.packPanels(o.bRaw, nc, kp, fmt, o.bVal, o.bExp, o.bTame);
  memo.prepared = {
    b: b.buffer,
    offset: b.byteOffset,
    fmt,
    nc,
    kp,
    val: new Uint8Array(buf, o.bVal, sizes.val).slice(),
    exp: new Uint8Array(buf, o.bExp, sizes.exp).slice(),
    tame: new Uint8Array(buf, o.bTame, sizes.tame).slice(),
  } satisfies _PackedB;
}

/** Copies an EX2 table into the kernel unless it holds that one already. */
function _setEx2Table(x: _Exports, held: { table?: Int32Array }, table: Int32Array): void {
  if (held.table === table) return;
  const at = Math.ceil(x.heapBase() / 16) * 16;
  if (at + 768 > x.memory.buffer.byteLength) x.memory.grow(1);
  new Int32Array(x.memory.buffer, at, 192).set(table);
  x.fa2SetEx2Table(at);
  held.table = table;
}

/** Lays out one tile's softmax in the kernel's memory, runs it and copies the state back. */
function _fa2SoftmaxTile(
  x: _Exports,
  a: Fa2SoftmaxTileArgs,
  held: { table?: Int32Array },
): void {
  const { rows, blockN, d } = a;
  if (
    // The kernel rescales a row of O four lanes at a time: d a multiple of 4 (FA2's 64-256).
    !(rows >= 0 && blockN >= 8 && blockN % 8 === 0 && d >= 0 && d % 4 === 0) ||
    a.scores.length !== rows * blockN || a.limits.length !== rows ||
    a.rowMax.length !== rows || a.sums.length !== rows * 4 || a.o.length !== rows * d ||
    a.pb.length !== rows * blockN ||
    ((a.flags & 16) === 0 && a.ex2Table?.length !== 192)
  ) {
    throw new RangeError("Cannot run the FA2 tile softmax: arrays do not match the tile");
  }
  const al = (v: number) => Math.ceil(v / 16) * 16;
  if ((a.flags & 16) === 0) _setEx2Table(x, held, a.ex2Table as Int32Array);
  const scores = al(x.heapBase());
  const limits = al(scores + rows * blockN * 4);
  const rowMax = al(limits + rows * 4);
  const sums = al(rowMax + rows * 4);
  const o = al(sums + rows * 16);
  const pb = al(o + rows * d * 4);
  const p = al(pb + rows * blockN * 2);
  const end = p + blockN * 4 + 16;
  const need = Math.ceil((end - x.memory.buffer.byteLength) / 65536);
  if (need > 0) x.memory.grow(need);
  const buf = x.memory.buffer;
  new Uint32Array(buf, scores, rows * blockN).set(a.scores);
  new Int32Array(buf, limits, rows).set(a.limits);
  new Uint32Array(buf, rowMax, rows).set(a.rowMax);
  new Uint32Array(buf, sums, rows * 4).set(a.sums);
  new Uint32Array(buf, o, rows * d).set(a.o);
  x.fa2SoftmaxTile(
    rows,
    blockN,
    d,
    scores,
    limits,
    rowMax,
    sums,
    o,
    pb,
    p,
    a.first ? 1 : 0,
    a.checkInf ? 1 : 0,
    a.scaleLog2,
    a.flags,
  );
  a.rowMax.set(new Uint32Array(buf, rowMax, rows));
  a.sums.set(new Uint32Array(buf, sums, rows * 4));
  a.o.set(new Uint32Array(buf, o, rows * d));
  a.pb.set(new Uint16Array(buf, pb, rows * blockN));
}

/** fp32 1.0: the accumulator of padding lanes, which keeps them on the kernel's fast path. */
const _PAD_ONE = 0x3f800000;
