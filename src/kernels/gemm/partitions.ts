/**
 * K partition boundaries of the split-K and sliced-K recipes (spec `gemm.md` §2).
 *
 * @module
 */

import type { KSegment } from "../../hardware/mod.ts";
export type { KSegment };

/**
 * Split-K partitions as CUTLASS 2.x `kernel::Gemm` / `GemmSplitKParallel` cut them: whole K
 * tiles, `gemm_k_size = ceil(K / (split * tileK)) * tileK`, partition s =
 * `[s * gemm_k_size, min((s + 1) * gemm_k_size, K))`. Empty trailing partitions are kept (they
 * contribute a zero partial, as the kernels do).
 *
 * @param k reduction length K
 * @param options `splitK` partitions, `tileK` granularity
 * @returns `splitK` segments
 * @throws {RangeError} for non-positive parameters
 * @example
 * ```ts
 * import { splitKPartitions } from "./partitions.ts";
 * // Qwen3-4B down_proj, K = 9728, split 3 (spec table): [0,3264) [3264,6528) [6528,9728)
 * const p = splitKPartitions(9728, { splitK: 3, tileK: 64 });
 * if (p[1]![0] !== 3264 || p[2]![1] !== 9728) throw new Error();
 * ```
 */
export function splitKPartitions(
  k: number,
  options: { splitK: number; tileK: number },
): KSegment[] {
  const { splitK, tileK } = options;
  if (!(Number.isInteger(k) && k >= 0 && splitK >= 1 && tileK >= 1)) {
    throw new RangeError(`Cannot split K=${k}: splitK and tileK must be positive integers`);
  }
  const size = Math.ceil(k / (splitK * tileK)) * tileK;
  const out: KSegment[] = [];
  for (let s = 0; s < splitK; s++) {
    const start = Math.min(s * size, k);
    out.push([start, Math.min((s + 1) * size, k)]);
  }
  return out;
}

/**
 * The stripes one warp owns in a sliced-K CTA: counting from the slice start, warp p owns
 * `[base + p*warpK, base + (p+1)*warpK)` for every `base = start, start + tileK, ...`, clipped to
 * the slice.
 *
 * @param slice the CTA's K slice
 * @param options `tileK`, `warpK` and the warp partition index `p`
 * @returns the stripes in walk order (non-empty ones only)
 * @example
 * ```ts
 * import { slicedStripes } from "./partitions.ts";
 * const s = slicedStripes([0, 150], { tileK: 64, warpK: 32, p: 1 });
 * if (JSON.stringify(s) !== "[[32,64],[96,128]]") throw new Error();
 * ```
 */
export function slicedStripes(
  slice: KSegment,
  options: { tileK: number; warpK: number; p: number },
): KSegment[] {
  const [start, end] = slice;
  const out: KSegment[] = [];
  for (let base = start; base < end; base += options.tileK) {
    const s = base + options.p * options.warpK;
    const e = Math.min(base + (options.p + 1) * options.warpK, end);
    if (s < e) out.push([s, e]);
  }
  return out;
}
