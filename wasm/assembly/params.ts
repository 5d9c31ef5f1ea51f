// Parameters of one K-walk, shared by the SIMD walk (walk.ts) and its exact fallbacks
// (fix_lanes.ts). The host sets them with `setWalk` before `walk`.

import { EXP_SUM_BIAS } from "./decode";

/** Products per fused block (L). */
export let gL: i32 = 8;
/** Fraction bits below the alignment exponent (F). */
export let gF: i32 = 24;
/** Alignment floor (-65536 for none). */
export let gFloor: i32 = -132;
/** Input format code (0 = bf16, 1 = fp16). */
export let gFmt: i32 = 0;
/**
 * The floor as the start value of the biased u8 exponent maximum (walk.ts step 1): floor +
 * EXP_SUM_BIAS clamped to [0, 255]. Clamping changes no decision of the fast path: a floor below
 * -127 becomes -127, which changes E only where E would stay below -127 either way (such lanes
 * are bad, E < F - 126, both ways); a floor above 128 becomes 128, where every lane is bad
 * (E > 127) as it is with the true floor.
 */
export let gFloorU8: i32 = 0;
/**
 * Whether a block's whole sum, accumulator term included, fits 30 bits:
 * L * (2^(F+2) - 1) + 2^(F+1) - 1 < 2^30 (A100-class L = 8, F = 24: about 2^29.1). Then the
 * narrow rounding of walk.ts step 5 applies; otherwise (H100-class L = 16, F = 25) the f64 one.
 */
export let gNarrow: bool = true;

/** Sets the datapath parameters: block size L, fraction bits F, align floor, input format. */
export function setWalk(blockSize: i32, fracBits: i32, floor: i32, fmt: i32): void {
  gL = blockSize;
  gF = fracBits;
  gFloor = floor;
  gFmt = fmt;
  gFloorU8 = min(255, max(0, floor + EXP_SUM_BIAS));
  const bound = <i64>blockSize * ((<i64>1 << <i64>(fracBits + 2)) - 1) +
    (<i64>1 << <i64>(fracBits + 1)) - 1;
  gNarrow = bound < (<i64>1 << 30);
}
