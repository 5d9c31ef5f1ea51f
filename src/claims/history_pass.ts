/**
 * One pass of a serving history, as `parseServingHistory` reads it (the shape facts of a pass and
 * which of its entries the claimed sequence is).
 *
 * @module
 */

/**
 * One pass of a history: its shape facts (structurally the model's `PassShape`) and this
 * sequence's entry.
 */
export interface HistoryPass {
  /** Entries in launch order: each entry's new tokens and cached positions. */
  readonly entries: readonly { readonly query: number; readonly cached: number }[];
  /** Rows of every projection GEMM and norm launch. */
  readonly rows: number;
  /** Rows of the LM head GEMM. */
  readonly logitsRows: number;
  /** MoE models: per MoE layer, the GEMM rows of every expert. */
  readonly expertRows?: readonly (readonly number[])[];
  /**
   * vLLM cascade attention: the pass split attention into a non-causal pass over the prefix of
   * this many tokens its requests share and a pass over the rest, merged by their LSEs
   * (`merge_attn_states`); absent when the pass did not use it.
   */
  readonly cascadePrefix?: number;
  /** Index of the sequence's entry in `entries`. */
  readonly self: number;
}
