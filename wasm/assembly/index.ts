// Entry point of the GEMM engine module: exports the pre-decoders, the exact scalar block and the
// tiled K-walk driver. The host owns the memory layout (see src/hardware/tensor_core/engine/).

import { gPairSecond, walkPanel, walkPanelPair } from "./walk";
import { walkScalarOutput } from "./fix_lanes";

export { decodeRows, packPanels } from "./decode";
export { blockExact } from "./block_exact";
export { setWalk } from "./params";

/** First free byte after the module's static data: the host places its buffers from here. */
export function heapBase(): usize {
  return (__heap_base + 15) & ~15;
}

const ROW_TILE = 16;
const PANEL_TILE = 4;
const PAD_ONE: u32 = 0x3f800000; // 1.0 in lanes past the edge: harmless, keeps the fast path

/**
 * Walks every output of C [m][n] (u32 fp32 patterns, updated in place) over kp operand pairs.
 * aRaw [m][kp] and bRaw [n][kp] hold u16 patterns; aVal/aExp/aTame come from `decodeRows`,
 * bVal/bExp/bTame from `packPanels`. `setWalk` must have been called.
 */
export function walk(
  aRaw: usize, aVal: usize, aExp: usize, aTame: usize, m: i32,
  bRaw: usize, bVal: usize, bExp: usize, bTame: usize, n: i32, kp: i32, c: usize,
): void {
  const panels = (n + 3) >> 2;
  for (let i0 = 0; i0 < m; i0 += ROW_TILE) {
    const iEnd = min(i0 + ROW_TILE, m);
    for (let g0 = 0; g0 < panels; g0 += PANEL_TILE) {
      const gEnd = min(g0 + PANEL_TILE, panels);
      for (let g = g0; g < gEnd; g++) {
        const lanes = min(4, n - 4 * g);
        const panelTame = load<u8>(bTame + g) != 0;
        const pOff = <usize>(g * kp) << 4;
        const bRow = bRaw + (<usize>(4 * g * kp) << 1);
        for (let i = i0; i < iEnd; i++) {
          const cRow = c + (<usize>(i * n + 4 * g) << 2);
          const rOff = <usize>(i * kp);
          const aRow = aRaw + (rOff << 1);
          if (!panelTame || load<u8>(aTame + i) == 0) {
            walkScalarRow(aRow, bRow, lanes, kp, cRow);
            continue;
          }
          const cv = loadLanes(cRow, lanes);
          if (i + 1 < iEnd && load<u8>(aTame + i + 1) != 0) {
            // Two tame rows: one pair walk (walk.ts), the same bits as two single walks.
            const cRow1 = cRow + (<usize>n << 2);
            const c0 = walkPanelPair(
              aVal + (rOff << 2), aExp + (rOff << 2), aRow, bVal + pOff, bExp + pOff, bRow,
              lanes, kp, cv, loadLanes(cRow1, lanes),
            );
            storeLanes(cRow, lanes, c0);
            storeLanes(cRow1, lanes, gPairSecond);
            i++;
            continue;
          }
          const c0 = walkPanel(
            aVal + (rOff << 2), aExp + (rOff << 2), aRow, bVal + pOff, bExp + pOff, bRow,
            lanes, kp, cv,
          );
          storeLanes(cRow, lanes, c0);
        }
      }
    }
  }
}

/** Exact scalar walk of the `lanes` outputs of one row against one panel. */
function walkScalarRow(aRow: usize, bRow: usize, lanes: i32, kp: i32, cRow: usize): void {
  for (let l = 0; l < lanes; l++) {
    const p = cRow + (<usize>l << 2);
    store<u32>(p, walkScalarOutput(aRow, bRow + (<usize>(l * kp) << 1), kp, load<u32>(p)));
  }
}

/** Loads `lanes` accumulators; lanes past the edge hold 1.0 (see PAD_ONE). */
@inline function loadLanes(cRow: usize, lanes: i32): v128 {
  if (lanes == 4) return v128.load(cRow);
  let cv = i32x4.splat(PAD_ONE);
  for (let l = 0; l < lanes; l++) cv = insertLane(cv, l, load<u32>(cRow + (<usize>l << 2)));
  return cv;
}

/** Stores the first `lanes` lanes of v. */
@inline function storeLanes(cRow: usize, lanes: i32, v: v128): void {
  if (lanes == 4) {
    v128.store(cRow, v);
    return;
  }
  for (let l = 0; l < lanes; l++) store<u32>(cRow + (<usize>l << 2), extractLane(v, l));
}

@inline function insertLane(v: v128, l: i32, x: u32): v128 {
  if (l == 0) return i32x4.replace_lane(v, 0, x);
  if (l == 1) return i32x4.replace_lane(v, 1, x);
  if (l == 2) return i32x4.replace_lane(v, 2, x);
  return i32x4.replace_lane(v, 3, x);
}

@inline function extractLane(v: v128, l: i32): u32 {
  if (l == 0) return i32x4.extract_lane(v, 0);
  if (l == 1) return i32x4.extract_lane(v, 1);
  if (l == 2) return i32x4.extract_lane(v, 2);
  return i32x4.extract_lane(v, 3);
}
