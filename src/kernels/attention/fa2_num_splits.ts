/**
 * FlashAttention-2's split-KV heuristic (`num_splits_heuristic` as called by `set_params_splitkv`
 * in `mha_fwd`; identical in Dao >= 2.6 and PyTorch's copy). Spec `stack_pytorch_hf.md` §4.1-§4.2.
 *
 * @module
 */

/** Shape of one `mha_fwd` call, before the S_q = 1 GQA swap. */
export interface Fa2SplitShape {
  /** Batch size. */
  readonly batch: number;
  /** Query heads. */
  readonly heads: number;
  /** KV heads (divides `heads`). */
  readonly kvHeads: number;
  /** Query length per sequence. */
  readonly seqlenQ: number;
  /** Key length per sequence. */
  readonly seqlenK: number;
  /** Head dimension. */
  readonly headDim: number;
  /** `multiProcessorCount` of the device (MIG slices report fewer). */
  readonly multiProcessorCount: number;
}

/**
 * Number of KV splits `mha_fwd` chooses (dropout 0). With S_q = 1 and GQA the query is first
 * swapped to S_q = heads/kvHeads rows and kvHeads heads (`seqlenq_ngroups_swapped`). Float
 * semantics follow the C++: `0.8f * NSM` and the wave efficiency in float, `0.85 * best` in double.
 *
 * @param shape the call's shape and the device's SM count
 * @returns the split count (1 = the standard kernel)
 * @throws {RangeError} when a dimension is not a positive integer
 * @example
 * ```ts
 * import { fa2NumSplits } from "./fa2_num_splits.ts";
 * // Qwen3-4B prefill of 150 tokens on an H100 SXM (132 SMs): two splits (spec §4.1 table).
 * const s = { batch: 1, heads: 32, kvHeads: 8, seqlenQ: 150, seqlenK: 150, headDim: 128 };
 * if (fa2NumSplits({ ...s, multiProcessorCount: 132 }) !== 2) throw new Error();
 * ```
 */
export function fa2NumSplits(shape: Fa2SplitShape): number {
  for (const [k, v] of Object.entries(shape)) {
    if (!Number.isInteger(v) || v < 1) {
      throw new RangeError(
        `Cannot compute FA2 splits: '${k}' must be a positive integer, got ${v}`,
      );
    }
  }
  const swapped = shape.seqlenQ === 1 && shape.heads > shape.kvHeads && shape.headDim % 8 === 0;
  const heads = swapped ? shape.kvHeads : shape.heads;
  const seqlenQ = swapped ? shape.heads / shape.kvHeads : shape.seqlenQ;
  // `set_params_splitkv`'s block_n, of the head size (Dao v2.8.3 and PyTorch `flash_api.cpp`):
  // the split kernel's kBlockN for the modelled head dims (`fa2SplitTiles`).
  const blockN = shape.headDim <= 64 ? 256 : shape.headDim <= 128 ? 128 : 64;
  const nBlocks = Math.ceil(shape.seqlenK / blockN);
  const mBlocks = Math.ceil(seqlenQ / 64);
  return _heuristic(shape.batch * heads * mBlocks, 2 * shape.multiProcessorCount, nBlocks, 128);
}

function _heuristic(bhm: number, nsm: number, nBlocks: number, maxSplits0: number): number {
  const f = Math.fround;
  if (bhm >= f(f(0.8) * nsm)) return 1;
  const maxSplits = Math.min(maxSplits0, nsm, nBlocks);
  const cdiv = (a: number, b: number) => Math.ceil(a / b);
  const eligible = (s: number) => s === 1 || cdiv(nBlocks, s) !== cdiv(nBlocks, s - 1);
  const eff: number[] = [];
  let best = 0;
  for (let s = 1; s <= maxSplits; s++) {
    if (!eligible(s)) {
      eff.push(0);
      continue;
    }
    const waves = f(f(bhm * s) / nsm);
    const e = f(waves / Math.ceil(waves));
    if (e > best) best = e;
    eff.push(e);
  }
  for (let s = 1; s <= maxSplits; s++) {
    if (eligible(s) && (eff[s - 1] as number) >= 0.85 * best) return s;
  }
  return 1;
}
