/**
 * Which key blocks each split of FA2's split-KV kernel walks. Split s of a row block walks
 * blocks `[s * n_blocks_per_split, min((s + 1) * n_blocks_per_split, n_block_max))`, with
 * `n_blocks_per_split = ceil(ceil(seqlen_k / kBlockN) / num_splits)`; the FA2 sources differ in
 * the `seqlen_k` they read there:
 *
 * - `launch`: the launch's `params.seqlen_k`, which `mha_varlen_fwd` sets to `max_seqlen_k`, the
 *   longest key length of the batch (Dao-AILab/flash-attention v2.8.3, 060c918:
 *   `csrc/flash_attn/src/flash_fwd_kernel.h` :528; the same statement at v2.5.0 :504, v2.6.3 :525
 *   and v2.7.4 :528; `csrc/flash_attn/flash_api.cpp` :102 and :672). A short sequence of a batch
 *   with a long one then has its keys in fewer, fuller splits and the rest empty.
 * - `sequence`: the sequence's own key length `binfo.actual_seqlen_k` (vllm-project/
 *   flash-attention ee4d25b, vLLM 0.11's pin: `flash_fwd_kernel.h` :528, changed there in
 *   90eacc1a "vllm-sqaushed-changes + fa3 building"). vLLM passes `seqused_k` (its `seq_lens`)
 *   with a block table (`vllm_flash_attn/flash_attn_interface.py` :202-207, :233-240), so
 *   `actual_seqlen_k = seqused_k[b]` (`csrc/flash_attn/src/block_info.h` :24): each sequence's
 *   keys are spread over all the splits by its own length.
 *
 * Both read the split count from the launch (`set_params_splitkv` with `max_seqlen_k`, the same in
 * both). Evidence: derived from source only; no GPU ran a batch of unequal key lengths.
 *
 * @module
 */

/** What fixes `n_blocks_per_split`: the launch's longest key length or each sequence's own. */
export type Fa2SplitRange = "launch" | "sequence";

/** The modelled {@link Fa2SplitRange} rules. */
export const FA2_SPLIT_RANGES: readonly Fa2SplitRange[] = Object.freeze(["launch", "sequence"]);

/**
 * `n_blocks_per_split` of one sequence of a split launch.
 *
 * @param range the rule of the FA2 source that runs
 * @param o `launchSeqlenK`: the launch's `seqlen_k` (`max_seqlen_k`); `seqlenK`: the sequence's
 *   key length; `blockN`: the split kernel's kBlockN; `splits`: the launch's split count
 * @returns key blocks per split (0 for a sequence without keys under `sequence`)
 * @example
 * ```ts
 * import { fa2BlocksPerSplit } from "./fa2_split_range.ts";
 * // 4 splits of a launch whose longest sequence has 1000 keys; this one has 300 (3 blocks).
 * const o = { launchSeqlenK: 1000, seqlenK: 300, blockN: 128, splits: 4 };
 * if (fa2BlocksPerSplit("launch", o) !== 2) throw new Error(); // Dao: [0, 1], [2], [], []
 * if (fa2BlocksPerSplit("sequence", o) !== 1) throw new Error(); // vLLM: [0], [1], [2], []
 * ```
 */
export function fa2BlocksPerSplit(
  range: Fa2SplitRange,
  o: {
    readonly launchSeqlenK: number;
    readonly seqlenK: number;
    readonly blockN: number;
    readonly splits: number;
  },
): number {
  const seqlenK = range === "sequence" ? o.seqlenK : o.launchSeqlenK;
  // C++ int division of non-negative values: floor.
  const nBlocks = Math.floor((seqlenK + o.blockN - 1) / o.blockN);
  return Math.floor((nBlocks + o.splits - 1) / o.splits);
}
