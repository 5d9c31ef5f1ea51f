/**
 * What a model record's fingerprint must cover for a bit-exact match to vouch for the whole
 * record. Under causal attention the final-norm row of position p depends only on the tokens up
 * to p and on the passes that computed them, so a fingerprint of earlier positions alone leaves
 * the later tokens, and the passes that computed only them, unbound: a record could claim any of
 * them and still match. The last position of each sequence depends on every earlier token of that
 * sequence, through the keys and values of every pass that computed them, so it must be among the
 * fingerprinted positions (others may be added).
 *
 * @module
 */
import type { ModelForwardWorkload } from "./model_forward_workload.ts";
import type { SequenceWorkload } from "./sequence_workload.ts";

/**
 * Names the first position a model record's fingerprint must cover and does not.
 *
 * @param w a `model_forward` or `sequence` workload
 * @returns why the fingerprint falls short (one line), or null when it covers the last position
 *   of every sequence (`model_forward`: each sequence's last token; `sequence`: the last
 *   computed position, the last generated token being no input)
 * @example
 * ```ts
 * import { uncoveredPosition } from "./fingerprint_coverage.ts";
 * const w = { kind: "sequence", tokens: { prompt: [1, 2, 3], generated: [4] }, positions: [1] };
 * if (uncoveredPosition(w as never) === null) throw new Error();
 * ```
 */
export function uncoveredPosition(w: ModelForwardWorkload | SequenceWorkload): string | null {
  if (w.kind === "sequence") {
    const { prompt, generated } = w.tokens;
    const last = (generated.length === 0 ? prompt.length : prompt.length + generated.length - 1) -
      1;
    return w.positions.includes(last) ? null : `the fingerprint leaves out the last computed ` +
      `position ${last}: the tokens after its fingerprinted positions, and the passes that ` +
      `computed them, are not bound by it`;
  }
  const covered = new Set(w.positions.map(([s, p]) => `${s},${p}`));
  for (const [i, s] of w.tokens.sequences.entries()) {
    if (!covered.has(`${i},${s.length - 1}`)) {
      return `the fingerprint leaves out the last token of sequence ${i} (position ` +
        `${s.length - 1}): the tokens after its fingerprinted positions are not bound by it`;
    }
  }
  return null;
}
