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
import { loadGpuProfile } from "../../src/resolve/mod.ts";
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

Deno.test("a GEMM record stating an fp16 accumulator is NOT_VERIFIED by name; fp32 stated is as absent; bf16 with fp16 is refused", async () => {
  const store = await openAssetStore();
  // The real profile digest, so that the record reaches its workload.
  const { sha256: profileSha256 } = await loadGpuProfile(store, "a100");
  const recipe = JSON.parse(
    await Deno.readTextFile(
      new URL("../../profiles/recipes/cutlass-kwalk-128x128x64.json", import.meta.url),
    ),
  );
  const gemm = (accumulator?: string, dtype = "fp16", batch = 2, tp = 1) =>
    makeClaimRecord({
      log: { logId: "acc", seq: 0, prev: GENESIS_PREV },
      hardware: { profile: "a100", profileSha256, count: tp },
      software: { stack: "cutlass-3.5-default", components: {} },
      parallelism: { tp, pp: 1, ep: 1, dp: 1 },
      batch: { size: batch },
      workload: {
        kind: "gemm",
        m: 2,
        n: 8,
        k: 16,
        dtype,
        out: dtype,
        layout: "tn",
        ...(accumulator === undefined ? {} : { accumulator }),
        kernel: { recipe },
        weights: { sha256: H, shape: [8, 16] },
        input: { sha256: H, shape: [2, 16] },
      },
      fingerprint: { tensor: "layers.0.q_proj.out", dtype, shape: [2, 8], sha256: H },
    });
  const ctx = { store, blobs: openBlobStore("/nonexistent"), walker: referenceKWalker };
  const log = parseClaimLog(formatClaimLog([gemm("fp16")]));
  const r = await verifyRecord(ctx, { log, index: 0 });
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /fp16 accumulator .* is not modelled for GEMM records/);
  // Stated on a record that contradicts itself, it hides nothing: the record FAILs.
  const lied = parseClaimLog(formatClaimLog([gemm("fp16", "fp16", 3)]));
  const f = await verifyRecord(ctx, { log: lied, index: 0 });
  assert.equal(f.status, "FAIL", f.reason);
  assert.match(f.reason, /batch size 3 but 2 input rows/);
  // Likewise a sharded GEMM, which is not modelled: NOT_VERIFIED, FAIL when it contradicts itself.
  const sharded = await verifyRecord(ctx, {
    log: parseClaimLog(formatClaimLog([gemm(undefined, "fp16", 2, 2)])),
    index: 0,
  });
  assert.equal(sharded.status, "NOT_VERIFIED", sharded.reason);
  assert.match(sharded.reason, /tp=2 pp=1 ep=1: sharded GEMMs are not modelled/);
  const shardedLie = await verifyRecord(ctx, {
    log: parseClaimLog(formatClaimLog([gemm(undefined, "fp16", 3, 2)])),
    index: 0,
  });
  assert.equal(shardedLie.status, "FAIL", shardedLie.reason);
  assert.match(shardedLie.reason, /batch size 3 but 2 input rows/);
  const fp32 = parseClaimLog(formatClaimLog([gemm("fp32")]));
  assert.equal(
    (fp32.records[0]!.predicate.workload as { accumulator?: string }).accumulator,
    "fp32",
  );
  assert.throws(
    () => parseClaimLog(formatClaimLog([gemm("fp16", "bf16")])),
    isCode(InputError, "CLAIM_INVALID"),
  );
});
