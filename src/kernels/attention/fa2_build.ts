/**
 * The two FlashAttention-2 builds that run on NVIDIA GPUs under HF Transformers, described as
 * data: the Dao-AILab `flash-attn` wheel (built with `--use_fast_math`) and PyTorch's bundled copy
 * (plain nvcc defaults plus `-DUNFUSE_FMA`). Spec `ops.md` §4.3, `stack_pytorch_hf.md` §2.1, §3.2,
 * `sfu_and_math.md` §5.
 *
 * Fixed by both builds (and therefore not fields): the lane of a quad owns columns
 * `{8a + 2t, 8a + 2t + 1}` atom-major; per-lane row sums are chained in that order (FA >= 2.5.4)
 * and reduced across the quad only at the end with xor offsets 2 then 1, giving
 * `(t0 + t2) + (t1 + t3)`; the row max uses the same shuffles (exact); P is rounded to BF16 (RNE)
 * and multiplied into the live O accumulator (O is the MMA's C operand, never cleared).
 *
 * @module
 */
import { quoteShort } from "../../escape_text.ts";

/** Names of the modelled FA2 builds. */
export type Fa2BuildId = "dao-fastmath" | "pytorch-bundled";

/** How one FA2 build turns its C++ into FP32 instructions. */
export interface Fa2Build {
  /** Build name. */
  readonly id: Fa2BuildId;
  /**
   * `exp2f` lowering: `mufu-ftz` is `ex2.approx.ftz.f32` (bare MUFU.EX2, fast-math); `ex2-approx`
   * is `ex2.approx.f32` (MUFU.EX2 with the non-FTZ pre-scale and squaring below -126).
   */
  readonly exp2: "mufu-ftz" | "ex2-approx";
  /**
   * The exp2 argument `S * scale_log2 - max_scaled`: one FFMA (`ffma`), or `__fmul_rn` then FADD
   * (`fmul-fadd`, PyTorch's `UNFUSE_FMA`).
   */
  readonly exp2Argument: "ffma" | "fmul-fadd";
  /** `1.f / row_sum`: MUFU.RCP (`rcp.approx.ftz`) or a correctly rounded reciprocal. */
  readonly reciprocal: "mufu-rcp" | "ieee-div";
  /** FTZ on every FADD/FMUL/FFMA of the kernel (fast-math implies `-ftz=true`). */
  readonly ftz: boolean;
  /**
   * `row_sum *= scale` followed by the first `row_sum += p` of the tile: contracted into one FFMA
   * (`ffma`, from `--fmad=true`) or kept as FMUL then FADD (`fmul-fadd`).
   */
  readonly rowSumRescale: "ffma" | "fmul-fadd";
  /**
   * Order of the KV-tile walk: FA2 walks from the highest n-block down (`descending`).
   * `ascending` describes no real build; it exists so tests can show the walk order matters.
   */
  readonly kvWalk: "descending" | "ascending";
  /**
   * The LSE `row_max * softmax_scale + __logf(sum)` (split kernel, and the standard kernel's
   * LSE), with `__logf(y) = fl32(LG2(y) * ln2)`: one FFMA fusing `row_max * softmax_scale` over
   * the rounded log (`max-scale`), or fusing `LG2(y) * ln2` over the rounded `row_max *
   * softmax_scale` (`log-ln2`). Which product nvcc contracts is a compiler choice, not seen in
   * SASS yet (spec `stack_pytorch_hf.md` §4.3).
   */
  readonly lseFma: "max-scale" | "log-ln2";
  /**
   * `expf`/`logf` of the split-KV combine: the fast intrinsics `__expf`/`__logf` (`fast`, what
   * `--use_fast_math` makes of them) or libdevice's accurate `expf`/`logf` (`libdevice`).
   */
  readonly combineMath: "fast" | "libdevice";
  /**
   * The combine's `logf(lse_sum) + lse_max`: a separate FADD (`fadd`, spec §4.4), or, with the
   * fast `logf`, its `LG2 * ln2` product contracted into an FFMA with the add (`ffma`).
   */
  readonly combineLseAdd: "fadd" | "ffma";
  /** Where the facts come from. */
  readonly sources: readonly string[];
}

/**
 * The Dao-AILab wheel (v2.8.3, `--use_fast_math`): FFMA exp2 argument, MUFU.EX2/RCP with FTZ,
 * FTZ arithmetic, fused row-sum rescale, fast `__expf`/`__logf` in the split-KV combine. The
 * seed study validated its emulator of the standard kernel end to end on A100 (`ops.md` §4.3),
 * and this code is checked against that emulator; the split kernel and combine are not (they
 * also need MUFU.LG2, which is `model-only`).
 */
export const FA2_DAO_FASTMATH: Fa2Build = Object.freeze({
  id: "dao-fastmath",
  exp2: "mufu-ftz",
  exp2Argument: "ffma",
  reciprocal: "mufu-rcp",
  ftz: true,
  rowSumRescale: "ffma",
  kvWalk: "descending",
  // ASSUMPTION (spec §4.3 marks the LSE FFMA inferred): the product written first in the C++,
  // `row_max * softmax_scale`, is the one contracted, the `__logf` result being rounded first.
  lseFma: "max-scale",
  combineMath: "fast",
  // ASSUMPTION (spec §4.4 writes an FADD): `logf(lse_sum) + lse_max` is not contracted.
  combineLseAdd: "fadd",
  sources: Object.freeze([
    "spec ops.md §4.3 (FA 2.8.3 sm_80, 0 diffs at seq 500 and 4000 on A100)",
    "spec sfu_and_math.md §5, §5.2 (FFMA sites, MUFU.EX2/RCP)",
    "spec stack_pytorch_hf.md §4.3-§4.4 (split kernel and combine; LSE FFMA and fast " +
    "expf/logf inferred, not seen in SASS)",
  ]),
});

/**
 * PyTorch's bundled FA2 (`UNFUSE_FMA`, no fast-math): FMUL then FADD exp2 argument, non-FTZ
 * `ex2.approx.f32`, IEEE reciprocal, no FTZ, libdevice `expf`/`logf` in the split-KV combine.
 * The row-sum FFMA is expected from `--fmad=true` (spec marks it inferred, to be confirmed in
 * SASS).
 */
export const FA2_PYTORCH_BUNDLED: Fa2Build = Object.freeze({
  id: "pytorch-bundled",
  exp2: "ex2-approx",
  exp2Argument: "fmul-fadd",
  reciprocal: "ieee-div",
  ftz: false,
  rowSumRescale: "ffma",
  kvWalk: "descending",
  // ASSUMPTION as for the Dao build: `--fmad=true` contracts `row_max * softmax_scale`.
  lseFma: "max-scale",
  combineMath: "libdevice",
  combineLseAdd: "fadd", // libdevice logf already ends in an FFMA; the add stays separate
  sources: Object.freeze([
    "spec stack_pytorch_hf.md §2.1 (flash_attn/CMakeLists.txt defines UNFUSE_FMA)",
    "spec stack_pytorch_hf.md §3.2 item 6, §4.4 (__logf in the split kernel; libdevice " +
    "expf/logf in the combine)",
    "spec stack_pytorch_hf.md §3.2 items 1-5 (row-sum FFMA inferred, not seen in SASS)",
  ]),
});

/**
 * Looks a build up by name.
 *
 * @param id `dao-fastmath` or `pytorch-bundled`
 * @returns the frozen build description
 * @throws {RangeError} on an unknown name
 * @example
 * ```ts
 * import { fa2Build } from "./fa2_build.ts";
 * if (fa2Build("pytorch-bundled").exp2Argument !== "fmul-fadd") throw new Error();
 * if (fa2Build("dao-fastmath").reciprocal !== "mufu-rcp") throw new Error();
 * ```
 */
export function fa2Build(id: string): Fa2Build {
  if (id === "dao-fastmath") return FA2_DAO_FASTMATH;
  if (id === "pytorch-bundled") return FA2_PYTORCH_BUNDLED;
  throw new RangeError(
    `Cannot find FA2 build: expected 'dao-fastmath' or 'pytorch-bundled', got ${
      quoteShort(id, 40)
    }`,
  );
}
