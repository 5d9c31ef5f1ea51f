/**
 * FA2's `normalize_softmax_lse` for the standard kernel (spec `ops.md` §4.3 "finally"): quad
 * allreduce of the per-lane row sums, reciprocal, O scaled and rounded to BF16, and the LSE.
 *
 * @module
 */
import { fp32ToBf16 } from "../../numerics/mod.ts";
import { type _Fa2Arith, _isNanF32, _isZeroF32 } from "./_fa2_arith.ts";
import type { _RowState } from "./_fa2_row_walk.ts";

/** `ln 2` as `__logf` multiplies it (0x3F317218). */
const LN2 = 0x3f317218;

/** Result of {@link _fa2Epilogue}. */
export interface _RowOutput {
  /** Output row, BF16 patterns. */
  readonly out: Uint16Array;
  /** The same row before the BF16 rounding, FP32 patterns (`fl32(O * inv)`). */
  readonly outF32: Uint32Array;
  /** Log-sum-exp (natural log), FP32 pattern; present only when `lg2` was given. */
  readonly lse?: number;
}

/**
 * Normalises one row: `total = (s0 + s2) + (s1 + s3)`, `inv = 1` if total is 0 or NaN else
 * `1/total` (the build's reciprocal), `out = bf16(O * inv)`. LSE (when `lg2` is given) is `+inf`
 * for a zero or NaN total, else `fma(row_max, softmax_scale, fl32(LG2(total) * ln2))`.
 *
 * ASSUMPTION (spec `stack_pytorch_hf.md` §4.3 marks it inferred): the LSE expression compiles to
 * one FFMA whose product is `row_max * softmax_scale`, with `__logf` rounded first.
 *
 * @param state the row after the main loop
 * @param ctx the build's instructions, the softmax scale pattern and an optional MUFU.LG2 model
 * @returns the BF16 row and optionally the LSE
 */
export function _fa2Epilogue(
  state: _RowState,
  ctx: {
    readonly arith: _Fa2Arith;
    readonly softmaxScale: number;
    readonly lg2?: ((x: number) => number) | undefined;
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
  const outF32 = state.o.map((x) => arith.mul(x, inv));
  const out = Uint16Array.from(outF32, fp32ToBf16);
  if (ctx.lg2 === undefined) return { out, outF32 };
  const lse = bad
    ? 0x7f800000
    : arith.fma(state.rowMax, ctx.softmaxScale, arith.mul(ctx.lg2(total), LN2));
  return { out, outF32, lse };
}
