import assert from "node:assert/strict";
import { tempDir } from "../_temp.ts";
import { openAssetStore, openBlobStore } from "../../src/assets/mod.ts";
import {
  type BlockWorkload,
  type ClaimPredicate,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { createSfu, parseGpuProfile } from "../../src/hardware/mod.ts";
import { parseStackProfile, referenceKWalker } from "../../src/kernels/mod.ts";
import {
  fixedRecipeDispatch,
  planAttentionBlock,
  planFfnBlock,
  runAttentionBlock,
  runFfnBlock,
} from "../../src/model/mod.ts";
import { synthBf16 } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import { teslaSfu } from "../hardware/sfu/_tesla_sfu.ts";
import { InputError } from "../../src/errors.ts";
import { isCode } from "../_assert_code.ts";
import { PARALLEL_LIES, TP_LAYOUT_STACK, withParallelism } from "./_parallel_lies.ts";

const ROOT = new URL("../../", import.meta.url);
const store = await openAssetStore();
const dir = await tempDir({ prefix: "bitaudit-blocks-" });
const blobs = openBlobStore(dir);
const ctx = { store, blobs, walker: referenceKWalker };
const shape = { hidden: 64, intermediate: 96, heads: 2, kvHeads: 1, headDim: 128 };
const recipe = {
  family: "kwalk",
  threadblock: [128, 128, 64],
  warp: [64, 64, 64],
  instruction: [16, 8, 16],
};
const T = 3;

const json = (path: string) => JSON.parse(Deno.readTextFileSync(new URL(path, ROOT)));
const profile = parseGpuProfile(json("profiles/gpu/a100.json"));
const tesla = teslaSfu();

async function put(t: Uint16Array): Promise<string> {
  const bytes = new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
  const digest = sha256Hex(bytes);
  await Deno.writeFile(`${dir}/${digest}`, bytes);
  return digest;
}

const tensor = (label: string, count: number) =>
  synthBf16("verify-blocks", { label, count, span: 3 });
const ffnW = {
  norm: tensor("norm", 64).map((b) => (b & 0x7f) | 0x3f80),
  gate: tensor("gate", 96 * 64),
  up: tensor("up", 96 * 64),
  down: tensor("down", 64 * 96),
};
const attnW = {
  norm: ffnW.norm,
  q: tensor("q", 256 * 64),
  k: tensor("k", 128 * 64),
  v: tensor("v", 128 * 64),
  o: tensor("o", 64 * 256),
  qNorm: tensor("qn", 128).map((b) => (b & 0x7f) | 0x3f80),
  kNorm: tensor("kn", 128).map((b) => (b & 0x7f) | 0x3f80),
};
const x = tensor("x", T * 64);

async function record(o: {
  stack: string;
  kind: "ffn_block" | "attention_block";
  out: string;
  gpu?: string;
  kernel?: BlockWorkload["kernel"];
  tensor?: string;
  sms?: number;
}) {
  const gpu = o.gpu ?? "a100";
  const weights: Record<string, string> = {};
  for (const [name, t] of Object.entries(o.kind === "ffn_block" ? ffnW : attnW)) {
    weights[name] = await put(t);
  }
  const workload: BlockWorkload = {
    kind: o.kind,
    tokens: T,
    shape,
    rmsNormEps: "1e-6",
    kernel: o.kernel ?? { recipe },
    ...(o.kind === "attention_block"
      ? { attention: { multiProcessorCount: o.sms ?? 108, rope: { theta: "1000000" } } }
      : {}),
    weights,
    input: { sha256: await put(x), shape: [T, 64] },
  };
  return makeClaimRecord({
    log: { logId: "blocks", seq: 0, prev: GENESIS_PREV },
    hardware: {
      profile: gpu,
      profileSha256: store.manifest.assets[`profiles/gpu/${gpu}.json`]!.sha256,
      count: 1,
    },
    software: { stack: o.stack, components: {} },
    parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
    batch: { size: 1 },
    workload,
    fingerprint: {
      tensor: o.tensor ?? `layers.0.${o.kind}.out`,
      dtype: "bf16",
      shape: [T, 64],
      sha256: o.out,
    },
  });
}

function runtimeFor(stackId: string, sfu = tesla) {
  return {
    profile,
    stack: parseStackProfile(json(`profiles/stack/${stackId}.json`)),
    gemm: fixedRecipeDispatch(recipe as never),
    walker: referenceKWalker,
    sfu,
  };
}

async function verify(rec: Promise<ReturnType<typeof makeClaimRecord>>) {
  const log = parseClaimLog(formatClaimLog([await rec]));
  return await verifyRecord(ctx, { log, index: 0 });
}

Deno.test("an honest ffn_block record PASSES and its result names the SFU functions and statuses", async () => {
  const rt = runtimeFor("cutlass-3.5-hf-flash-attn");
  const plan = planFfnBlock(T, { shape, runtime: rt });
  assert.ok(plan.supported);
  const out = (await runFfnBlock(x, { plan: plan.plan, runtime: rt, weights: ffnW })).out;
  const digest = sha256Hex(new Uint8Array(out.buffer));
  const r = await verify(
    record({ stack: "cutlass-3.5-hf-flash-attn", kind: "ffn_block", out: digest }),
  );
  assert.equal(r.status, "PASS", r.reason);
  assert.deepEqual(r.sfu?.map((u) => `${u.fn}:${u.status}`), [
    "ex2:spot-checked",
    "rsqrt:histogram-matched",
  ]);
  assert.ok(
    store.used()["tables/sfu/tesla_sfu_v1.bin"],
    "the SFU table asset is hash-checked and listed",
  );
  const wrong = (parseInt(digest[0]!, 16) ^ 1).toString(16) + digest.slice(1);
  const f = await verify(
    record({ stack: "cutlass-3.5-hf-flash-attn", kind: "ffn_block", out: wrong }),
  );
  assert.equal(f.status, "FAIL");
});

Deno.test("an honest attention_block record PASSES on the Dao build and on the strict-IEEE stack", async () => {
  for (
    const [stackId, sfu, fns] of [
      [
        "cutlass-3.5-hf-flash-attn",
        tesla,
        "ex2:spot-checked,rcp:histogram-matched,rsqrt:histogram-matched",
      ],
      ["cutlass-3.5-strict-ieee", createSfu({ mode: "ieee" }), "ex2:ieee-exact,rsqrt:ieee-exact"],
    ] as const
  ) {
    const rt = runtimeFor(stackId, sfu);
    const plan = planAttentionBlock(T, {
      shape,
      runtime: rt,
      rope: { theta: 1_000_000 },
      multiProcessorCount: 108,
    });
    assert.ok(plan.supported);
    const out = (await runAttentionBlock(x, { plan: plan.plan, runtime: rt, weights: attnW })).out;
    const digest = sha256Hex(new Uint8Array(out.buffer));
    const r = await verify(record({ stack: stackId, kind: "attention_block", out: digest }));
    assert.equal(r.status, "PASS", r.reason);
    assert.equal(r.sfu?.map((u) => `${u.fn}:${u.status}`).join(), fns);
  }
});

Deno.test("a block record whose fingerprint names another tensor than its block's output FAILs as a contradiction; any layer's block name fits", async () => {
  const rt = runtimeFor("cutlass-3.5-hf-flash-attn");
  const plan = planFfnBlock(T, { shape, runtime: rt });
  assert.ok(plan.supported);
  const out = (await runFfnBlock(x, { plan: plan.plan, runtime: rt, weights: ffnW })).out;
  const digest = sha256Hex(new Uint8Array(out.buffer));
  const ffn = (tensor: string) =>
    verify(record({ stack: "cutlass-3.5-hf-flash-attn", kind: "ffn_block", out: digest, tensor }));
  const fifth = await ffn("layers.5.ffn_block.out");
  assert.equal(fifth.status, "PASS", fifth.reason);
  for (
    const tensor of [
      "layers.5.self_attn.o_proj.out",
      "layers.0.attention_block.out",
      "model.norm.out",
      "layers.05.ffn_block.out",
    ]
  ) {
    const r = await ffn(tensor);
    assert.equal(r.status, "FAIL", `${tensor}: ${r.reason}`);
    assert.equal(r.finding, "contradiction");
    assert.equal(r.recomputed, null);
    assert.match(
      r.reason,
      /^record contradicts itself: its fingerprint tensor is '.*', the ffn_block of 3 tokens computes 'layers\.<layer>\.ffn_block\.out'$/,
    );
  }
  const attn = await verify(record({
    stack: "cutlass-3.5-hf-flash-attn",
    kind: "attention_block",
    out: "ab".repeat(32),
    tensor: "layers.0.ffn_block.out",
  }));
  assert.equal(attn.status, "FAIL", attn.reason);
  assert.match(attn.reason, /computes 'layers\.<layer>\.attention_block\.out'/);
});

Deno.test("an attention_block record of a cuDNN stack is NOT_VERIFIED with the reason", async () => {
  const catalog = "h100-sxm-cublas-qwen3-4b-ffn";
  const r = await verify(record({
    stack: "hf-qwen3-sdpa-torch2.11-hopper",
    kind: "attention_block",
    out: "ab".repeat(32),
    gpu: "h100-sxm",
    kernel: {
      catalog,
      catalogSha256: store.manifest.assets[`tables/catalogs/${catalog}.json`]!.sha256,
    },
  }));
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /cudnn-sdpa.*closed source/);
});

Deno.test("an attention_block record claiming more SMs than its GPU has FAILs even where the stack is not modelled (the contradiction first)", async () => {
  const catalog = "h100-sxm-cublas-qwen3-4b-ffn";
  const r = await verify(record({
    stack: "hf-qwen3-sdpa-torch2.11-hopper",
    kind: "attention_block",
    out: "ab".repeat(32),
    gpu: "h100-sxm",
    sms: 4096,
    kernel: {
      catalog,
      catalogSha256: store.manifest.assets[`tables/catalogs/${catalog}.json`]!.sha256,
    },
  }));
  assert.equal(r.status, "FAIL", r.reason);
  assert.match(r.reason, /4096/);
});

Deno.test("an attention_block record claiming fewer SMs than its GPU's chip is NOT_VERIFIED naming the count", async () => {
  const r = await verify(record({
    stack: "cutlass-3.5-hf-flash-attn",
    kind: "attention_block",
    out: "ab".repeat(32),
    sms: 100,
  }));
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /multiProcessorCount 100 below the 'a100' chip's 108 SMs/);
});

Deno.test("a block record with a missing weight FAILs (prover obligation); a malformed block workload is refused", async () => {
  const rec = await record({
    stack: "cutlass-3.5-hf-flash-attn",
    kind: "ffn_block",
    out: "ab".repeat(32),
  });
  const w = rec.predicate.workload as BlockWorkload;
  const missing = { ...w, weights: { ...w.weights, down: "cd".repeat(32) } };
  const r = await verify(Promise.resolve(makeClaimRecord({ ...rec.predicate, workload: missing })));
  assert.equal(r.status, "FAIL");
  assert.equal(r.obligation, "committed-input");
  assert.match(r.reason, /prover did not produce committed input: weight 'down' tensor/);
  const bad = JSON.parse(JSON.stringify(rec));
  bad.predicate.workload.rmsNormEps = 1e-6;
  assert.throws(
    () => parseClaimLog(JSON.stringify(bad) + "\n"),
    isCode(InputError, "CLAIM_INVALID"),
  );
});

Deno.test("a block record's own contradictions FAIL whatever profile, stack or configuration it names: they come before any of them is loaded or refused", async () => {
  type P = ClaimPredicate;
  type Edit = (p: P) => P;
  const attn = (p: P) => p.workload as BlockWorkload;
  const edit = (p: P, w: Partial<BlockWorkload>): P => ({ ...p, workload: { ...attn(p), ...w } });
  const check = (p: P) =>
    verifyRecord(ctx, { log: parseClaimLog(formatClaimLog([makeClaimRecord(p)])), index: 0 });
  const honest = (await record({
    stack: "cutlass-3.5-hf-flash-attn",
    kind: "attention_block",
    out: "ab".repeat(32),
  })).predicate;
  const catalog = "h100-sxm-cublas-qwen3-4b-ffn";
  const cudnn = (await record({
    stack: "hf-qwen3-sdpa-torch2.11-hopper",
    kind: "attention_block",
    out: "ab".repeat(32),
    gpu: "h100-sxm",
    kernel: {
      catalog,
      catalogSha256: store.manifest.assets[`tables/catalogs/${catalog}.json`]!.sha256,
    },
  })).predicate;
  const unverifiable: [string, P, RegExp][] = [
    [
      "an unknown profile",
      { ...honest, hardware: { ...honest.hardware, profile: "no-such-gpu" } },
      /unsupported profile: .*'no-such-gpu'/,
    ],
    [
      "another profile digest",
      { ...honest, hardware: { ...honest.hardware, profileSha256: "ab".repeat(32) } },
      /profile 'a100' digest differs/,
    ],
    [
      "an unknown stack",
      { ...honest, software: { ...honest.software, stack: "no-such-stack" } },
      /unsupported stack: .*'no-such-stack'/,
    ],
    ["a batch of 2", { ...honest, batch: { size: 2 } }, /batch of 2 sequences/],
    ["a cuDNN stack", cudnn, /cudnn-sdpa.*closed source/],
  ];
  const shortInput = await put(x.subarray(1));
  const shortInvFreq = sha256Hex(new Uint8Array(63 * 4));
  await Deno.writeFile(`${dir}/${shortInvFreq}`, new Uint8Array(63 * 4));
  const lies: [string, Edit, RegExp][] = [
    [
      "fingerprint shape [3, 65]",
      (p) => ({ ...p, fingerprint: { ...p.fingerprint, shape: [T, 65] } }),
      /^record contradicts itself: its fingerprint shape is \[3, 65\]/,
    ],
    [
      "kvHeads 3 of 2 heads",
      (p) => edit(p, { shape: { ...shape, kvHeads: 3 } }),
      /^record contradicts itself: Cannot use layer shape: 'kvHeads' 3 does not divide heads 2$/,
    ],
    [
      "an input one element short",
      (p) => edit(p, { input: { sha256: shortInput, shape: [T, 64] } }),
      /^record contradicts its input tensor: 382 bytes, its shape \[3, 64\] of 16-bit elements holds 384$/,
    ],
    [
      "an inv_freq one element short",
      (p) =>
        edit(p, {
          attention: { ...attn(p).attention!, rope: { invFreqSha256: shortInvFreq } },
        }),
      /^record contradicts its inv_freq tensor: 252 bytes, its shape \[64\] of 32-bit elements holds 256$/,
    ],
  ];
  for (const [what, p, reason] of unverifiable) {
    // Alone, each is NOT_VERIFIED with its reason (a differing profile digest included).
    const alone = await check(p);
    assert.equal(alone.status, "NOT_VERIFIED", `${what}: ${alone.reason}`);
    assert.match(alone.reason, reason, what);
    for (const [lie, lied, found] of lies) {
      const r = await check(lied(p));
      assert.equal(r.status, "FAIL", `${what}, ${lie}: ${r.reason}`);
      assert.equal(r.finding, "contradiction", `${what}, ${lie}`);
      assert.match(r.reason, found, `${what}, ${lie}`);
    }
  }
});

Deno.test("a block record's parallelism FAILs where the record or its stack contradicts it, before its sharding is refused; an honest sharded block is refused by name", async () => {
  const stack = "cutlass-3.5-hf-flash-attn";
  const rt = runtimeFor(stack);
  const ffn = planFfnBlock(T, { shape, runtime: rt });
  const attn = planAttentionBlock(T, {
    shape,
    runtime: rt,
    rope: { theta: 1_000_000 },
    multiProcessorCount: 108,
  });
  assert.ok(ffn.supported && attn.supported);
  const digest = (out: Uint16Array) => sha256Hex(new Uint8Array(out.buffer));
  const outs = {
    ffn_block: digest((await runFfnBlock(x, { plan: ffn.plan, runtime: rt, weights: ffnW })).out),
    attention_block: digest(
      (await runAttentionBlock(x, { plan: attn.plan, runtime: rt, weights: attnW })).out,
    ),
  };
  // A catalog, as the stack with a tensor-parallel layout dispatches (its coverage of the block
  // is never asked: the contradiction comes first).
  const catalog = "demo-qwen3-tiny-a100";
  const kernel = {
    catalog,
    catalogSha256: store.manifest.assets[`tables/catalogs/${catalog}.json`]!.sha256,
  };
  const check = (p: ClaimPredicate) =>
    verifyRecord(ctx, { log: parseClaimLog(formatClaimLog([makeClaimRecord(p)])), index: 0 });
  for (const kind of ["ffn_block", "attention_block"] as const) {
    const honest = await check((await record({ stack, kind, out: outs[kind] })).predicate);
    assert.equal(honest.status, "PASS", `${kind}: ${honest.reason}`);
    for (const [what, on, par, reason] of PARALLEL_LIES) {
      // Falsified besides: a fingerprint the block does not compute.
      const lied = on === null
        ? record({ stack, kind, out: "ab".repeat(32) })
        : record({ stack: on, kind, out: "ab".repeat(32), kernel });
      const r = await check(withParallelism((await lied).predicate, par));
      assert.equal(r.status, "FAIL", `${kind}, ${what}: ${r.reason}`);
      assert.equal(r.finding, "contradiction", `${kind}, ${what}`);
      assert.match(r.reason, reason, `${kind}, ${what}`);
    }
    for (const on of [stack, TP_LAYOUT_STACK]) {
      const sharded = await record({
        stack: on,
        kind,
        out: outs[kind],
        ...(on === TP_LAYOUT_STACK ? { kernel } : {}),
      });
      const r = await check(withParallelism(sharded.predicate, { tp: 2 }));
      assert.equal(r.status, "NOT_VERIFIED", `${kind} on ${on}: ${r.reason}`);
      assert.equal(r.reason, "parallelism tp=2 pp=1 ep=1: sharded blocks are not modelled");
    }
  }
});
