/**
 * FA2's `normalize_softmax_lse` (spec `ops.md` §4.3 "finally", `stack_pytorch_hf.md` §4.3): quad
 * allreduce of the per-lane row sums, reciprocal, O scaled, and the LSE; the standard kernel
 * rounds O to BF16, the split kernel (`Split = true`) keeps it in FP32 for the combine.
 *
 * @module
 */
import { fp32ToBf16 } from "../../numerics/mod.ts";
import { _isNanF32, _isZeroF32, type Fa2Arith } from "./_fa2_arith.ts";
import type { _RowState } from "./_fa2_softmax_step.ts";

/** Result of {@link _fa2Epilogue}. */
export interface _RowOutput {
  /** Output row, BF16 patterns (the standard kernel's output). */
  readonly out: Uint16Array;
  /** The same row before the BF16 rounding, FP32 patterns (`fl32(O * inv)`; the split's O_s). */
  readonly outF32: Uint32Array;
  /** Log-sum-exp (natural log), FP32 pattern; present when asked for. */
  readonly lse?: number;
}

/**
 * Normalises one row: `total = (s0 + s2) + (s1 + s3)`, `inv = 1` if total is 0 or NaN else
 * `1/total` (the build's reciprocal), `outF32 = fl32(O * inv)`, `out = bf16(outF32)`. The LSE
 * (when `lse` is set) is, for a zero or NaN total, +inf in the standard kernel and -inf in the
 * split kernel, else `row_max * softmax_scale + __logf(total)` as the build fuses it (`lseFma`).
 *
 * @param state the row after the main loop
 * @param ctx the build's instructions, the softmax scale pattern, whether to compute the LSE and
 *   whether this is the split kernel
 * @returns the FP32 and BF16 row and optionally the LSE
 */
export function _fa2Epilogue(
  state: _RowState,
  ctx: {
    readonly arith: Fa2Arith;
    readonly softmaxScale: number;
    readonly lse: boolean;
    readonly split: boolean;
  },
): _RowOutput {
  const { arith } = ctx;
  const s = state.laneSums;
  const total = arith.add(
    arith.add(s[0] as number, s[2] as number),
    arith.add(s[1] as number, s[3] as number),
  );
  const bad = _isZeroF32(total) || _isNanF32(total);
  const inv = bad ? 0x3f800000 : arith.recip(total);
  const d = state.o.length;
  const outF32 = new Uint32Array(d);
  arith.mulRow(state.o, inv, outF32);
  const out = new Uint16Array(d);
  for (let j = 0; j < d; j++) out[j] = fp32ToBf16(outF32[j] as number);
  if (!ctx.lse) return { out, outF32 };
  const lse = bad
    ? (ctx.split ? 0xff800000 : 0x7f800000)
    : arith.lse(state.rowMax, ctx.softmaxScale, total);
  return { out, outF32, lse };
}
