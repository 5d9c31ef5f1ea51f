/**
 * The plain-TypeScript K-walk of a GEMM tile, built on the reference `dotKWalk`. It supports
 * every datapath and defines the bits the fast engine must reproduce.
 *
 * @module
 */
import type { Datapath } from "./datapath.ts";
import { dotKWalk } from "./dot_k_walk.ts";
import { checkKWalkOperands, gatherSegments, type KWalkGemmOperands } from "./k_walk_operands.ts";

/**
 * Walks K for every output of C[M,N]: output (i, j) is `dotKWalk` of row i of A and row j of B
 * (weight layout) over the concatenated segments, starting from `init[i*n+j]` (default +0).
 *
 * @param dp any datapath
 * @param ops operands, segments and initial accumulators
 * @returns the final accumulators, `dp.output` patterns, row-major [m][n] (`ops.out` when given)
 * @throws {RangeError} on shape or segment errors
 * @example
 * ```ts
 * import { kWalkReference } from "./k_walk_reference.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const h100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const ones = new Uint16Array(3).fill(0x3f80); // 1.0
 * const c = kWalkReference(h100, { a: ones, b: ones, m: 1, n: 1, k: 3 });
 * if (c[0] !== 0x40400000) throw new Error(); // 3.0
 * ```
 */
export function kWalkReference(dp: Datapath, ops: KWalkGemmOperands): Uint32Array {
  const segments = checkKWalkOperands(ops);
  const { m, n, k } = ops;
  const a = gatherSegments(ops.a, { rows: m, k, segments, multiple: 1 });
  const b = gatherSegments(ops.b, { rows: n, k, segments, multiple: 1 });
  const kc = a.kp;
  // Each output reads its own initial value before it is written: `out` may be `init`.
  const out = ops.out ?? new Uint32Array(m * n);
  for (let i = 0; i < m; i++) {
    const row = a.data.subarray(i * kc, (i + 1) * kc);
    for (let j = 0; j < n; j++) {
      const col = b.data.subarray(j * kc, (j + 1) * kc);
      out[i * n + j] = dotKWalk(dp, { a: row, b: col, c: ops.init?.[i * n + j] ?? 0 });
    }
  }
  return out;
}
