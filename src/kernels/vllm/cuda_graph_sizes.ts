/**
 * vLLM 0.11's CUDA-graph capture sizes and the batch padding they imply (spec
 * `parallel_and_vllm.md` §B5), derived from source only (vLLM c31246800c98272ab28b7d454d6b72f38e396972:
 * `vllm/config/scheduler.py:72-78, 239-244` for the default, `vllm/config/vllm.py:576-600` for the
 * list, `vllm/config/compilation.py:534-582` for `bs_to_padded_graph_size`). A pass of `n` tokens
 * whose graph was captured runs every non-attention operator (GEMMs, norms, activations, the
 * all-reduce) with M = the padded size, so the kernels a catalog dispatches follow the padded
 * count; attention runs on the real sequences.
 *
 * @module
 */

/** What fixes the capture sizes. */
export interface CaptureSizeOptions {
  /** `--max-num-seqs`. */
  readonly maxNumSeqs: number;
  /** `--max-num-batched-tokens` (sizes above it are dropped). */
  readonly maxNumBatchedTokens: number;
  /**
   * `--cuda-graph-sizes` as given: empty or absent for the default `[min(2 * maxNumSeqs, 512)]`,
   * one value for the pattern up to it, several for the list itself.
   */
  readonly cudaGraphSizes?: readonly number[];
  /** `--enforce-eager`: no graphs. */
  readonly enforceEager?: boolean;
  /** Sequence parallelism under TP (changes the list; not modelled). */
  readonly sequenceParallel?: boolean;
}

/**
 * The capture sizes, ascending (empty under `--enforce-eager`).
 *
 * @param o the engine settings
 * @returns the sizes
 * @throws {RangeError} for non-positive settings or sequence parallelism (not modelled)
 * @example
 * ```ts
 * import { vllmCaptureSizes } from "./cuda_graph_sizes.ts";
 * const s = vllmCaptureSizes({ maxNumSeqs: 8, maxNumBatchedTokens: 2048 });
 * if (s.join() !== "1,2,4,8,16") throw new Error(s.join()); // [min(16, 512)]
 * ```
 */
export function vllmCaptureSizes(o: CaptureSizeOptions): number[] {
  for (
    const [name, v] of [["maxNumSeqs", o.maxNumSeqs], [
      "maxNumBatchedTokens",
      o.maxNumBatchedTokens,
    ]] as const
  ) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new RangeError(`Cannot derive capture sizes: ${name} ${v} is not a positive integer`);
    }
  }
  if (o.enforceEager === true) return [];
  if (o.sequenceParallel === true) {
    throw new RangeError(
      "Cannot derive capture sizes: sequence parallelism rewrites the list (not modelled)",
    );
  }
  const given = o.cudaGraphSizes ?? [];
  for (const v of given) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new RangeError(`Cannot derive capture sizes: size ${v} is not a positive integer`);
    }
  }
  const sizes = given.length === 0 ? [Math.min(o.maxNumSeqs * 2, 512)] : given;
  let list: number[];
  if (sizes.length === 1) {
    const max = sizes[0]!;
    list = [1, 2, 4].filter((i) => i <= max);
    for (let i = 8; i <= max; i += 8) list.push(i);
  } else {
    list = [...sizes].sort((a, b) => a - b);
  }
  return [...new Set(list.filter((s) => s <= o.maxNumBatchedTokens))];
}

/**
 * The token count a pass of `n` runs its graph-captured operators with: the smallest capture
 * size at least `n`; `n` itself above the largest (no graph) or without graphs.
 *
 * @param n the pass's tokens (0 or more)
 * @param sizes the capture sizes ({@link vllmCaptureSizes})
 * @returns the padded count
 * @throws {RangeError} when `n` is not a non-negative integer
 * @example
 * ```ts
 * import { vllmPaddedTokens } from "./cuda_graph_sizes.ts";
 * const sizes = [1, 2, 4, 8, 16];
 * if (vllmPaddedTokens(3, sizes) !== 4 || vllmPaddedTokens(9, sizes) !== 16) throw new Error();
 * if (vllmPaddedTokens(17, sizes) !== 17) throw new Error(); // above the largest: no graph
 * ```
 */
export function vllmPaddedTokens(n: number, sizes: readonly number[]): number {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Cannot pad: ${n} tokens is not a non-negative integer`);
  }
  if (n === 0) return 0;
  let best = Infinity;
  for (const s of sizes) if (s >= n && s < best) best = s;
  return best === Infinity ? n : best;
}
