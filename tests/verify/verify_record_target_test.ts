/**
 * `verifyRecord()` verifies only a record of the log it is handed, as the log committed to it: an
 * index outside the log, or a record changed after the log was parsed, is a RangeError, never a
 * verdict (an edited fingerprint turned a FAIL into a PASS under the unchanged root).
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";

const store = await openAssetStore();
const log = parseClaimLog(formatClaimLog([
  makeClaimRecord({
    log: { logId: "target", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: "a100", profileSha256: "ab".repeat(32), count: 1 },
    software: { stack: "pytorch-cublas-linear", components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 1 },
    workload: { kind: "future", tokens: [1] },
    fingerprint: { tensor: "y", dtype: "bf16", shape: [1, 8], sha256: "cd".repeat(32) },
  }),
]));
const ctx = {
  store,
  walker: engineWalker,
  blobs: { dir: "memory", get: () => Promise.resolve(null) },
};

Deno.test("verifyRecord() refuses an index outside the log and a record edited after parsing", async () => {
  for (const index of [-1, 1, 0.5, Number.NaN]) {
    await assert.rejects(verifyRecord(ctx, { log, index }), RangeError, String(index));
  }
  // (A parsed log's records are a read-only view over its lines: the copy is edited.)
  const edited = { ...log, records: structuredClone([...log.records]) };
  (edited.records[0]!.predicate.fingerprint as { sha256: string }).sha256 = "ef".repeat(32);
  await assert.rejects(verifyRecord(ctx, { log: edited, index: 0 }), /no longer hashes/);
  // The record as parsed is verified (a kind this version does not model: NOT_VERIFIED).
  assert.equal((await verifyRecord(ctx, { log, index: 0 })).status, "NOT_VERIFIED");
});
