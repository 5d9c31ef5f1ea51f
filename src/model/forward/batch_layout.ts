/**
 * How a prefill batch of sequences becomes the rows every projection, norm and MoE router runs
 * on (the batch shape, which decides GEMM dispatch and MoE expert row counts):
 * - `pad-to-longest` (HF Transformers with `padding=True`, right padding): B x L_max rows, row
 *   `b * L_max + i` is token i of sequence b or, past its end, a pad token; positions 0..L_max-1
 *   in every sequence (HF's default `position_ids`). Pad rows are computed (they reach every
 *   GEMM and the MoE router) but attention runs unpadded and their outputs are never reported.
 * - `flatten` (vLLM-style): M = total tokens, sequences back to back, positions from 0 each.
 *
 * @module
 */

/** The rows of a batch. */
export interface BatchLayout {
  /** Rows of every activation matrix (M). */
  readonly rows: number;
  /** Token id of each row (pads carry the pad token). */
  readonly tokens: Int32Array;
  /** RoPE position of each row. */
  readonly positions: readonly number[];
  /** Row of each real token, sequences in order (length = total tokens). */
  readonly real: Int32Array;
  /** Offsets of each sequence in `real` (B + 1 entries; FA2's cu_seqlens). */
  readonly cuSeqlens: readonly number[];
  /** Whether some rows are padding. */
  readonly padded: boolean;
  /**
   * Whether attention runs as a varlen launch (cu_seqlens over the real tokens): always for a
   * flattened batch, and for a padded batch that has padding (HF unpads it for FA2).
   */
  readonly varlen: boolean;
}

/**
 * Lays out a batch.
 *
 * @param sequences token ids per sequence (each non-empty)
 * @param options `batching` and the `padTokenId` (needed when padding happens)
 * @returns the layout
 * @throws {RangeError} on an empty batch or sequence, or padding without a pad token
 * @example
 * ```ts
 * import { batchLayout } from "./batch_layout.ts";
 * const l = batchLayout([[5, 6, 7], [8]], { batching: "pad-to-longest", padTokenId: 0 });
 * if (l.rows !== 6 || l.tokens.join() !== "5,6,7,8,0,0" || l.real.join() !== "0,1,2,3") throw new Error();
 * const f = batchLayout([[5, 6, 7], [8]], { batching: "flatten" });
 * if (f.rows !== 4 || f.positions.join() !== "0,1,2,0" || f.padded) throw new Error();
 * ```
 */
export function batchLayout(
  sequences: readonly (readonly number[])[],
  options: { readonly batching: "pad-to-longest" | "flatten"; readonly padTokenId?: number },
): BatchLayout {
  if (sequences.length === 0 || sequences.some((s) => s.length === 0)) {
    throw new RangeError("Cannot lay out batch: it needs at least one non-empty sequence");
  }
  const lengths = sequences.map((s) => s.length);
  const total = lengths.reduce((a, b) => a + b, 0);
  const cuSeqlens = [0];
  for (const n of lengths) cuSeqlens.push(cuSeqlens[cuSeqlens.length - 1]! + n);
  const real = new Int32Array(total);
  if (options.batching === "flatten") {
    for (let i = 0; i < total; i++) real[i] = i;
    return Object.freeze({
      rows: total,
      tokens: Int32Array.from(sequences.flat()),
      positions: sequences.flatMap((s) => s.map((_, i) => i)),
      real,
      cuSeqlens,
      padded: false,
      varlen: true,
    });
  }
  const lMax = Math.max(...lengths);
  const padded = lengths.some((n) => n !== lMax);
  const pad = options.padTokenId;
  if (padded && pad === undefined) {
    throw new RangeError("Cannot lay out batch: sequences of unequal length need a pad token id");
  }
  const tokens = new Int32Array(sequences.length * lMax);
  let r = 0;
  sequences.forEach((s, b) => {
    for (let i = 0; i < lMax; i++) {
      tokens[b * lMax + i] = i < s.length ? s[i]! : pad!;
      if (i < s.length) real[r++] = b * lMax + i;
    }
  });
  return Object.freeze({
    rows: tokens.length,
    tokens,
    positions: Array.from({ length: tokens.length }, (_, i) => i % lMax),
    real,
    cuSeqlens,
    padded,
    varlen: padded,
  });
}
