/**
 * Token ids held to the checkpoint's vocabulary: the one check both drivers (prefill and served
 * replay) make of their tokens before anything runs, and that a caller can make with the config
 * alone (its `vocab_size`), without the weights.
 *
 * @module
 */

/**
 * Throws for the first token id that is no row of the embedding.
 *
 * @param sequences the token ids, by sequence
 * @param o `vocab`: the config's vocabulary size; `action`: what refuses them, for the message
 *   ("run forward", "replay")
 * @throws {RangeError} `Cannot <action>: token id <t> is outside 0..<vocab - 1>`
 * @example
 * ```ts
 * import { checkTokenIds } from "./check_token_ids.ts";
 * checkTokenIds([[0, 511]], { vocab: 512, action: "run forward" });
 * let message = "";
 * try {
 *   checkTokenIds([[1], [512]], { vocab: 512, action: "replay" });
 * } catch (e) {
 *   message = (e as RangeError).message;
 * }
 * if (message !== "Cannot replay: token id 512 is outside 0..511") throw new Error(message);
 * ```
 */
export function checkTokenIds(
  sequences: readonly (readonly number[])[],
  o: { readonly vocab: number; readonly action: string },
): void {
  for (const s of sequences) {
    for (const t of s) {
      if (!Number.isSafeInteger(t) || t < 0 || t >= o.vocab) {
        throw new RangeError(`Cannot ${o.action}: token id ${t} is outside 0..${o.vocab - 1}`);
      }
    }
  }
}
