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

/** Sets the datapath parameters: block size L, fraction bits F, align floor, input format. */
export function setWalk(blockSize: i32, fracBits: i32, floor: i32, fmt: i32): void {
  gL = blockSize;
  gF = fracBits;
  gFloor = floor;
  gFmt = fmt;
}
