/**
 * `parseClaimLogInSteps()`: the same log, digests, root and refusals as `parseClaimLog()`, with
 * pauses between steps and the progress told at each.
 */
import assert from "node:assert/strict";
import {
  type ClaimRecord,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  parseClaimLogInSteps,
  recordDigest,
} from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";

function chain(n: number): ClaimRecord[] {
  const out: ClaimRecord[] = [];
  for (let seq = 0; seq < n; seq++) {
    out.push(makeClaimRecord({
      log: { logId: "steps", seq, prev: seq === 0 ? GENESIS_PREV : recordDigest(out[seq - 1]!) },
      hardware: { profile: "a100", profileSha256: "ab".repeat(32), count: 1 },
      software: { stack: "pytorch-cublas-linear", components: {} },
      parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
      batch: { size: 1 },
      workload: { kind: "future", tokens: [seq] },
      fingerprint: { tensor: "y", dtype: "bf16", shape: [1, 8], sha256: "cd".repeat(32) },
    }));
  }
  return out;
}

Deno.test("parseClaimLogInSteps() gives parseClaimLog()'s log, pausing (timed after every line) and telling its progress", async () => {
  const text = formatClaimLog(chain(300));
  let pauses = 0;
  const seen: [number, number][] = [];
  const log = await parseClaimLogInSteps(text, {
    pause: () => {
      pauses++;
      return Promise.resolve();
    },
    progress: (done, total) => seen.push([done, total]),
    stepMs: 0, // pause after every line (a few lines may each take seconds)
  });
  assert.deepEqual(log, parseClaimLog(text));
  assert.equal(pauses, 300);
  assert.equal(seen.length, 301);
  assert.deepEqual(seen.slice(0, 2), [[1, 300], [2, 300]]);
  assert.deepEqual(seen.at(-1), [300, 300]);
  // Timed after every line, not every 64th: a log of three lines pauses too.
  let few = 0;
  await parseClaimLogInSteps(formatClaimLog(chain(3)), {
    pause: () => Promise.resolve(void few++),
    stepMs: 0,
  });
  assert.equal(few, 3);
});

Deno.test("parseClaimLogInSteps() refuses what parseClaimLog() refuses, with the same code and line", async () => {
  const records = chain(100);
  const broken = formatClaimLog([...records.slice(0, 70), ...records.slice(71)]);
  const pause = () => Promise.resolve();
  const codeOf = async (f: () => unknown) => {
    try {
      await f();
    } catch (e) {
      if (e instanceof InputError) return `${e.code} ${e.message}`;
      throw e;
    }
    return "accepted";
  };
  for (const text of [broken, "", "{\n", formatClaimLog(records).replace("steps", "other")]) {
    const sync = await codeOf(() => parseClaimLog(text));
    assert.notEqual(sync, "accepted");
    assert.equal(await codeOf(() => parseClaimLogInSteps(text, { pause, stepMs: 0 })), sync);
  }
});
