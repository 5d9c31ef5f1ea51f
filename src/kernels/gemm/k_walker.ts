/**
 * The K-walk interface GEMM recipes are built on, and its plain reference implementation.
 *
 * @module
 */
import { type Datapath, dotKWalk } from "../../hardware/mod.ts";
import type { KSegment } from "./partitions.ts";

/** One K-walk over a whole output matrix. */
export interface KWalkJob {
  /** A as input-format patterns, row-major [M, K]. */
  readonly a: Uint16Array;
  /** B in weight layout: input-format patterns, row-major [N, K]. */
  readonly b: Uint16Array;
  /** Rows of A and of the output. */
  readonly m: number;
  /** Rows of B, columns of the output. */
  readonly n: number;
  /** Reduction length (row length of A and B). */
  readonly k: number;
  /** K ranges walked as one concatenated sequence, in order (default `[[0, k]]`). */
  readonly segments?: readonly KSegment[];
  /** Initial accumulators as fp32 patterns [M, N] (default +0). */
  readonly init?: Uint32Array;
}

/**
 * Computes fp32 accumulators [M, N] for a job. Implementations (the plain reference, the wasm
 * engine, a worker pool) must return identical bits.
 */
export type KWalker = (dp: Datapath, job: KWalkJob) => Promise<Uint32Array>;

/**
 * Gathers the K indices of the segments in walk order.
 *
 * @param job the job
 * @returns the K indices
 * @throws {RangeError} when a segment leaves `[0, k]`
 * @example
 * ```ts
 * import { segmentIndices } from "./k_walker.ts";
 * const ix = segmentIndices({ k: 8, segments: [[4, 6], [0, 2]] });
 * if (ix.join() !== "4,5,0,1") throw new Error();
 * ```
 */
export function segmentIndices(job: { k: number; segments?: readonly KSegment[] }): number[] {
  const out: number[] = [];
  for (const [s, e] of job.segments ?? [[0, job.k]]) {
    if (!(Number.isInteger(s) && Number.isInteger(e) && 0 <= s && s <= e && e <= job.k)) {
      throw new RangeError(`Cannot walk segment [${s}, ${e}) of K=${job.k}`);
    }
    for (let i = s; i < e; i++) out.push(i);
  }
  return out;
}

/**
 * The readable reference walker: one {@link dotKWalk} per output element over the concatenated
 * segments. Slow; the fast engines are checked against it.
 *
 * @param dp datapath (16-bit input formats)
 * @param job the job
 * @returns fp32 accumulator patterns [M, N]
 * @throws {RangeError} on inconsistent shapes
 * @example
 * ```ts
 * import { referenceKWalker } from "./k_walker.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const dp = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const one = 0x3f80;
 * const c = await referenceKWalker(dp, { a: new Uint16Array([one, one]), b: new Uint16Array([one, one]), m: 1, n: 1, k: 2 });
 * if (c[0] !== 0x40000000) throw new Error();
 * ```
 */
export function referenceKWalker(dp: Datapath, job: KWalkJob): Promise<Uint32Array> {
  const { a, b, m, n, k } = job;
  if (a.length !== m * k || b.length !== n * k || (job.init && job.init.length !== m * n)) {
    return Promise.reject(
      new RangeError(`Cannot walk K: operand sizes do not match ${m}x${n}x${k}`),
    );
  }
  const ks = segmentIndices(job);
  const out = new Uint32Array(m * n);
  const row = new Array<number>(ks.length);
  const col = new Array<number>(ks.length);
  for (let i = 0; i < m; i++) {
    for (let t = 0; t < ks.length; t++) row[t] = a[i * k + ks[t]!]!;
    for (let j = 0; j < n; j++) {
      for (let t = 0; t < ks.length; t++) col[t] = b[j * k + ks[t]!]!;
      out[i * n + j] = dotKWalk(dp, { a: row, b: col, c: job.init?.[i * n + j] ?? 0 });
    }
  }
  return Promise.resolve(out);
}
