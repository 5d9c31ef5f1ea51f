/**
 * The real prover's record builder (issue 29): `modelForwardClaim()` and `nextLogPosition()`
 * build records the verifier's parser accepts and refuse facts that contradict each other.
 */
import assert from "node:assert/strict";
import { checkpointDir, openAssetStore, sha256Hex } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  GENESIS_PREV,
  parseClaimLog,
  recordDigest,
} from "../../src/claims/mod.ts";
import { AssetError, InputError } from "../../src/errors.ts";
import { openDecoderCheckpoint } from "../../src/model/mod.ts";
import { parseClaimedAllReduce } from "../../src/kernels/mod.ts";
import {
  modelForwardClaim,
  type ModelForwardFacts,
  nextLogPosition,
} from "../../src/prover/mod.ts";
import { assertCode, assertRejectsCode, isCode } from "../_assert_code.ts";
import { loadAsset, loadGpuProfile, STACK_PROFILES } from "../../src/resolve/mod.ts";
import { _checkClaimedWorld } from "../../src/verify/_claimed_parallel.ts";
import { recordContradiction } from "../../src/verify/mod.ts";
import { catalogCopyRoot } from "../_catalog_copy.ts";
import { ckpt, digests, store } from "./_tiny_dense_fixture.ts";

const FP = "c".repeat(64);
/** A checkpoint whose 8 heads and 4 KV heads split over 4 ranks (the dense one's 2 heads do not). */
const TP_DIR = new URL("../../tables/models/qwen3-tiny-tp/", import.meta.url).pathname;
const tpDir = await checkpointDir(TP_DIR);
const SPLITS = {
  checkpoint: {
    ckpt: await openDecoderCheckpoint(tpDir),
    digests: { "model.safetensors": sha256Hex(await Deno.readFile(`${TP_DIR}model.safetensors`)) },
  },
};
tpDir.close();

function facts(over: Partial<ModelForwardFacts> = {}): ModelForwardFacts {
  return {
    position: nextLogPosition(null, { logId: "t" }),
    checkpoint: { ckpt, digests },
    tokens: { sequences: [[1, 2, 3], [4]], padTokenId: 0 },
    stack: "hf-qwen3-flash-attn-torch2.8",
    profile: "a100",
    multiProcessorCount: 108,
    kernel: { catalog: "demo-qwen3-tiny-a100" },
    fingerprint: FP,
    ...over,
  };
}

Deno.test("modelForwardClaim() builds a record that chains and names the last tokens by default", async () => {
  const r = await modelForwardClaim(facts({ components: { transformers: "4.56.1" } }), { store });
  const p = r.predicate;
  assert.equal(p.workload.kind, "model_forward");
  assert.deepEqual((p.workload as { positions: unknown }).positions, [[0, 2], [1, 0]]);
  assert.equal(p.batch.size, 2);
  assert.deepEqual(p.fingerprint.shape, [2, ckpt.config.hidden]);
  assert.equal(p.software.components.transformers, "4.56.1");
  assert.equal(p.software.components.pytorch, "2.8.0", "the stack's own components are kept");
  const log = parseClaimLog(JSON.stringify(r) + "\n");
  const next = nextLogPosition(log);
  assert.deepEqual(next, { logId: "t", seq: 1, prev: recordDigest(r) });
});

Deno.test("modelForwardClaim() refuses positions that name every sequence but not one's last token, and a position one past a sequence's end, before writing a record", async () => {
  // The verifier vouches only for a fingerprint covering each sequence's last token
  // (src/claims/fingerprint_coverage.ts); [0, 3] is past the 3 tokens of sequence 0.
  const cases = [
    [[[0, 0], [1, 0]], /positions must include \[0, 2\], the last token of sequence 0/],
    [
      [[0, 3], [0, 2], [1, 0]],
      /position \[0, 3\] is outside the batch \(sequence 0 has 3 tokens\)/,
    ],
  ] as const;
  for (const [positions, message] of cases) {
    await assert.rejects(
      () => modelForwardClaim(facts({ positions }), { store }),
      (e) => isCode(InputError, "CLAIM_INVALID")(e) && message.test((e as Error).message),
    );
  }
});

Deno.test("modelForwardClaim() refuses unknown assets with their asset codes", async () => {
  await assertRejectsCode(
    () => modelForwardClaim(facts({ stack: "no-such-stack" }), { store }),
    AssetError,
    "STACK_UNKNOWN",
  );
  await assertRejectsCode(
    () => modelForwardClaim(facts({ profile: "h999" }), { store }),
    AssetError,
    "PROFILE_UNKNOWN",
  );
  await assertRejectsCode(
    () => modelForwardClaim(facts({ kernel: { catalog: "no-such-catalog" } }), { store }),
    AssetError,
    "CATALOG_UNKNOWN",
  );
});

Deno.test("modelForwardClaim() refuses a batch the checkpoint cannot hold", async () => {
  const vocab = ckpt.config.vocab;
  for (
    const tokens of [
      { sequences: [[1, vocab]] },
      { sequences: [[1, 2], [3]] }, // padded by the stack, but no pad token named
      { sequences: [] },
      { sequences: [[1]], extra: 1 },
    ]
  ) {
    await assertRejectsCode(
      () => modelForwardClaim(facts({ tokens }), { store }),
      InputError,
      "TOKENS_INVALID",
    );
  }
});

Deno.test("modelForwardClaim() refuses facts that contradict each other with CLAIM_INVALID", async () => {
  const h = "ab".repeat(32);
  for (
    const over of [
      { fingerprint: "C".repeat(64) },
      { fingerprint: "c".repeat(63) },
      { fingerprint: "" },
      { kernel: { catalog: "demo-qwen3-tiny-h100-sxm" } }, // captured on another GPU
      { kernel: { recipe: { family: "single_walk" } } }, // the stack dispatches by catalog
      { stack: "pytorch-cublas-linear" }, // GEMMs only: no operators
      { positions: [[2, 0]] as const },
      { positions: [[1, 1]] as const },
      { positions: [] },
      { positions: [[0, 0]] as const }, // leaves out each sequence's last token
      { layerChain: [{ attention: h, mlp: h }] }, // 1 entry, 2 layers
      { layerChain: [{ attention: h, mlp: "x" }, { attention: h, mlp: h }] },
      { multiProcessorCount: 0 },
      { gpuCount: 1.5 },
      { components: { pytorch: "" } }, // the record format needs 1..200 characters
    ] satisfies Partial<ModelForwardFacts>[]
  ) {
    await assertRejectsCode(
      () => modelForwardClaim(facts(over), { store }),
      InputError,
      "CLAIM_INVALID",
    );
  }
});

Deno.test("modelForwardClaim() refuses what the audit FAILs of a record's world, SM count and kernel kind with the verifier's own reason (recordContradiction)", async () => {
  const honest = (await modelForwardClaim(facts(), { store })).predicate;
  const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: honest.software.stack })).value;
  const a100 = (await loadGpuProfile(store, "a100")).profile;
  const l40s = (await loadGpuProfile(store, "l40s")).profile;
  const kernel = facts().kernel;
  const cases: {
    over: Partial<ModelForwardFacts>;
    p: Pick<ClaimPredicate, "hardware" | "software" | "parallelism">;
    gpu?: typeof a100;
    sms?: number;
    suffix?: string;
    kernel?: ModelForwardFacts["kernel"];
  }[] = [
    { over: { multiProcessorCount: 200 }, p: honest, sms: 200 },
    {
      over: { kernel: { recipe: { family: "single_walk" } } },
      p: honest,
      kernel: { recipe: { family: "single_walk" } },
    },
    {
      over: { components: { pytorch: "2.4.0" } },
      p: { ...honest, software: { ...honest.software, components: { pytorch: "2.4.0" } } },
    },
    {
      // More ranks than GPUs: the verifier's words, and the flag the prover most likely left out.
      over: { parallel: { tp: 2 } },
      p: { ...honest, parallelism: { ...honest.parallelism, tp: 2 } },
      suffix: "; give --gpus",
    },
    {
      // Too few GPUs too, but the verifier's first reason is the version: no --gpus advice.
      over: { components: { pytorch: "2.4.0" }, parallel: { tp: 2 } },
      p: {
        ...honest,
        software: { ...honest.software, components: { pytorch: "2.4.0" } },
        parallelism: { ...honest.parallelism, tp: 2 },
      },
    },
    {
      // Links an L40S cannot have, said before its catalog (captured on an A100) is looked at.
      over: {
        profile: "l40s",
        multiProcessorCount: 142,
        gpuCount: 2,
        parallel: { tp: 2, interconnect: "nvlink" },
      },
      p: {
        ...honest,
        hardware: { ...honest.hardware, profile: "l40s", count: 2 },
        parallelism: { ...honest.parallelism, tp: 2, interconnect: "nvlink" },
      },
      gpu: l40s,
      sms: 142,
    },
  ];
  for (const c of cases) {
    const why = recordContradiction(c.p, {
      stack,
      gpu: c.gpu ?? a100,
      kernel: c.kernel ?? kernel,
      multiProcessorCount: c.sms ?? 108,
    });
    assert.notEqual(why, null, JSON.stringify(c.over));
    await assert.rejects(() => modelForwardClaim(facts(c.over), { store }), (e: Error) => {
      assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
      assert.equal(e.message, `Cannot append claim: ${why}${c.suffix ?? ""}`);
      return true;
    });
  }
});

Deno.test("modelForwardClaim() refuses digests that do not name the checkpoint's weight files", async () => {
  for (
    const d of [
      {},
      { "model.safetensors": "00" },
      { "model.safetensors": FP, "extra.safetensors": FP },
    ]
  ) {
    await assertRejectsCode(
      () => modelForwardClaim(facts({ checkpoint: { ckpt, digests: d } }), { store }),
      InputError,
      "CHECKPOINT_DIGEST",
    );
  }
});

Deno.test("nextLogPosition() starts a new log only with an id and keeps an existing log's id", async () => {
  assert.deepEqual(nextLogPosition(null, { logId: "a" }), {
    logId: "a",
    seq: 0,
    prev: GENESIS_PREV,
  });
  assertCode(() => nextLogPosition(null), InputError, "USAGE");
  assertCode(() => nextLogPosition(null, { logId: "a b" }), InputError, "CLAIM_INVALID");
  const r = await modelForwardClaim(facts(), { store });
  const log = parseClaimLog(JSON.stringify(r) + "\n");
  assertCode(() => nextLogPosition(log, { logId: "other" }), InputError, "LOG_CHAIN");
  assert.equal(nextLogPosition(log, { logId: "t" }).seq, 1);
});

/** An NCCL ring over four ranks, as a record states it. */
const RING4 = { kind: "nccl-ring", protocol: "simple", chunkBytes: 1 << 21, rings: [[0, 1, 2, 3]] };

/** The claim of `base`'s facts split over four ranks with this all-reduce and interconnect. */
function tp4Claim(
  on: typeof store,
  base: Record<string, unknown>,
  o: { allReduce: unknown; interconnect?: "nvswitch" | "nvlink" | "pcie-p2p" | undefined },
) {
  return modelForwardClaim(
    facts({
      ...base,
      parallel: {
        tp: 4,
        allReduce: parseClaimedAllReduce(o.allReduce, 4),
        ...(o.interconnect === undefined ? {} : { interconnect: o.interconnect }),
      },
    }),
    { store: on },
  );
}

Deno.test("modelForwardClaim() refuses a vLLM record naming an all-reduce its stack's dispatch does not take, as the verifier would FAIL it", async () => {
  const vllm = {
    stack: "vllm-0.11-eager-fa2",
    tokens: { sequences: [[1, 2, 3], [4]] },
    gpuCount: 8,
    ...SPLITS,
  };
  const on = (allReduce: unknown, interconnect?: "nvlink") =>
    tp4Claim(store, vllm, { allReduce, interconnect });
  await assertRejectsCode(() => on(RING4, "nvlink"), InputError, "CLAIM_INVALID");
  const ok = await on({ kind: "vllm-custom-1stage" }, "nvlink");
  assert.equal(ok.predicate.parallelism.allReduce?.kind, "vllm-custom-1stage");
  // The `a100` profile stands for SXM4 modules and PCIe cards: the links decide the path, and
  // a record that leaves them unstated could not be vouched for.
  await assert.rejects(() => on({ kind: "vllm-custom-1stage" }), (e: Error) => {
    assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
    assert.match(e.message, /depends on how the GPUs are linked .*--interconnect/);
    return true;
  });
});

Deno.test("modelForwardClaim() sizes a vLLM pass's all-reduce messages by every token of the batch, not the first sequence's", async () => {
  // 1,100 tokens x hidden 256 x 2 bytes = 563,200 bytes, past the one-stage custom all-reduce's
  // 512 KiB at 4 ranks (vLLM's `custom_all_reduce.cuh` dispatch); the first sequence alone is
  // 3 tokens, 1,536 bytes.
  const long = Array.from({ length: 1_097 }, (_, i) => (i * 37 + 1) % 512);
  const vllm = {
    stack: "vllm-0.11-eager-fa2",
    tokens: { sequences: [[1, 2, 3], long] },
    gpuCount: 8,
    ...SPLITS,
  };
  await assert.rejects(
    () =>
      tp4Claim(store, vllm, { allReduce: { kind: "vllm-custom-1stage" }, interconnect: "nvlink" }),
    (e: Error) => {
      assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
      assert.match(e.message, /563200 bytes \(1100 rows\)/);
      return true;
    },
  );
  const two = await tp4Claim(store, vllm, {
    allReduce: { kind: "vllm-custom-2stage" },
    interconnect: "nvlink",
  });
  assert.equal(two.predicate.parallelism.allReduce?.kind, "vllm-custom-2stage");
});

Deno.test("modelForwardClaim() on PCIe-only parts: vLLM's custom all-reduce at 4 ranks and NVLink links are refused, NCCL is not; an H100 SXM record still takes the stack's NVLink setup", async () => {
  const root = await catalogCopyRoot([
    { from: "demo-qwen3-tiny-tp-a100", id: "demo-qwen3-tiny-tp-l40s", gpu: "l40s" },
  ]);
  try {
    const l40s = await openAssetStore(root);
    const vllm = {
      stack: "vllm-0.11-eager-fa2",
      tokens: { sequences: [[1, 2, 3], [4]] },
      gpuCount: 4,
      profile: "l40s",
      multiProcessorCount: 142,
      kernel: { catalog: "demo-qwen3-tiny-tp-l40s" },
      ...SPLITS,
    };
    const on = (allReduce: unknown, interconnect?: "nvswitch" | "nvlink" | "pcie-p2p") =>
      tp4Claim(l40s, vllm, { allReduce, interconnect });
    const refused = (p: Promise<unknown>, message: RegExp) =>
      assert.rejects(() => p, (e: Error) => {
        assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
        assert.match(e.message, message);
        return true;
      });
    await refused(
      on({ kind: "vllm-custom-1stage" }),
      /runs nccl .* on any links 'l40s' GPUs can have \(pcie-p2p, pcie: NVIDIA L40S has no NVLink/,
    );
    for (const links of ["nvswitch", "nvlink"] as const) {
      await refused(
        on(RING4, links),
        /record contradicts its hardware: interconnect '.*' on 4 'l40s' GPUs, but NVIDIA L40S has no NVLink.*NVIDIA L40S GPU datasheet: NVLink support: no/,
      );
    }
    assert.equal((await on(RING4)).predicate.parallelism.allReduce?.kind, "nccl-ring");
    assert.equal((await on(RING4, "pcie-p2p")).predicate.parallelism.interconnect, "pcie-p2p");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  const h100 = await modelForwardClaim(
    facts({
      stack: "vllm-0.11-eager-fa2",
      tokens: { sequences: [[1, 2, 3], [4]] },
      gpuCount: 8,
      profile: "h100-sxm",
      multiProcessorCount: 132,
      kernel: { catalog: "demo-qwen3-tiny-h100-sxm" },
      components: { env: "VLLM_FLASH_ATTN_VERSION=2" },
      parallel: { tp: 4, allReduce: { kind: "vllm-custom-1stage" } },
      ...SPLITS,
    }),
    { store },
  );
  assert.equal(h100.predicate.parallelism.interconnect, undefined);
});

Deno.test("modelForwardClaim() refuses a setting its stack pins on the record's architecture, and only there", async () => {
  const vllm = {
    stack: "vllm-0.11-eager-fa2",
    tokens: { sequences: [[1, 2, 3, 4]] },
    components: { env: "VLLM_ATTENTION_BACKEND=FLASH_ATTN VLLM_FLASH_ATTN_VERSION=3" },
  };
  // A100 (sm_80): the stack sets the FlashAttention version on sm_90 only.
  const r = await modelForwardClaim(facts(vllm), { store });
  assert.match(r.predicate.software.components.env!, /VLLM_FLASH_ATTN_VERSION=3/);
  const hopper = {
    ...vllm,
    profile: "h100-sxm",
    multiProcessorCount: 132,
    kernel: { catalog: "demo-qwen3-tiny-h100-sxm" },
  };
  await assert.rejects(() => modelForwardClaim(facts(hopper), { store }), (e: Error) => {
    assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
    assert.match(e.message, /VLLM_FLASH_ATTN_VERSION=2 on sm_90/);
    return true;
  });
  // The honest Hopper record (the stack's components copied in, FA2 stated) is the verifier's
  // to recompute: its claimed world holds.
  const honest = await modelForwardClaim(
    facts({ ...hopper, components: { env: "VLLM_FLASH_ATTN_VERSION=2" } }),
    { store },
  );
  const p = honest.predicate;
  assert.equal(p.software.components.vllm_flash_attn !== undefined, true);
  const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: p.software.stack })).value;
  const gpu = await loadGpuProfile(store, "h100-sxm");
  assert.equal(_checkClaimedWorld(p, stack, gpu.profile), null);
});

Deno.test("modelForwardClaim() refuses a stated NCCL environment that rules out the recorded NCCL all-reduce", async () => {
  const ring = parseClaimedAllReduce({
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 1 << 21,
    rings: [[0, 1, 2, 3]],
  }, 4);
  const tp4 = { gpuCount: 8, parallel: { tp: 4, allReduce: ring }, ...SPLITS };
  const ok = await modelForwardClaim(
    facts({ ...tp4, components: { env: "NCCL_ALGO=Ring NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=1" } }),
    { store },
  );
  assert.equal(ok.predicate.parallelism.allReduce?.kind, "nccl-ring");
  for (const env of ["NCCL_ALGO=Tree", "NCCL_PROTO=LL", "NCCL_MIN_NCHANNELS=2"]) {
    await assert.rejects(
      () => modelForwardClaim(facts({ ...tp4, components: { env } }), { store }),
      (e: Error) => {
        assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
        assert.match(e.message, new RegExp(env.split("=")[0]!));
        return true;
      },
    );
  }
});

Deno.test("modelForwardClaim() refuses a pad token on a stack that flattens the batch (no pass pads)", async () => {
  const vllm = { stack: "vllm-0.11-eager-fa2", tokens: { sequences: [[1, 2, 3], [4]] } };
  const ok = await modelForwardClaim(facts(vllm), { store });
  assert.equal((ok.predicate.workload as { padTokenId?: number }).padTokenId, undefined);
  await assertRejectsCode(
    () =>
      modelForwardClaim(facts({ ...vllm, tokens: { ...vllm.tokens, padTokenId: 0 } }), { store }),
    InputError,
    "TOKENS_INVALID",
  );
});

Deno.test("modelForwardClaim() refuses flags other than the stack's, saying to state the stack's exactly (a JSON string, so quotes survive) or leave them out", async () => {
  const vllm = { stack: "vllm-0.11-eager-fa2", tokens: { sequences: [[1, 2, 3, 4]] } };
  for (
    const [components, advice] of [
      [
        { flags: "--enforce-eager --disable-cascade-attn" },
        /state the stack's flags exactly \(the flags component's value: "--enforce-eager"\), or leave the component out/,
      ],
      // Options under another name: left out of it (stating the flags alone would not help).
      [
        { flags: "--enforce-eager", cli_args: "--kv-cache-dtype fp8" },
        /leave the options out of components\.cli_args \(the stack's flags are stated as the flags component alone: "--enforce-eager"\)/,
      ],
    ] as const
  ) {
    await assert.rejects(
      () => modelForwardClaim(facts({ ...vllm, components }), { store }),
      (e) => {
        assert.ok(isCode(InputError, "CLAIM_INVALID")(e), (e as Error).message);
        assert.match((e as Error).message, advice);
        return true;
      },
    );
  }
  const stated = await modelForwardClaim(
    facts({ ...vllm, components: { flags: "--enforce-eager" } }),
    { store },
  );
  assert.equal(stated.predicate.software.components.flags, "--enforce-eager");
});

Deno.test("modelForwardClaim() refuses two releases of one pinned library under two names (TRANSFORMERS_VERSION and transformers), and takes one release written two ways", async () => {
  const hf = { stack: "hf-qwen3-flash-attn-torch2.8" };
  await assert.rejects(
    () =>
      modelForwardClaim(
        facts({ ...hf, components: { TRANSFORMERS_VERSION: "4.51.0", transformers: "4.57.1" } }),
        { store },
      ),
    (e) => {
      assert.ok(isCode(InputError, "CLAIM_INVALID")(e), (e as Error).message);
      assert.match((e as Error).message, /state two releases of one library/);
      return true;
    },
  );
  // The stack's own pytorch 2.8.0 beside the prover's torch 2.8.0+cu128 and a series 2.8.
  const ok = await modelForwardClaim(
    facts({ ...hf, components: { torch: "2.8.0+cu128", TORCH_VERSION: "2.8" } }),
    { store },
  );
  assert.equal(ok.predicate.software.components.torch, "2.8.0+cu128");
  // A component no stack pins cannot be compared: refused, with what to do instead.
  await assert.rejects(
    () => modelForwardClaim(facts({ ...hf, components: { os: "ubuntu" } }), { store }),
    /components\.os 'ubuntu' is not a release of a library this comparison knows.*leave components\.os out/,
  );
});

Deno.test("modelForwardClaim() refuses on vLLM what an audit FAILs or cannot read as this forward: a batch longer than max_model_len, a split the layout cannot make, a Qwen3 o_proj bias", async () => {
  const vllm = { stack: "vllm-0.11-eager-fa2", tokens: { sequences: [[1, 2, 3, 4]] } };
  const withConfig = (over: Partial<typeof ckpt.config>) => ({
    checkpoint: { ckpt: { ...ckpt, config: { ...ckpt.config, ...over } }, digests },
  });
  // max_position_embeddings 3: vLLM refuses a 4-token prompt; HF computes RoPE for any position.
  const short = withConfig({ maxPositionEmbeddings: 3 });
  await assert.rejects(
    () => modelForwardClaim(facts({ ...vllm, ...short }), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "TOKENS_INVALID")(e), e.message);
      assert.match(e.message, /4-token prompt is longer than vLLM's max_model_len 3/);
      return true;
    },
  );
  // Every request is held to it, not only the first.
  const longSecond = { tokens: { sequences: [[1, 2], [1, 2, 3, 4]] } };
  await assert.rejects(
    () => modelForwardClaim(facts({ ...vllm, ...short, ...longSecond }), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "TOKENS_INVALID")(e), e.message);
      assert.match(e.message, /4-token prompt is longer than vLLM's max_model_len 3/);
      return true;
    },
  );
  await modelForwardClaim(facts({ ...short, tokens: { sequences: [[1, 2, 3, 4]] } }), { store });
  await modelForwardClaim(facts({ ...vllm, ...withConfig({ maxPositionEmbeddings: 4 }) }), {
    store,
  });
  // The tiny dense checkpoint's 2 heads do not split over 4 ranks.
  const tp4 = { gpuCount: 4, parallel: { tp: 4, allReduce: { kind: "vllm-custom-1stage" } } };
  await assert.rejects(
    () => modelForwardClaim(facts({ ...vllm, ...tp4 } as ModelForwardFacts), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
      assert.match(
        e.message,
        /contradict its checkpoint: layout 'vllm-megatron' cannot split 2 attention heads over 4 ranks/,
      );
      return true;
    },
  );
  const biased = withConfig({ bias: { qkv: true, o: true, mlp: false } });
  await assert.rejects(
    () => modelForwardClaim(facts({ ...vllm, ...biased }), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
      assert.match(e.message, /o_proj without the bias HF adds.*would run another model/);
      return true;
    },
  );
  await modelForwardClaim(facts(biased), { store }); // HF's stack runs the o_proj bias
  // An A100's vLLM runs at most 256 requests in a pass (its default max_num_seqs).
  const many = (n: number) => ({
    stack: "vllm-0.11-eager-fa2",
    tokens: { sequences: Array.from({ length: n }, (_, i) => [i + 1, 2]) },
  });
  await assert.rejects(
    () => modelForwardClaim(facts(many(257)), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "TOKENS_INVALID")(e), e.message);
      assert.match(e.message, /the batch holds 257 requests, .*max_num_seqs 256/);
      return true;
    },
  );
  await modelForwardClaim(facts(many(256)), { store });
});

Deno.test("modelForwardClaim() refuses a vLLM batch past every token budget of its GPU, as an audit FAILs it (the batch is one pass)", async () => {
  // An A100's budgets are 2048 and 8192: three prompts of 3000 tokens are no pass of vLLM's.
  const prompts = (n: number, length: number) => ({
    stack: "vllm-0.11-eager-fa2",
    tokens: {
      sequences: Array.from({ length: n }, () => Array.from({ length }, (_, i) => i % 64)),
    },
  });
  await assert.rejects(
    () => modelForwardClaim(facts(prompts(3, 3000)), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "TOKENS_INVALID")(e), e.message);
      assert.match(e.message, /pass 0 schedules 9000 tokens, more than vLLM's scheduler takes/);
      return true;
    },
  );
  await modelForwardClaim(facts(prompts(2, 4000)), { store });
  // HF's stack schedules no token budget.
  await modelForwardClaim(facts({ ...prompts(3, 3000), stack: "hf-qwen3-flash-attn-torch2.8" }), {
    store,
  });
});

Deno.test("modelForwardClaim() refuses on vLLM a Qwen3-MoE config whose layers are all dense, which vLLM refuses to build (an audit FAILs it); HF's stack takes it", async () => {
  const moeDir = new URL("../../tables/models/qwen3-tiny-moe/", import.meta.url).pathname;
  const opened = await checkpointDir(moeDir);
  const moeCkpt = await openDecoderCheckpoint(opened);
  opened.close();
  const moe = moeCkpt.config.moe!;
  const moeDigests: Record<string, string> = {};
  for (const name of moeCkpt.files) {
    moeDigests[name] = sha256Hex(await Deno.readFile(`${moeDir}${name}`));
  }
  const allDense = {
    checkpoint: {
      ckpt: { ...moeCkpt, config: { ...moeCkpt.config, moe: { ...moe, mlpOnlyLayers: [0, 1] } } },
      digests: moeDigests,
    },
  };
  const vllm = { stack: "vllm-0.11-eager-fa2", tokens: { sequences: [[1, 2, 3, 4]] } };
  await assert.rejects(
    () => modelForwardClaim(facts({ ...vllm, ...allDense }), { store }),
    (e: Error) => {
      assert.ok(isCode(InputError, "CLAIM_INVALID")(e), e.message);
      assert.match(e.message, /no decoder layer of the config has a sparse MoE block/);
      assert.match(e.message, /'No Qwen3MoE layer found in the model\.layers\.'/);
      return true;
    },
  );
  await modelForwardClaim(facts({ ...vllm, checkpoint: { ckpt: moeCkpt, digests: moeDigests } }), {
    store,
  });
  await modelForwardClaim(facts(allDense), { store });
});
