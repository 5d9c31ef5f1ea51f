/**
 * A served sequence's passes held to the token budget of its stack's scheduler
 * (`vllmTokenBudget`): vLLM's V1 scheduler ends a prompt's chunk before the prompt's end, and a
 * preempted request's recomputing chunk before the last token it had, only once the pass has
 * scheduled its whole `max_num_batched_tokens`, and never schedules more. The verifier FAILs a
 * history that breaks it, the prover tools refuse it.
 *
 * @module
 */
import { isVllmStack, type StackProfile, vllmTokenBudget } from "../../kernels/mod.ts";
import { type DecoderConfig, vllmStackMaxModelLen } from "../checkpoint/mod.ts";
import { requestTokens } from "./request_tokens.ts";
import type { PassEntry } from "./serving_shape.ts";

/** What a history's pass totals say of it on a stack. */
export interface TokenBudgetFinding {
  /**
   * `contradiction`: no run of the stack's scheduler makes these passes; `unmodelled`: a chunk is
   * cut and the budget that decides where is not derived here.
   */
  readonly kind: "contradiction" | "unmodelled";
  /** One line. */
  readonly reason: string;
}

/**
 * Holds a served sequence's passes to its stack's token budget on a GPU: a pass scheduling more
 * tokens than every budget the stack's settings give is a contradiction, and so is a pass that
 * ends the sequence's chunk before the request's last token (the prompt's end; after a
 * preemption, the last token the request had: `requestTokens`) with a total other than such a
 * budget (vLLM would have scheduled more of it there), and so are passes no one budget explains
 * (one engine has one: a chunk cut at 2048 tokens and a pass of 8192). A cut chunk whose budget
 * is not derived
 * (a chunking setting, a budget in a form not read, `max_model_len` not derived) is unmodelled.
 *
 * @param config the checkpoint's config (vLLM's `max_model_len` enters a default budget)
 * @param o the stack, the GPU profile's id, the sequence's prompt length, and each pass's
 *   entries with the sequence's own (`self`)
 * @returns the finding, or null when the passes fit (or the stack is not vLLM's)
 * @example
 * ```ts
 * import { tokenBudgetFinding } from "./token_budget_finding.ts";
 * const one = (query: number, cached: number) => ({ entries: [{ query, cached }], self: 0 });
 * const o = { stack: { components: { vllm: "0.11.0" } }, gpu: "a100", prompt: 12 };
 * const config = { maxPositionEmbeddings: 4096 };
 * const f = tokenBudgetFinding(config, { ...o, passes: [one(6, 0), one(6, 6)] });
 * if (f?.kind !== "contradiction") throw new Error();
 * if (tokenBudgetFinding(config, { ...o, passes: [one(12, 0)] }) !== null) throw new Error();
 * ```
 */
export function tokenBudgetFinding(
  config: Pick<
    DecoderConfig,
    "maxPositionEmbeddings" | "ropeScaling" | "ropeTransformers5Only" | "ropeTransformers4Missing"
  >,
  o: {
    readonly stack: Pick<StackProfile, "components">;
    readonly gpu: string;
    readonly prompt: number;
    readonly passes: readonly { readonly entries: readonly PassEntry[]; readonly self: number }[];
  },
): TokenBudgetFinding | null {
  if (!isVllmStack(o.stack)) return null;
  // The length as vLLM reads it (through Transformers 4.5x); none where 4.5x refuses the config.
  const limit = vllmStackMaxModelLen(config, o.stack);
  const budget = vllmTokenBudget(o.stack, {
    gpu: o.gpu,
    maxModelLen: limit.ok ? limit.tokens : null,
  });
  if (budget === null) return null;
  const totals = o.passes.map((q) => q.entries.reduce((s, e) => s + e.query, 0));
  const own = o.passes.map((q) => q.entries[q.self]!);
  const ends = own.map((e) => e.cached + e.query);
  // The tokens the request had when each pass was scheduled: a chunk ending before the last is
  // cut (the prompt's chunks; a preempted request's recomputing ones, over its generated tokens
  // too).
  const had = requestTokens(own, o.prompt);
  const isCut = (i: number) => ends[i]! < had[i]!;
  const chunk = (i: number) =>
    had[i] === o.prompt ? "the prompt's chunk" : "its recomputation's chunk";
  const cut = ends.findIndex((_, i) => isCut(i));
  if (!budget.ok) {
    if (cut < 0) return null;
    return {
      kind: "unmodelled",
      reason: `pass ${cut} ends ${chunk(cut)} before its end, and the token budget that ` +
        `decides where vLLM ends it is not derived: ${budget.reason}`,
    };
  }
  const rule = `max_num_batched_tokens ${budget.tokens.join(" or ")}: ${budget.rule}`;
  const over = totals.findIndex((t) => t > budget.tokens.at(-1)!);
  if (over >= 0) {
    return {
      kind: "contradiction",
      reason: `pass ${over} schedules ${totals[over]} tokens, more than vLLM's scheduler takes ` +
        `in one pass (${rule})`,
    };
  }
  const early = ends.findIndex((_, i) => isCut(i) && !budget.tokens.includes(totals[i]!));
  if (early >= 0 && had[early] === o.prompt) {
    return {
      kind: "contradiction",
      reason: `pass ${early} ends the prompt's chunk at ${ends[early]} of its ${o.prompt} tokens ` +
        `with ${totals[early]} tokens scheduled, where vLLM's scheduler ends a chunk before its ` +
        `prompt's end only once the pass has used its whole token budget (${rule})`,
    };
  }
  if (early >= 0) {
    return {
      kind: "contradiction",
      reason: `pass ${early} ends its recomputation's chunk at ${ends[early]} of the ` +
        `${had[early]} tokens the request had after its preemption, with ${totals[early]} tokens ` +
        "scheduled, where vLLM's scheduler recomputes all of a preempted request's tokens " +
        "(Scheduler.schedule(): request.num_tokens - num_computed_tokens) and ends a chunk " +
        `before them only once the pass has used its whole token budget (${rule})`,
    };
  }
  // One engine has one budget: every cut at it, no pass past it.
  const cuts = ends.flatMap((_, i) => isCut(i) ? [i] : []);
  if (cuts.length === 0) return null;
  const first = cuts[0]!;
  const b = totals[first]!;
  const other = cuts.find((i) => totals[i] !== b) ?? totals.findIndex((t) => t > b);
  if (other < 0) return null;
  const what = isCut(other) ? `ends ${chunk(other)} with` : "schedules";
  return {
    kind: "contradiction",
    reason: `pass ${first} ends ${chunk(first)} with ${b} tokens scheduled and pass ${other} ` +
      `${what} ${totals[other]}: one engine runs with one token budget, and no budget ends the ` +
      `first chunk and allows the second pass (${rule})`,
  };
}
