/**
 * Whether a token batch fits how its stack batches sequences: a stack that pads unequal
 * sequences to the longest needs the pad token to compute the pad rows; one that flattens the
 * batch pads nothing, so a pad token there would be a field no pass reads. `model forward` and
 * `claims append` refuse the same batches.
 *
 * @module
 */
import type { TokenBatch } from "./parse_token_batch.ts";

/**
 * Why a batch does not fit its stack's batching, or null.
 *
 * @param batch the token batch
 * @param batching the stack's `operators.batching` (default `pad-to-longest`)
 * @returns the reason, to follow "stack '<id>' ", or null
 * @example
 * ```ts
 * import { batchPaddingMismatch } from "./batch_padding.ts";
 * const unequal = { sequences: [[1], [1, 2]] };
 * if (batchPaddingMismatch(unequal, "pad-to-longest") === null) throw new Error();
 * if (batchPaddingMismatch(unequal, "flatten") !== null) throw new Error();
 * if (batchPaddingMismatch({ ...unequal, padTokenId: 0 }, "flatten") === null) throw new Error();
 * ```
 */
export function batchPaddingMismatch(
  batch: TokenBatch,
  batching: "pad-to-longest" | "flatten" = "pad-to-longest",
): string | null {
  if (batching !== "pad-to-longest") {
    return batch.padTokenId === undefined
      ? null
      : "flattens the batch (no pass pads a sequence); leave padTokenId out";
  }
  const lengths = batch.sequences.map((s) => s.length);
  if (batch.padTokenId !== undefined || lengths.every((n) => n === lengths[0])) return null;
  return `pads sequences of ${Math.min(...lengths)} to ${Math.max(...lengths)} tokens; the ` +
    "batch must name its padTokenId";
}
