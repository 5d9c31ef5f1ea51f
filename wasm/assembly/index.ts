// Entry point of the GEMM engine module: exports the pre-decoders, the exact scalar block and the
// tiled K-walk driver. The host owns the memory layout (see src/engine/).

import { PANEL, TINY_BIAS } from "./decode";
import { NO_TINY, panelTops, walkPanel, walkPanelPair } from "./walk";
import { walkScalarOutput } from "./fix_lanes";
import { gL } from "./params";

export { decodeRows, packPanels } from "./operands";
export { blockExact } from "./block_exact";
export { setWalk } from "./params";
export { fa2Instruction, fa2SetEx2Table, fa2SoftmaxTile } from "./fa2_softmax";

/** First free byte after the module's static data: the host places its buffers from here. */
export function heapBase(): usize {
  return (__heap_base + 15) & ~15;
}

const ROW_TILE = 16;
/**
 * K per cache block (rounded down to whole blocks of L): every row pair and panel of a row tile
 * walks this much K before the next, so that the tile's rows (8 bytes a k) and a panel (40 bytes
 * a k) stay in the first- and second-level caches instead of streaming all of K from memory.
 * Each output still sees its blocks in increasing k: only the order across outputs changes.
 */
const K_BLOCK = 512;

/**
 * Walks every output of C over kp operand pairs. C is [m][ldc] u32 fp32 patterns with
 * ldc = 8 * ceil(n / 8), updated in place; lanes past n must hold 1.0 (0x3f800000: harmless,
 * keeps the fast path). aRaw [m][kp] and bRaw [n][kp] hold u16 patterns; aVal/aExp/aTame come
 * from `decodeRows`, bVal/bExp/bTame from `packPanels`. `setWalk` must have been called, with a
 * block size that 4 divides (walk.ts reads k four at a time).
 */
export function walk(
  aRaw: usize, aVal: usize, aExp: usize, aTame: usize, m: i32,
  bRaw: usize, bVal: usize, bExp: usize, bTame: usize, n: i32, kp: i32, c: usize,
): void {
  const panels = (n + PANEL - 1) >> 3;
  const ldc = panels * PANEL;
  const kBlock = max(gL, K_BLOCK - K_BLOCK % gL);
  for (let kb0 = 0; kb0 < kp; kb0 += kBlock) {
    const kb1 = min(kb0 + kBlock, kp);
    for (let i0 = 0; i0 < m; i0 += ROW_TILE) {
      const iEnd = min(i0 + ROW_TILE, m);
      for (let g = 0; g < panels; g++) {
        const lanes = min(PANEL, n - PANEL * g);
        const panelTame = load<u8>(bTame + g) != 0;
        const bv = bVal + (<usize>(g * kp) << 5);
        const be = bExp + (<usize>(g * kp) << 3);
        const bRow = bRaw + (<usize>(PANEL * g * kp) << 1);
        // The panel's lane maxima over this K range, for rows with tiny operands: once a panel.
        let pm = i16x8.splat(0);
        let pmReady = false;
        for (let i = i0; i < iEnd; i++) {
          const cRow = c + (<usize>(i * ldc + PANEL * g) << 2);
          const rOff = <usize>(i * kp);
          const aRow = aRaw + (rOff << 1);
          const ta = <i32>load<u8>(aTame + i);
          if (!panelTame || ta == 0) {
            walkScalarRow(aRow, bRow, lanes, kp, kb0, kb1, cRow);
            continue;
          }
          const tb = i + 1 < iEnd ? <i32>load<u8>(aTame + i + 1) : 0;
          if (!pmReady && (ta > 1 || tb > 1)) {
            pm = panelTops(be, kb0, kb1);
            pmReady = true;
          }
          if (tb != 0) {
            // Two tame rows: one pair walk (walk.ts), the same bits as two single walks.
            walkPanelPair(
              aVal + (rOff << 2), aExp + (rOff << 1), aRow, bv, be, bRow,
              lanes, kp, kb0, kb1, cRow, cRow + (<usize>ldc << 2), tinyOf(ta), tinyOf(tb), pm,
            );
            i++;
            continue;
          }
          walkPanel(
            aVal + (rOff << 2), aExp + (rOff << 1), aRow, bv, be, bRow, lanes, kp, kb0, kb1, cRow,
            tinyOf(ta), pm,
          );
        }
      }
    }
  }
}

/** The largest top of a tame row's tiny operands (decode.ts TINY_BIAS), or NO_TINY. */
@inline function tinyOf(tameByte: i32): i32 {
  return tameByte == 1 ? NO_TINY : tameByte - TINY_BIAS;
}

/** Exact scalar walk over k in [kb0, kb1) of the `lanes` outputs of one row against one panel. */
function walkScalarRow(
  aRow: usize, bRow: usize, lanes: i32, kp: i32, kb0: i32, kb1: i32, cRow: usize,
): void {
  for (let l = 0; l < lanes; l++) {
    const p = cRow + (<usize>l << 2);
    const col = bRow + (<usize>(l * kp) << 1);
    store<u32>(p, walkScalarOutput(aRow, col, kb0, kb1, load<u32>(p)));
  }
}
