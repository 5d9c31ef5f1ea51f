/**
 * A token count vLLM derives for a stack (a KV cache block, a pass's token budget, the longest
 * sequence it serves), with the rule it follows from, or why it is not derived here.
 *
 * @module
 */

/**
 * A token count vLLM derives, or why it is not derived.
 *
 * @typeParam T the count (`number`), or every count it may have been (`readonly number[]`)
 */
export type VllmTokens<T extends number | readonly number[]> =
  | {
    readonly ok: true;
    /** The count, in tokens (positions). */
    readonly tokens: T;
    /** Where it comes from, for a reason (`--block-size 32 pinned by the stack`). */
    readonly rule: string;
  }
  | {
    readonly ok: false;
    /** Why it is not derived. */
    readonly reason: string;
  };
