import assert from "node:assert/strict";
import { type BlobStore, openAssetStore, openBlobStore } from "../../src/assets/mod.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { referenceKWalker } from "../../src/kernels/mod.ts";
import { runAudit, verifyRecord } from "../../src/verify/mod.ts";
import { loadGpuProfile } from "../../src/resolve/mod.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { PARALLEL_LIES, TP_LAYOUT_STACK, withParallelism } from "./_parallel_lies.ts";

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

Deno.test("a record not included in the committed log FAILs before its workload is read (a log handed over with another log's records and digests, its root kept)", async () => {
  const log = parseClaimLog(formatClaimLog([forwardRecord()]));
  const p = forwardRecord().predicate;
  const swapped = makeClaimRecord({
    ...p,
    fingerprint: { ...p.fingerprint, sha256: "cd".repeat(32) },
  });
  const other = parseClaimLog(formatClaimLog([swapped]));
  assert.notEqual(other.root, log.root);
  const forged = { ...log, records: other.records, digests: other.digests };
  const ctx = {
    store: await openAssetStore(),
    blobs: openBlobStore("/nonexistent"),
    walker: referenceKWalker,
  };
  const r = await verifyRecord(ctx, { log: forged, index: 0 });
  assert.equal(r.status, "FAIL");
  assert.equal(r.reason, "record is not included in the committed log");
  // The same records under their own root are included (and reach their workload).
  const own = await verifyRecord(ctx, { log: other, index: 0 });
  assert.equal(own.status, "NOT_VERIFIED");
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

const GEMM_RECIPE = JSON.parse(
  await Deno.readTextFile(
    new URL("../../profiles/recipes/cutlass-kwalk-128x128x64.json", import.meta.url),
  ),
);
const gemmStore = await openAssetStore();
// The real profile digest, so that the record reaches its workload.
const A100_SHA256 = (await loadGpuProfile(gemmStore, "a100")).sha256;
const gemmDir = await tempDir({ prefix: "bitaudit-verify-record-" });
/** Commits bytes to the GEMM tests' blob folder, by their digest. */
async function put(bytes: Uint8Array): Promise<string> {
  const digest = sha256Hex(bytes);
  await Deno.writeFile(`${gemmDir}/${digest}`, bytes);
  return digest;
}
// A 2x8x16 fp16 GEMM's tensors: input [2, 16] (64 bytes), weights [8, 16] (256 bytes), and an
// input one element short and one element long.
const INPUT = await put(new Uint8Array(64).fill(0x3c, 32));
const WEIGHTS = await put(new Uint8Array(256).fill(0x3c, 128));
const SHORT_INPUT = await put(new Uint8Array(62));
const LONG_INPUT = await put(new Uint8Array(66));
const gemmCtx = { store: gemmStore, blobs: openBlobStore(gemmDir), walker: referenceKWalker };

/** A 2x8x16 GEMM record, honest unless told otherwise. */
function gemm(o: {
  accumulator?: string;
  dtype?: string;
  batch?: number;
  tp?: number;
  profile?: string;
  profileSha256?: string;
  stack?: string;
  kernel?: { catalog: string; catalogSha256: string };
  input?: string;
  fingerprintShape?: number[];
} = {}) {
  const dtype = o.dtype ?? "fp16";
  const tp = o.tp ?? 1;
  return makeClaimRecord({
    log: { logId: "acc", seq: 0, prev: GENESIS_PREV },
    hardware: {
      profile: o.profile ?? "a100",
      profileSha256: o.profileSha256 ?? A100_SHA256,
      count: tp,
    },
    software: { stack: o.stack ?? "cutlass-3.5-default", components: {} },
    parallelism: { tp, pp: 1, ep: 1, dp: 1 },
    batch: { size: o.batch ?? 2 },
    workload: {
      kind: "gemm",
      m: 2,
      n: 8,
      k: 16,
      dtype,
      out: dtype,
      layout: "tn",
      ...(o.accumulator === undefined ? {} : { accumulator: o.accumulator }),
      kernel: o.kernel ?? { recipe: GEMM_RECIPE },
      weights: { sha256: WEIGHTS, shape: [8, 16] },
      input: { sha256: o.input ?? INPUT, shape: [2, 16] },
    },
    fingerprint: {
      tensor: "layers.0.q_proj.out",
      dtype,
      shape: o.fingerprintShape ?? [2, 8],
      sha256: H,
    },
  });
}

async function verifyGemm(o: Parameters<typeof gemm>[0]) {
  return await verifyRecord(gemmCtx, { log: parseClaimLog(formatClaimLog([gemm(o)])), index: 0 });
}

Deno.test("a GEMM record stating an fp16 accumulator is NOT_VERIFIED by name; fp32 stated is as absent; bf16 with fp16 is refused", async () => {
  const r = await verifyGemm({ accumulator: "fp16" });
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /fp16 accumulator .* is not modelled for GEMM records/);
  // Stated on a record that contradicts itself, it hides nothing: the record FAILs.
  const f = await verifyGemm({ accumulator: "fp16", batch: 3 });
  assert.equal(f.status, "FAIL", f.reason);
  assert.match(f.reason, /batch size 3 but 2 input rows/);
  // Likewise a sharded GEMM, which is not modelled: NOT_VERIFIED, FAIL when it contradicts itself.
  const sharded = await verifyGemm({ tp: 2 });
  assert.equal(sharded.status, "NOT_VERIFIED", sharded.reason);
  assert.match(sharded.reason, /tp=2 pp=1 ep=1: sharded GEMMs are not modelled/);
  const shardedLie = await verifyGemm({ tp: 2, batch: 3 });
  assert.equal(shardedLie.status, "FAIL", shardedLie.reason);
  assert.match(shardedLie.reason, /batch size 3 but 2 input rows/);
  const fp32 = parseClaimLog(formatClaimLog([gemm({ accumulator: "fp32" })]));
  assert.equal(
    (fp32.records[0]!.predicate.workload as { accumulator?: string }).accumulator,
    "fp32",
  );
  assert.throws(
    () => parseClaimLog(formatClaimLog([gemm({ accumulator: "fp16", dtype: "bf16" })])),
    isCode(InputError, "CLAIM_INVALID"),
  );
});

Deno.test("a sharded GEMM record's committed tensors are checked a chunk at a time, none held: its refusal waits before they are read", async () => {
  // The store of the test's blobs, counting what is read whole and what is hashed unheld.
  const held: string[] = [];
  const hashed: string[] = [];
  const blobs: BlobStore = {
    dir: gemmCtx.blobs.dir,
    get: (d, o) => (held.push(d), gemmCtx.blobs.get(d, o)),
    open: (d, o) => (hashed.push(d), gemmCtx.blobs.open!(d, o)),
  };
  const check = (o: Parameters<typeof gemm>[0]) =>
    verifyRecord({ ...gemmCtx, blobs }, {
      log: parseClaimLog(formatClaimLog([gemm(o)])),
      index: 0,
    });
  const r = await check({ tp: 2 });
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.equal(r.reason, "parallelism tp=2 pp=1 ep=1: sharded GEMMs are not modelled");
  assert.ok(r.steps.some((s) => s.step === "tensors" && s.ok), "tensors checked");
  assert.equal(held.length, 0, `read whole: ${held}`);
  assert.deepEqual(hashed, [INPUT, WEIGHTS]);
  // Checked unheld, a tensor is still held to its digest and its length: FAIL, as at tp=1.
  const short = await check({ tp: 2, input: SHORT_INPUT });
  assert.equal(short.status, "FAIL", short.reason);
  assert.match(short.reason, /62 bytes, its shape \[2, 16\] of 16-bit elements holds 64$/);
  assert.equal(held.length, 0, `read whole: ${held}`);
  // One rank: the tensors are read whole, for the recomputation.
  await check({});
  assert.ok(held.includes(INPUT) && held.includes(WEIGHTS), `${held}`);
});

/** What, beside a GEMM record's own contradiction, would make it NOT_VERIFIED. */
const UNVERIFIABLE: readonly [string, Parameters<typeof gemm>[0], RegExp][] = [
  ["an unknown profile", { profile: "no-such-gpu" }, /unsupported profile: .*'no-such-gpu'/],
  ["another profile digest", { profileSha256: H }, /profile 'a100' digest differs/],
  ["an unknown stack", { stack: "no-such-stack" }, /unsupported stack: .*'no-such-stack'/],
  ["an fp16 accumulator", { accumulator: "fp16" }, /fp16 accumulator/],
  ["tp=2", { tp: 2 }, /sharded GEMMs are not modelled/],
];

Deno.test("a GEMM record's own contradictions FAIL whatever profile, stack or configuration it names: they come before any of them is loaded or refused", async () => {
  for (const [what, unverifiable, reason] of UNVERIFIABLE) {
    // Alone, each is NOT_VERIFIED with its reason (a differing profile digest included).
    const alone = await verifyGemm(unverifiable);
    assert.equal(alone.status, "NOT_VERIFIED", `${what}: ${alone.reason}`);
    assert.match(alone.reason, reason, what);
    const lies: [string, Parameters<typeof gemm>[0], RegExp][] = [
      ["batch 3", { batch: 3 }, /^record contradicts itself: batch size 3 but 2 input rows$/],
      [
        "fingerprint shape [2, 9]",
        { fingerprintShape: [2, 9] },
        /^record contradicts itself: its fingerprint shape is \[2, 9\]/,
      ],
      [
        "a 62-byte input",
        { input: SHORT_INPUT },
        /^record contradicts its input tensor: 62 bytes, its shape \[2, 16\] of 16-bit elements holds 64$/,
      ],
      [
        "a 66-byte input",
        { input: LONG_INPUT },
        /^record contradicts its input tensor: 66 bytes, its shape \[2, 16\] of 16-bit elements holds 64$/,
      ],
    ];
    for (const [lie, o, found] of lies) {
      const r = await verifyGemm({ ...unverifiable, ...o });
      assert.equal(r.status, "FAIL", `${what}, ${lie}: ${r.reason}`);
      assert.equal(r.finding, "contradiction", `${what}, ${lie}`);
      assert.match(r.reason, found, `${what}, ${lie}`);
      assert.equal(r.recomputed, null);
    }
  }
});

Deno.test("a tensor blob longer than its shape holds is the record's contradiction only when it hashes to its digest; one that does not is the prover's unmet obligation", async () => {
  // 66 bytes filed under the digest of 64 others: not the blob the record committed to.
  const named = sha256Hex(new Uint8Array(64).fill(7));
  await Deno.writeFile(`${gemmDir}/${named}`, new Uint8Array(66));
  const r = await verifyGemm({ input: named });
  assert.equal(r.status, "FAIL", r.reason);
  assert.equal(r.finding, "committed-input");
  assert.equal(r.obligation, "committed-input");
  assert.match(
    r.reason,
    /^prover did not produce committed input: input tensor [0-9a-f]{16}… does not hash to its committed digest$/,
  );
  const long = await verifyGemm({ input: LONG_INPUT });
  assert.equal(long.finding, "contradiction", long.reason);
  assert.equal(long.obligation, undefined);
});

Deno.test("a GEMM record's parallelism FAILs where the record or its stack contradicts it, before its sharding is refused; an honest sharded GEMM is refused by name", async () => {
  // A catalog, as the stack with a tensor-parallel layout dispatches (its coverage of the record
  // is never asked: the contradiction comes first).
  const catalog = "demo-qwen3-tiny-a100";
  const kernel = {
    catalog,
    catalogSha256: gemmStore.manifest.assets[`tables/catalogs/${catalog}.json`]!.sha256,
  };
  const onStack = (stack: string | null) =>
    stack === null ? {} : { stack, ...(stack === TP_LAYOUT_STACK ? { kernel } : {}) };
  for (const [what, stack, par, reason] of PARALLEL_LIES) {
    const p = withParallelism(gemm(onStack(stack)).predicate, par);
    const r = await verifyRecord(gemmCtx, {
      log: parseClaimLog(formatClaimLog([makeClaimRecord(p)])),
      index: 0,
    });
    assert.equal(r.status, "FAIL", `${what}: ${r.reason}`);
    assert.equal(r.finding, "contradiction", what);
    assert.match(r.reason, reason, what);
  }
  for (const stack of ["cutlass-3.5-default", TP_LAYOUT_STACK]) {
    const p = withParallelism(gemm(onStack(stack)).predicate, { tp: 2 });
    const r = await verifyRecord(gemmCtx, {
      log: parseClaimLog(formatClaimLog([makeClaimRecord(p)])),
      index: 0,
    });
    assert.equal(r.status, "NOT_VERIFIED", `${stack}: ${r.reason}`);
    assert.equal(r.reason, "parallelism tp=2 pp=1 ep=1: sharded GEMMs are not modelled", stack);
  }
});
