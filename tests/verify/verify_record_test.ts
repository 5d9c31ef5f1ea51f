import assert from "node:assert/strict";
import { openAssetStore, openBlobStore } from "../../src/assets/mod.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { referenceKWalker } from "../../src/kernels/mod.ts";
import { runAudit, verifyRecord } from "../../src/verify/mod.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";

const H = "ab".repeat(32);

function forwardRecord() {
  return makeClaimRecord({
    log: { logId: "future", seq: 0, prev: GENESIS_PREV },
    hardware: { profile: "h100-sxm", profileSha256: H, count: 8 },
    software: { stack: "pytorch-cublas-linear", components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 4 },
    workload: { kind: "decode_step", model: "qwen3-4b", tokens: [1, 2, 3] },
    fingerprint: { tensor: "hidden_state", dtype: "bf16", shape: [4, 2560], sha256: H },
  });
}

Deno.test("a record of a workload kind this version does not know parses, chains and is NOT_VERIFIED", async () => {
  const log = parseClaimLog(formatClaimLog([forwardRecord()]));
  assert.equal(log.records[0]!.predicate.workload.kind, "decode_step");
  const ctx = {
    store: await openAssetStore(),
    blobs: openBlobStore("/nonexistent"),
    walker: referenceKWalker,
  };
  const r = await verifyRecord(ctx, { log, index: 0 });
  assert.equal(r.status, "NOT_VERIFIED");
  assert.match(r.reason, /workload kind 'decode_step' is not supported/);
  const audit = await runAudit(ctx, { log, auditId: "a", randomness: "00", round: 1, k: 1 });
  assert.equal(audit.verdict, "INCONCLUSIVE");
});

Deno.test("parseClaimLog() still refuses a malformed workload kind", () => {
  const bad = JSON.parse(JSON.stringify(forwardRecord()));
  bad.predicate.workload.kind = "Decode Step";
  assert.throws(
    () => parseClaimLog(JSON.stringify(bad) + "\n"),
    isCode(InputError, "CLAIM_INVALID"),
  );
  bad.predicate.workload = { kind: "decode_step", scale: 0.5 };
  assert.throws(
    () => parseClaimLog(JSON.stringify(bad) + "\n"),
    isCode(InputError, "CLAIM_INVALID"),
  );
});
