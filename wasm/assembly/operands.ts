// The decoding entry points the host calls: bf16 operands take the SIMD decoding of
// pack_bf16.ts, fp16 operands the scalar decoding of decode.ts (same output layout, described
// there). Kept apart from both so that neither imports the other's caller.

import { FMT_BF16, FMT_FP16, packLanes, PANEL, putRow } from "./decode";
import { decodeRowsBf16, packPanelsBf16 } from "./pack_bf16";

/**
 * Decodes row-major A [rows][kp] (u16 patterns) into f32 values (the same layout), exponent
 * bytes (two a k, see the module comment) and one tame byte per row.
 */
export function decodeRows(
  src: usize, rows: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  if (fmt == FMT_BF16) decodeRowsBf16(src, rows, kp, val, exp, tame); // pack_bf16.ts: SIMD
  else decodeRowsOf(src, rows, kp, FMT_FP16, val, exp, tame);
}

/** Scalar `decodeRows` with a constant format (so the format tests fold away). */
@inline function decodeRowsOf(
  src: usize, rows: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  for (let i = 0; i < rows; i++) {
    let ok = true;
    for (let k = 0; k < kp; k++) {
      const idx = <usize>(i * kp + k);
      ok = putRow(<i32>load<u16>(src + (idx << 1)), fmt, val + (idx << 2), exp + (idx << 1)) && ok;
    }
    store<u8>(tame + i, ok ? 1 : 0);
  }
}

/**
 * Packs row-major B [n][kp] (weight layout) into panels of 8 columns: f32 values and exponent
 * bytes at [panel][k][lane] (see the module comment), lanes beyond n zero-filled, and one tame
 * byte per panel.
 */
export function packPanels(
  src: usize, n: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  if (fmt == FMT_BF16) packPanelsBf16(src, n, kp, val, exp, tame); // pack_bf16.ts: SIMD
  else packPanelsOf(src, n, kp, FMT_FP16, val, exp, tame);
}

/** Scalar `packPanels` with a constant format (so the format tests fold away). */
@inline function packPanelsOf(
  src: usize, n: i32, kp: i32, fmt: i32, val: usize, exp: usize, tame: usize,
): void {
  const panels = (n + PANEL - 1) >> 3;
  for (let g = 0; g < panels; g++) {
    const ok = packLanes(src, n, kp, fmt, val, exp, g, 0, kp);
    store<u8>(tame + g, ok ? 1 : 0);
  }
}
