/**
 * The token batch of one forward pass: `{"sequences": [[ids...], ...], "padTokenId"?: n}`
 * (`tokens.json` of `bitaudit model forward`), bounded before anything is allocated from it.
 *
 * @module
 */
import { InputError } from "../../errors.ts";

/** A validated token batch. */
export interface TokenBatch {
  /** Token ids per sequence (each non-empty). */
  readonly sequences: readonly (readonly number[])[];
  /** Pad token id (padded batches of unequal lengths). */
  readonly padTokenId?: number;
}

/** Most sequences in a batch. */
export const MAX_BATCH_SEQUENCES = 4096;
/** Most tokens in a batch (all sequences). */
export const MAX_BATCH_TOKENS = 1 << 17;

/**
 * Validates a parsed token batch.
 *
 * @param json parsed JSON
 * @param vocab vocabulary size (ids must be below it)
 * @returns the batch
 * @throws {InputError} `TOKENS_INVALID` naming the bad field
 * @example
 * ```ts
 * import { parseTokenBatch } from "./parse_token_batch.ts";
 * const b = parseTokenBatch({ sequences: [[1, 2], [3]], padTokenId: 0 }, 16);
 * if (b.sequences.length !== 2 || b.padTokenId !== 0) throw new Error();
 * ```
 */
export function parseTokenBatch(json: unknown, vocab: number): TokenBatch {
  if (typeof json !== "object" || json === null || Array.isArray(json)) _bad("not an object");
  const o = json as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k !== "sequences" && k !== "padTokenId") _bad(`unknown field '${k.slice(0, 40)}'`);
  }
  const seqs = o.sequences;
  if (!Array.isArray(seqs) || seqs.length < 1 || seqs.length > MAX_BATCH_SEQUENCES) {
    _bad(`'sequences' must be an array of 1..${MAX_BATCH_SEQUENCES} sequences`);
  }
  let total = 0;
  const id = (v: unknown, where: string) => {
    if (!Number.isSafeInteger(v) || (v as number) < 0 || (v as number) >= vocab) {
      _bad(`${where} must be a token id in 0..${vocab - 1}`);
    }
    return v as number;
  };
  const sequences = seqs.map((s, i) => {
    if (!Array.isArray(s) || s.length < 1) _bad(`'sequences[${i}]' must be a non-empty array`);
    total += s.length;
    if (total > MAX_BATCH_TOKENS) _bad(`more than ${MAX_BATCH_TOKENS} tokens`);
    return Object.freeze(s.map((t, j) => id(t, `'sequences[${i}][${j}]'`)));
  });
  return Object.freeze({
    sequences: Object.freeze(sequences),
    ...(o.padTokenId === undefined ? {} : { padTokenId: id(o.padTokenId, "'padTokenId'") }),
  });
}

function _bad(why: string): never {
  throw new InputError("TOKENS_INVALID", `Cannot read token batch: ${why}`);
}
