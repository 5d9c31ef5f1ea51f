/**
 * A served sequence's passes held to vLLM's token budget (`tokenBudgetFinding`): the V1 scheduler
 * ends a prompt's chunk before the prompt's end only once the pass has scheduled its whole
 * `max_num_batched_tokens`, and never schedules more.
 *
 * @module
 */
import type { ClaimPredicate, HistoryPass } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { type DecoderConfig, tokenBudgetFinding } from "../model/mod.ts";
import { _pastLimit } from "./_model_support.ts";
import { _Stop } from "./_stop.ts";

/**
 * Checks a served sequence's history against the token budget of its stack's scheduler
 * (`tokenBudgetFinding`). A pass scheduling more tokens than every budget the stack's settings
 * give on the record's GPU FAILs, and so does a pass that ends the sequence's prompt chunk before
 * its prompt's end with a total other than such a budget: vLLM would have scheduled more of the
 * prompt there, so the chunk boundaries, and with them the GEMM rows and attention splits of the
 * later passes, are no run of the stack's. Where the record states settings beyond the stack's
 * (which may set another budget), it is NOT_VERIFIED; so is a cut chunk whose budget is not
 * derived. Callers replay the passes all the same and say such a NOT_VERIFIED only after a match
 * (the recorded passes fix the computation whatever the budget): a falsified record still
 * FAILs. Stacks other than vLLM's are not checked.
 *
 * @param p the record's predicate (its stated components)
 * @param o the record's stack and GPU profile, the checkpoint's config, the sequence's prompt
 *   length and its history's passes (a model-forward record: one pass of its whole batch)
 * @throws {_Stop} FAIL naming the pass, its tokens and the budgets; NOT_VERIFIED as above
 */
export function _checkServedBudget(
  p: ClaimPredicate,
  o: {
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly config: DecoderConfig;
    readonly prompt: number;
    readonly passes: readonly Pick<HistoryPass, "entries" | "self">[];
  },
): void {
  const f = tokenBudgetFinding(o.config, { ...o, gpu: o.profile.id });
  if (f === null) return;
  if (f.kind === "unmodelled") {
    throw new _Stop("NOT_VERIFIED", `stack '${o.stack.id}': ${f.reason}`);
  }
  throw _pastLimit(p, {
    ...o,
    what: "stack",
    why: f.reason,
    may: "may set another token budget: that run is not modelled",
  });
}
