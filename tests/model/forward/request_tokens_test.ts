/**
 * `requestTokens()`: the tokens a served request had when each of its passes was scheduled
 * (vLLM's `request.num_tokens`), which say which of its passes sample.
 */
import assert from "node:assert/strict";
import { requestTokens } from "../../../src/model/forward/request_tokens.ts";

const one = (query: number, cached: number) => ({ query, cached });

Deno.test("requestTokens(): the prompt, then one more token for each position computed from the prompt's last one on", () => {
  const own = [one(20, 0), one(20, 20), one(1, 40), one(42, 0), one(1, 42)];
  assert.deepEqual(requestTokens(own, 40), [40, 40, 41, 42, 43]);
  // After a prefix-cache hit the request still has its prompt.
  assert.deepEqual(requestTokens([one(8, 32), one(1, 40)], 40), [40, 41]);
  // A recomputation cut short does not take tokens away: the request still has 42 after it.
  assert.deepEqual(requestTokens([one(40, 0), one(1, 40), one(41, 0), one(1, 41)], 40), [
    40,
    41,
    42,
    42,
  ]);
});
