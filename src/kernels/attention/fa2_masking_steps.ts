/**
 * FA2's masking iterations: how many of a CTA's KV tiles run in the main loop's first loop, the
 * only place where the online softmax's rescale counts a row max of -inf as 0 (`Check_inf`).
 *
 * Source: Dao-AILab/flash-attention v2.8.3 (060c918), `csrc/flash_attn/src/flash_fwd_kernel.h`.
 * `compute_attn_1rowblock` (:298-300) and `compute_attn_1rowblock_splitkv` (:849-851) both take
 * `n_masking_steps = (!Is_causal && !Is_local) ? 1 : ((Is_even_MN && Is_causal) ?
 * ceil_div(kBlockM, kBlockN) : ceil_div(kBlockM, kBlockN) + 1)` iterations from the highest
 * n-block down, leaving the loop early when the n-blocks run out (:371, :930). Those iterations
 * call `softmax_rescale_o` with `Check_inf = Is_causal || Is_local` (:343-344; the split kernel
 * adds `|| !Is_even_MN`, :917-918); every later iteration with `Check_inf = Is_local` (:407,
 * :985). In `softmax.h` (`Softmax::softmax_rescale_o`, :137) only a later tile's rescale reads the
 * flag: `scores_max_cur = !Check_inf ? row_max : (row_max == -INFINITY ? 0 : row_max)` (:154),
 * then `exp2f((scores_max_prev - scores_max_cur) * scale_log2)` (:157); the first tile has no
 * rescale, and `scale_apply_exp2` tests `max == -INFINITY` whatever the flag (:76). The epilogue
 * (`normalize_softmax_lse`, :179-180) takes `inv_sum = 1` for a NaN sum, so O stays NaN, and the
 * LSE is +inf (-inf in the split kernel). So, without sliding windows (not
 * modelled): a causal launch substitutes on its masking iterations and nowhere else, and a
 * non-causal one never does (its one masking iteration is the first). A row whose max is still
 * -inf at a later iteration computes `(-inf) - (-inf)` = NaN, which reaches its row sum and O.
 *
 * `Is_even_MN` is the kernel's template argument (`flash_fwd_launch_template.h` :65, :79 for the
 * standard kernel; :108, :120 for the split kernel): `cu_seqlens_q == nullptr && cu_seqlens_k ==
 * nullptr && seqlen_k % kBlockN == 0 && seqlen_q % kBlockM == 0`, and `IsEvenK && !Is_local &&
 * !Has_alibi && kHeadDim <= 128` (standard also `!Return_softmax`, split also `!Append_KV`), all
 * true for the launches modelled here but the head dimension. The same lines are at every tag
 * v2.5.0 .. v2.8.3 (only `!Has_alibi` joined the template argument at v2.8.0; PyTorch builds
 * with `FLASHATTENTION_DISABLE_ALIBI`), which PyTorch 2.8 compiles from its
 * `third_party/flash-attention` submodule, and at vllm-project/flash-attention ee4d25b (vLLM
 * 0.11's pin): `flash_fwd_kernel.h` :298-300, :343-344, :407, :875-877, :937-938, :1000.
 * Evidence: derived from source only; no GPU ran a row whose max stays -inf.
 *
 * @module
 */
import type { Fa2Tiles } from "./fa2_tiles.ts";

/** The launch facts `n_masking_steps` depends on. */
export interface Fa2MaskingLaunch {
  /** Causal mask in effect (after `seqlen_q == 1` dropped it). */
  readonly causal: boolean;
  /** `mha_varlen_fwd` (cu_seqlens given): `Is_even_MN` is then false. */
  readonly varlen: boolean;
  /** The launch's `seqlen_q` (`mha_fwd`: the query length). */
  readonly seqlenQ: number;
  /** The launch's `seqlen_k`. */
  readonly seqlenK: number;
  /** Head dimension (kHeadDim: 64, 96, 128 or 256). */
  readonly headDim: number;
}

/**
 * `n_masking_steps` of the kernel a launch runs: the number of leading KV tiles of each CTA's
 * walk (each split's, in the split kernel) whose rescale takes a -inf row max as 0. At least 1;
 * a walk shorter than that has only masking iterations.
 *
 * @param tiles the tiles of the kernel that runs (standard or split)
 * @param launch causal flag, varlen, `seqlen_q`, `seqlen_k` and head dimension
 * @returns the masking iterations per walk
 * @example
 * ```ts
 * import { fa2MaskingSteps } from "./fa2_masking_steps.ts";
 * const tiles = { blockM: 128, blockN: 64 }; // A100, hdim 128
 * const launch = { causal: true, varlen: false, seqlenQ: 256, seqlenK: 256, headDim: 128 };
 * if (fa2MaskingSteps(tiles, launch) !== 2) throw new Error(); // Is_even_MN
 * if (fa2MaskingSteps(tiles, { ...launch, seqlenQ: 250, seqlenK: 250 }) !== 3) throw new Error();
 * if (fa2MaskingSteps(tiles, { ...launch, causal: false }) !== 1) throw new Error();
 * ```
 */
export function fa2MaskingSteps(tiles: Fa2Tiles, launch: Fa2MaskingLaunch): number {
  if (!launch.causal) return 1;
  const evenMN = !launch.varlen && launch.seqlenK % tiles.blockN === 0 &&
    launch.seqlenQ % tiles.blockM === 0 && launch.headDim <= 128;
  const steps = Math.ceil(tiles.blockM / tiles.blockN); // positive ints: C++ ceil_div
  return evenMN ? steps : steps + 1;
}
