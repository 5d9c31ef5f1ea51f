// The exact scalar fallbacks of the SIMD walk: whole outputs of untame rows or panels, and single
// lanes of a block that the fast path cannot take (walk.ts: E outside [F - 126, 127]).

import { blockExact } from "./block_exact";
import { gF, gFloor, gFmt, gL } from "./params";

/** Exact scalar walk of one output (row i of A, column j of B) over k in [kb0, kb1). */
export function walkScalarOutput(aRaw: usize, bRaw: usize, kb0: i32, kb1: i32, c: u32): u32 {
  for (let k0 = kb0; k0 < kb1; k0 += gL) {
    const off = <usize>k0 << 1;
    c = blockExact(aRaw + off, bRaw + off, gL, c, gFmt, gF, gFloor);
  }
  return c;
}

/** Static scratch (16 bytes each) for patching lanes: results, bad flags, old accumulators. */
const SCRATCH: usize = memory.data(16, 16);
const FLAGS: usize = memory.data(16, 16);
const OLDS: usize = memory.data(16, 16);

/**
 * Recomputes the flagged lanes of one block (starting at k0) with the exact scalar path. d holds
 * the fast results, cOld the accumulators before the block, bad the lane flags; aRaw is the row's
 * raw patterns, bRaw the raw pattern row of the panel's first column.
 */
export function fixLanes(
  d: v128, cOld: v128, bad: v128, aRaw: usize, bRaw: usize, lanes: i32, kp: i32, k0: i32,
): v128 {
  v128.store(SCRATCH, d);
  const off = <usize>k0 << 1;
  v128.store(FLAGS, bad);
  v128.store(OLDS, cOld);
  for (let l = 0; l < lanes; l++) {
    if (load<i32>(FLAGS + (<usize>l << 2)) == 0) continue;
    const c = load<u32>(OLDS + (<usize>l << 2));
    const col = bRaw + (<usize>(l * kp) << 1);
    store<u32>(SCRATCH + (<usize>l << 2), blockExact(aRaw + off, col + off, gL, c, gFmt, gF, gFloor));
  }
  return v128.load(SCRATCH);
}
