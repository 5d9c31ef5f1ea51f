/**
 * One query row through FA2's split kernel (`compute_attn_1rowblock_splitkv`, spec
 * `stack_pytorch_hf.md` §4.3): each split walks its own KV blocks with a fresh online softmax and
 * writes an FP32 partial output O_s and a partial LSE_s for the combine.
 *
 * @module
 */
import type { _Fa2Arith } from "./_fa2_arith.ts";
import { _fa2Epilogue } from "./_fa2_epilogue.ts";
import { _fa2RowWalk, type _RowWalkInput } from "./_fa2_row_walk.ts";

/** Inputs of {@link _fa2SplitRow}: the row walk's inputs without the block list. */
export interface _SplitRowInput extends Omit<_RowWalkInput, "blocks"> {
  /** Number of splits (> 1 for `Split = true`). */
  readonly splits: number;
  /** `n_blocks_per_split = ceil(ceil(seqlen_k / kBlockN) / splits)` (seqlen_k: the launch's). */
  readonly blocksPerSplit: number;
  /** `n_block_max` of this row's 64-row block (S_k and the causal limit folded in). */
  readonly nBlockMax: number;
  /** KV walk order of the build. */
  readonly walk: "descending" | "ascending";
  /** Softmax scale, FP32 pattern. */
  readonly softmaxScale: number;
}

/** The partial results of one row, one slot per split. */
export interface _SplitSlots {
  /** O_s, FP32 patterns (length d each). */
  readonly o: Uint32Array[];
  /** LSE_s, FP32 patterns. */
  readonly lse: Uint32Array;
}

/**
 * Runs every split of one row. Split s covers blocks `[s * nbps, min((s + 1) * nbps,
 * n_block_max))`, walked from the top down; an empty range writes O_s = 0 and LSE_s = -inf.
 * Check_inf is on (the walk always treats a -inf row max as 0), as in every split launch of
 * decode and whenever `S_k % 128 != 0`; for an even shape without it the max is never -inf in a
 * non-empty split (non-causal rows see every column of their blocks), so the bits agree.
 *
 * @param input the row, its K/V accessors, the split layout and the build
 * @param arith the build's instructions
 * @returns O_s and LSE_s for every split
 */
export function _fa2SplitRow(input: _SplitRowInput, arith: _Fa2Arith): _SplitSlots {
  const d = input.q.length;
  const o: Uint32Array[] = [];
  const lse = new Uint32Array(input.splits);
  for (let s = 0; s < input.splits; s++) {
    const lo = s * input.blocksPerSplit;
    const hi = Math.min((s + 1) * input.blocksPerSplit, input.nBlockMax);
    if (lo >= hi) {
      o.push(new Uint32Array(d));
      lse[s] = 0xff800000;
      continue;
    }
    const blocks = Array.from({ length: hi - lo }, (_, j) => lo + j);
    if (input.walk === "descending") blocks.reverse();
    const state = _fa2RowWalk({ ...input, blocks });
    const r = _fa2Epilogue(state, {
      arith,
      softmaxScale: input.softmaxScale,
      lse: true,
      split: true,
    });
    o.push(r.outF32);
    lse[s] = r.lse as number;
  }
  return { o, lse };
}
