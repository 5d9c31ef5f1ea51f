/**
 * The shape facts of a serving engine's forward passes (continuous batching on a `flatten`
 * stack: HF Transformers' `generate_batch` with `attn_implementation="paged_attention"`, which
 * calls `flash_attn_varlen_func` over the gathered KV cache): the entries of each pass (prefill chunk or decode step, query and cached lengths), the
 * rows each GEMM saw, the LM head's rows, and per MoE layer the rows each expert's GEMMs saw.
 *
 * These facts, not the neighbours' token values, are what the other sequences of a pass
 * contribute to one sequence's bits: rows never mix in a GEMM (each output element is a K-walk
 * over one row), the norms reduce each row alone once the launch (row count) is fixed, RoPE and
 * the activations are per element, and attention reads only the sequence's own keys; the split
 * count comes from the launch's batch size and longest key length, and so do the split key ranges
 * under Dao's flash-attn (vLLM's FA2 takes them from the sequence's own key length).
 *
 * @module
 */
import { requestTokens } from "./request_tokens.ts";

/** One entry of a pass: a prefill chunk or a decode step of one sequence. */
export interface PassEntry {
  /** New tokens the pass computes for the sequence (1 for a decode step). */
  readonly query: number;
  /** Tokens already in the sequence's KV cache before the pass. */
  readonly cached: number;
}

/** The shape facts of one forward pass. */
export interface PassShape {
  /** Entries in launch order (cu_seqlens order). */
  readonly entries: readonly PassEntry[];
  /** Rows of every projection GEMM and norm launch (flattened: the sum of query lengths). */
  readonly rows: number;
  /** Rows of the LM head GEMM (one per entry that emits a token). */
  readonly logitsRows: number;
  /**
   * MoE models: for each MoE layer (in layer order), the GEMM rows of every expert (routed
   * (token, slot) pairs of the whole pass), `experts` numbers per layer.
   */
  readonly expertRows?: readonly (readonly number[])[];
}

/** A sequence computed through some passes. */
export interface ServedSequence {
  /** Its tokens in order (prompt then generated); every position a pass computes is here. */
  readonly tokens: readonly number[];
  /**
   * Prompt length. A step emits a token when it reaches the tokens the request had at its pass
   * (`requestTokens`): the prompt's end, then each generated token; a chunk that stops short of
   * them, a recomputation's after a preemption included, emits none.
   */
  readonly prompt: number;
  /** The sequence's entry in each pass that touched it, in pass order. */
  readonly steps: readonly { readonly pass: number; readonly entry: number }[];
  /** Positions already in its KV cache before the first step (default 0; see `kv` options). */
  readonly start?: number;
  /**
   * Whether a step may start elsewhere than where the step before it ended (a request preempted
   * and restarted: below, recomputed; above, from a prefix-cache hit of positions other requests
   * computed, which the caller's `cacheReuse` has held to its stack): its rows are laid out from
   * its own cached count. Such work can be checked, not replayed (a caller passes `refused`);
   * default false, a contradiction.
   */
  readonly recomputes?: boolean;
}

/** A block of rows: one sequence's entry in one pass. */
export interface RowBlock {
  /** Sequence index (in the work's `sequences`). */
  readonly seq: number;
  /** Step index within the sequence. */
  readonly step: number;
  /** Pass index. */
  readonly pass: number;
  /** Entry index in the pass. */
  readonly entry: number;
  /** First row of the block in the computed activations. */
  readonly row0: number;
  /** First position (= the entry's cached length). */
  readonly pos0: number;
  /** Rows (= the entry's query length). */
  readonly rows: number;
  /**
   * Whether the block's last row emits a token: it reaches the tokens the request had at its pass
   * (`requestTokens`); a partial prefill's sampled token is discarded.
   */
  readonly emits: boolean;
}

/** Largest number of passes, entries per pass, or rows per pass accepted. */
export const SERVING_LIMITS: Readonly<{ passes: number; entries: number; rows: number }> = Object
  .freeze({
    passes: 1 << 16,
    entries: 4096,
    rows: 1 << 20,
  });

/**
 * Checks passes and sequences against each other and lays out the computed rows (blocks in
 * pass order, then entry order).
 *
 * @param passes the pass shapes
 * @param sequences the computed sequences
 * @param o `flatten`: whether GEMM rows must be the sum of query lengths; `experts` (MoE
 *   experts per layer) and `moeLayers` (number of MoE layers) when expert rows are recorded
 * @returns the row blocks and the total rows
 * @throws {RangeError} naming the pass or sequence that contradicts the others
 * @example
 * ```ts
 * import { servingRows } from "./serving_shape.ts";
 * const passes = [
 *   { entries: [{ query: 3, cached: 0 }], rows: 3, logitsRows: 1 },
 *   { entries: [{ query: 1, cached: 3 }, { query: 2, cached: 0 }], rows: 3, logitsRows: 2 },
 * ];
 * const r = servingRows(passes, [{ tokens: [5, 6, 7, 8], prompt: 3, steps: [
 *   { pass: 0, entry: 0 }, { pass: 1, entry: 0 }] }], { flatten: true });
 * if (r.rows !== 4 || r.blocks[1]!.pos0 !== 3 || !r.blocks[0]!.emits) throw new Error();
 * ```
 */
export function servingRows(
  passes: readonly PassShape[],
  sequences: readonly ServedSequence[],
  o: {
    readonly flatten: boolean;
    readonly experts?: number;
    readonly moeLayers?: number;
    readonly topK?: number;
  },
): { readonly blocks: readonly RowBlock[]; readonly rows: number } {
  if (passes.length < 1 || passes.length > SERVING_LIMITS.passes) {
    throw new RangeError(
      `Cannot lay out passes: ${passes.length} passes (1..${SERVING_LIMITS.passes})`,
    );
  }
  passes.forEach((p, i) => _checkPass(p, i, o));
  const taken = new Set<string>();
  const blocks: Omit<RowBlock, "row0">[] = [];
  sequences.forEach((s, seq) => {
    let pos = s.start ?? 0;
    let last = -1;
    const own: Omit<RowBlock, "row0" | "emits">[] = [];
    s.steps.forEach(({ pass, entry }, step) => {
      const p = passes[pass];
      const e = p?.entries[entry];
      if (p === undefined || e === undefined || pass <= last) {
        throw new RangeError(
          `Cannot lay out sequence ${seq}: step ${step} names pass ${pass} entry ${entry}, ` +
            "which does not exist or is not after the previous step",
        );
      }
      const key = `${pass}/${entry}`;
      if (taken.has(key)) {
        throw new RangeError(
          `Cannot lay out sequence ${seq}: pass ${pass} entry ${entry} is taken`,
        );
      }
      taken.add(key);
      if (s.recomputes === true) pos = e.cached;
      if (e.cached !== pos) {
        throw new RangeError(
          `Cannot lay out sequence ${seq}: pass ${pass} says ${e.cached} cached tokens, ` +
            `the earlier passes computed ${pos}`,
        );
      }
      if (pos + e.query > s.tokens.length) {
        throw new RangeError(
          `Cannot lay out sequence ${seq}: pass ${pass} computes positions up to ` +
            `${pos + e.query - 1}, the sequence has ${s.tokens.length} tokens`,
        );
      }
      own.push({ seq, step, pass, entry, pos0: pos, rows: e.query });
      pos += e.query;
      last = pass;
    });
    const had = requestTokens(own.map((b) => ({ query: b.rows, cached: b.pos0 })), s.prompt);
    own.forEach((b, i) => blocks.push({ ...b, emits: b.pos0 + b.rows >= had[i]! }));
  });
  blocks.sort((a, b) => a.pass - b.pass || a.entry - b.entry);
  let row0 = 0;
  const laid = blocks.map((b) => {
    const r = Object.freeze({ ...b, row0 });
    row0 += b.rows;
    return r;
  });
  return Object.freeze({ blocks: Object.freeze(laid), rows: row0 });
}

function _checkPass(
  p: PassShape,
  i: number,
  o: {
    readonly flatten: boolean;
    readonly experts?: number;
    readonly moeLayers?: number;
    readonly topK?: number;
  },
): void {
  const bad = (why: string): never => {
    throw new RangeError(`Cannot lay out passes: pass ${i} ${why}`);
  };
  const n = p.entries.length;
  if (n < 1 || n > SERVING_LIMITS.entries) bad(`has ${n} entries (1..${SERVING_LIMITS.entries})`);
  let sum = 0;
  for (const e of p.entries) {
    if (!Number.isSafeInteger(e.query) || e.query < 1 || !Number.isSafeInteger(e.cached)) {
      bad("has an entry whose lengths are not positive integers");
    }
    if (e.cached < 0) bad("has a negative cached length");
    sum += e.query;
  }
  if (!Number.isSafeInteger(p.rows) || p.rows < 1 || p.rows > SERVING_LIMITS.rows) {
    bad(`has ${p.rows} rows (1..${SERVING_LIMITS.rows})`);
  }
  if (o.flatten && p.rows !== sum) {
    bad(`says ${p.rows} GEMM rows, its entries flatten to ${sum}`);
  }
  if (!o.flatten && p.rows < sum) bad(`says ${p.rows} GEMM rows for ${sum} tokens`);
  if (!Number.isSafeInteger(p.logitsRows) || p.logitsRows < 0 || p.logitsRows > n) {
    bad(`says ${p.logitsRows} logits rows for ${n} entries`);
  }
  if (o.moeLayers === undefined) {
    if (p.expertRows !== undefined) bad("records expert rows for a dense model");
    return;
  }
  const x = p.expertRows;
  if (x === undefined) return;
  if (x.length !== o.moeLayers || x.some((l) => l.length !== o.experts)) {
    bad(`records expert rows that are not ${o.moeLayers} layers x ${o.experts} experts`);
  }
  for (const layer of x) {
    if (layer.some((c) => !Number.isSafeInteger(c) || c < 0 || c > p.rows)) {
      bad("records an expert row count outside 0..rows");
    }
    // Every row routes to top-k distinct experts: the counts add up to rows x k.
    const sum = layer.reduce((a, c) => a + c, 0);
    if (o.topK !== undefined && sum !== p.rows * o.topK) {
      bad(`records expert rows adding up to ${sum}, not ${p.rows} rows x top-${o.topK}`);
    }
  }
}
