/**
 * The largest activation a one-pass forward of a token batch allocates, as the audit bounds it
 * before anything is computed: padded rows (sequences x the longest, at least the flattened
 * count) by the widest row of any stage (MoE: top-k expert rows; eager attention: the longest
 * sequence's scores).
 *
 * Only HF's eager attention holds a sequence's score rows ([L, L] for each head: its batched
 * GEMMs and softmax, `eager_attention.ts`). FlashAttention-2 (Dao's, PyTorch's bundled copy,
 * vLLM's paged one) walks tiles of keys and holds nothing wider than a row of the stage before
 * it: Q, K, V and the output are [rows, heads x d] at most, a KV head's key tiles and their
 * packed panels are its keys x d, and each row of a tile of kBlockM rows holds kBlockN scores
 * and at most 128 split accumulators of d. An FA2 prefill of L tokens is bounded by those rows, not by
 * L x L (a 32,768-token FA2 forward makes no [32768, 32768] tensor).
 *
 * @module
 */
import { attentionBackend, type StackProfile } from "../kernels/mod.ts";
import type { DecoderConfig } from "../model/mod.ts";

/**
 * The activation's shape [rows, widest].
 *
 * @param c the decoder's config
 * @param o `lens`: each sequence's length (at least one sequence); `stack`: the stack that runs
 *   the forward (its prefill attention says whether score rows are held)
 * @returns [padded rows, widest row]
 * @example
 * ```ts
 * import { forwardActivation } from "./forward_activation.ts";
 * import type { DecoderConfig } from "../model/mod.ts";
 * import type { StackProfile } from "../kernels/mod.ts";
 * const c = { hidden: 4, intermediate: 8, heads: 1, headDim: 4 } as DecoderConfig;
 * const stack = (attention: string) => ({ operators: { attention } }) as StackProfile;
 * const [rows, widest] = forwardActivation(c, { lens: [3, 5], stack: stack("fa2-dao-fastmath") });
 * if (rows !== 10 || widest !== 8) throw new Error();
 * if (forwardActivation(c, { lens: [3, 50], stack: stack("eager") })[1] !== 50) throw new Error();
 * ```
 */
export function forwardActivation(
  c: DecoderConfig,
  o: { readonly lens: readonly number[]; readonly stack: StackProfile },
): [number, number] {
  const longest = Math.max(...o.lens);
  const widest = Math.max(
    c.hidden,
    c.intermediate,
    c.heads * c.headDim,
    c.moe === undefined ? 0 : Math.max(c.moe.experts, c.moe.topK * c.moe.intermediate),
    _holdsScoreRows(o.stack) ? longest : 0,
  );
  return [_paddedRows(o.lens), widest];
}

/**
 * The padded rows of a one-pass forward: sequences x the longest (at least the flattened count),
 * whatever the stack; `forwardActivation`'s rows and `forwardProducts`' GEMM rows.
 *
 * @param lens each sequence's length (at least one sequence)
 * @returns the row count
 */
export function _paddedRows(lens: readonly number[]): number {
  return Math.max(...lens) * lens.length;
}

/**
 * Whether the stack's prefill attention holds a sequence's score rows: the modelled backend with
 * no FA2 build (HF's eager attention). A backend that is not modelled computes nothing (the
 * forward is refused for it), and a stack without operators runs no attention.
 */
function _holdsScoreRows(stack: StackProfile): boolean {
  const id = stack.operators?.attention;
  if (id === undefined) return false;
  const backend = attentionBackend(id, "prefill");
  return backend.modelled && backend.build === null;
}
