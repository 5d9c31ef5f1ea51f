/**
 * Operands of a GEMM K-walk and their gathering into one concatenated K sequence.
 *
 * @module
 */

/** A half-open range `[start, end)` of the K dimension. */
export type KSegment = readonly [number, number];

/** Operands of a tile K-walk: C[M,N] accumulators from A [M,K] and B [N,K] (weight layout). */
export interface KWalkGemmOperands {
  /** A as `dp.input` patterns, row-major [m][k]. */
  readonly a: Uint16Array;
  /** B as `dp.input` patterns, row-major [n][k] (nn.Linear weight layout). */
  readonly b: Uint16Array;
  /** Rows of A and C. */
  readonly m: number;
  /** Rows of B, columns of C. */
  readonly n: number;
  /** Length of the K dimension of A and B. */
  readonly k: number;
  /** K ranges walked as one concatenated sequence, in order; default `[[0, k]]`. */
  readonly segments?: readonly KSegment[];
  /** Initial fp32 accumulator patterns, row-major [m][n]; default +0 everywhere. */
  readonly init?: Uint32Array;
  /**
   * A memo that comes with this B every time (the same patterns, n, k and segments): an engine
   * may keep its prepared form of B there and reuse it (a KV tile read by many launches). The
   * plain walk ignores it; the bits never depend on it.
   */
  readonly bMemo?: OperandMemo;
  /**
   * Where C goes, row-major [m][n]: when given, the walk writes its result there and returns it
   * (it may be `init` itself, updated in place), so a caller walking tile after tile reuses one
   * buffer instead of a fresh array each time. It shares no byte with A, B or init (other than
   * being init itself): the walk refuses it. The bits never depend on it.
   */
  readonly out?: Uint32Array;
}

/** Room for an engine's prepared form of one operand (see `KWalkGemmOperands.bMemo`). */
export interface OperandMemo {
  /** What the engine keeps (opaque to everyone else). */
  prepared?: unknown;
}

/**
 * Checks shapes and segments of K-walk operands.
 *
 * @param ops the operands
 * @returns the segments to walk (the default when none are given)
 * @throws {RangeError} on a size mismatch, a segment outside `[0, k]`, or an `out` on the bytes
 *   of A, B or init (other than init itself)
 * @example
 * ```ts
 * import { checkKWalkOperands } from "./k_walk_operands.ts";
 * const segs = checkKWalkOperands({ a: new Uint16Array(6), b: new Uint16Array(3), m: 2, n: 1, k: 3 });
 * if (segs.length !== 1 || segs[0]?.[1] !== 3) throw new Error();
 * ```
 */
export function checkKWalkOperands(ops: KWalkGemmOperands): readonly KSegment[] {
  const { m, n, k } = ops;
  for (const [name, v] of [["m", m], ["n", n], ["k", k]] as const) {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`Cannot walk K: '${name}' must be a non-negative integer, got ${v}`);
    }
  }
  if (ops.a.length !== m * k || ops.b.length !== n * k) {
    throw new RangeError(
      `Cannot walk K: expected A of ${m * k} and B of ${
        n * k
      } values, got ${ops.a.length} and ${ops.b.length}`,
    );
  }
  if (ops.init !== undefined && ops.init.length !== m * n) {
    throw new RangeError(`Cannot walk K: expected init of ${m * n} values, got ${ops.init.length}`);
  }
  if (ops.out !== undefined && ops.out.length !== m * n) {
    throw new RangeError(`Cannot walk K: expected out of ${m * n} values, got ${ops.out.length}`);
  }
  // C is written while A, B and init are still read (row block by row block, output by output):
  // an `out` on their bytes would change the bits, unless it is init itself, read before written.
  if (ops.out !== undefined) {
    const o = ops.out;
    const same = ops.init !== undefined && o.buffer === ops.init.buffer &&
      o.byteOffset === ops.init.byteOffset;
    const on = [ops.a, ops.b, ...(ops.init !== undefined && !same ? [ops.init] : [])]
      .some((v) => _overlap(o, v));
    if (on) {
      throw new RangeError(
        "Cannot walk K: out shares bytes with A, B or init (other than init itself)",
      );
    }
  }
  const segments = ops.segments ?? [[0, k]];
  for (const [s, e] of segments) {
    if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e) || s < 0 || e < s || e > k) {
      throw new RangeError(`Cannot walk K: segment [${s}, ${e}) is outside [0, ${k}]`);
    }
  }
  return segments;
}

/**
 * Gathers the segments of every row into one concatenated sequence, zero-padded at the end up
 * to a multiple of `multiple` (zero pairs are exactly the reference's K tail: zero products take
 * no part in a block).
 *
 * @param src row-major [rows][k] patterns
 * @param options rows, k, segments, the padding multiple (1 for none), `alloc`, which
 *   hands out the bytes asked for, zero-filled (a view, possibly a range of a larger shared
 *   buffer; default a fresh Uint8Array), and `reuse`: when
 *   true and the rows are already in place (one whole segment, no padding), a view of `src` is
 *   returned instead of a copy
 * @returns the gathered rows [rows][kp] and kp
 * @example
 * ```ts
 * import { gatherSegments } from "./k_walk_operands.ts";
 * const g = gatherSegments(new Uint16Array([1, 2, 3, 4]), {
 *   rows: 1, k: 4, segments: [[2, 4], [0, 1]], multiple: 4,
 * });
 * if (g.kp !== 4 || g.data.join() !== "3,4,1,0") throw new Error();
 * ```
 */
export function gatherSegments(
  src: Uint16Array,
  options: {
    rows: number;
    k: number;
    segments: readonly KSegment[];
    multiple: number;
    alloc?: (bytes: number) => Uint8Array;
    reuse?: boolean;
  },
): { data: Uint16Array; kp: number } {
  const { rows, k, segments, multiple } = options;
  const kc = segments.reduce((t, [s, e]) => t + e - s, 0);
  const kp = Math.ceil(kc / multiple) * multiple;
  const [only] = segments;
  const inPlace = segments.length === 1 && only?.[0] === 0 && only[1] === k && kp === k;
  if (inPlace && options.reuse === true) return { data: src.subarray(0, rows * k), kp };
  const bytes = rows * kp * 2;
  // `alloc` hands out zero-filled bytes, possibly a range of a larger (shared) buffer.
  const room = options.alloc?.(bytes) ?? new Uint8Array(bytes);
  const data = new Uint16Array(room.buffer, room.byteOffset, rows * kp);
  if (inPlace) {
    data.set(src.subarray(0, rows * k)); // the whole rows, already in place: one copy
    return { data, kp };
  }
  for (let i = 0; i < rows; i++) {
    let at = i * kp;
    for (const [s, e] of segments) {
      data.set(src.subarray(i * k + s, i * k + e), at);
      at += e - s;
    }
  }
  return { data, kp };
}

/** Whether two views share a byte. */
function _overlap(x: ArrayBufferView, y: ArrayBufferView): boolean {
  return x.buffer === y.buffer && x.byteLength > 0 && y.byteLength > 0 &&
    x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength;
}
