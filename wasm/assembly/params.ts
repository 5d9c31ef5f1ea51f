// Parameters of one K-walk, shared by the SIMD walk (walk.ts) and its exact fallbacks
// (fix_lanes.ts). The host sets them with `setWalk` before `walk`.

/** Products per fused block (L). */
export let gL: i32 = 8;
/** Fraction bits below the alignment exponent (F). */
export let gF: i32 = 24;
/** Alignment floor (-65536 for none). */
export let gFloor: i32 = -132;
/** Input format code (0 = bf16, 1 = fp16). */
export let gFmt: i32 = 0;
/**
 * The floor as the start value of the i16 exponent maximum (walk.ts step 1): the floor clamped
 * to the i16 range. Clamping changes no E that the fast path keeps: every kept E lies in
 * [F - 126, 127], well inside [-32768, 32767].
 */
export let gFloor16: i32 = -132;
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
  gFloor16 = floor < -32768 ? -32768 : (floor > 32767 ? 32767 : floor);
  const bound = <i64>blockSize * ((<i64>1 << <i64>(fracBits + 2)) - 1) +
    (<i64>1 << <i64>(fracBits + 1)) - 1;
  gNarrow = bound < (<i64>1 << 30);
}
