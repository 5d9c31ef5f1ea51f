/**
 * The cascade attention a serving history claims (`cascadePrefix`), checked against the stack
 * and against the conditions under which vLLM 0.11 takes that path. Cascade attention itself is
 * not modelled: a claim it could have made is NOT_VERIFIED, but only after every other check of
 * the record (the caller's), so that naming it never hides a FAIL.
 *
 * @module
 */
import type { HistoryPass } from "../claims/mod.ts";
import { isVllmStack, type StackProfile } from "../kernels/mod.ts";
import { _Stop } from "./_stop.ts";

/**
 * vLLM 0.11's `use_cascade_attention` (`v1/attention/backends/flash_attn.py:636-700`, spec notes
 * parallel_and_vllm.md B4): cascade only when the common prefix is at least 256 tokens and the
 * pass schedules at least 8 requests.
 */
const VLLM_CASCADE = Object.freeze({ minPrefix: 256, minRequests: 8 });

/**
 * Checks the history's cascade claims.
 *
 * @param passes the history's passes
 * @param stack the record's stack
 * @returns null when no pass claims cascade attention, else why the record is NOT_VERIFIED (for
 *   the caller to throw once everything else has been checked)
 * @throws {_Stop} FAIL for a claim the stack cannot make: cascade attention on a stack other than
 *   vLLM, a prefix or request count below vLLM's thresholds, or a prefix past a request's cached
 *   tokens
 */
export function _cascadeClaim(
  passes: readonly HistoryPass[],
  stack: StackProfile,
): string | null {
  const first = passes.findIndex((q) => q.cascadePrefix !== undefined);
  if (first < 0) return null;
  if (!isVllmStack(stack)) {
    // Cascade attention is vLLM's alone: on any other stack the claim contradicts the stack.
    throw new _Stop(
      "FAIL",
      `record contradicts its stack: pass ${first} claims vLLM's cascade attention, which ` +
        `stack '${stack.id}' never runs`,
    );
  }
  passes.forEach((q, i) => {
    const prefix = q.cascadePrefix;
    if (prefix === undefined) return;
    const bad = (why: string): never => {
      throw new _Stop(
        "FAIL",
        `record contradicts its stack: pass ${i} claims vLLM's cascade attention over a ` +
          `${prefix}-token prefix, ${why}`,
      );
    };
    if (prefix < VLLM_CASCADE.minPrefix) {
      bad(
        `which vLLM 0.11 uses only for a common prefix of ${VLLM_CASCADE.minPrefix} tokens or more`,
      );
    }
    if (q.entries.length < VLLM_CASCADE.minRequests) {
      bad(
        `with ${q.entries.length} request(s); vLLM 0.11 uses it only for ` +
          `${VLLM_CASCADE.minRequests} or more`,
      );
    }
    // The prefix is attended non-causally by every query of the pass (then merged with the
    // causal rest): exact only when each request has the whole prefix in its KV cache already.
    const short = q.entries.findIndex((e) => e.cached < prefix);
    if (short >= 0) {
      bad(
        `longer than the ${q.entries[short]!.cached} cached tokens of entry ${short} ` +
          "(every request must hold the shared prefix before the pass)",
      );
    }
  });
  return `pass ${first} ran vLLM's cascade attention (a shared prefix of ` +
    `${passes[first]!.cascadePrefix} tokens attended separately and merged by LSE with ` +
    "merge_attn_states), which is not modelled; serve with disable_cascade_attn to be " +
    "verifiable";
}
