/**
 * Tensor-parallel model records end to end: the simulated prover runs the bundled TP checkpoints
 * (dense and MoE) at TP 1, 2 and 4 on the demo's HF stack (layout `hf-tp-plan`) through the TP
 * catalog and writes what each pass claims; the verifier recomputes every rank. Honest records
 * PASS; a pass that ran another TP size or another all-reduce than it claims FAILs; topology
 * claims the stack contradicts FAIL, and what is not modelled is NOT_VERIFIED by name.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  formatClaimLog,
  makeClaimRecord,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { flashAttentionForward, parseStackProfile } from "../../src/kernels/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { verifyRecord } from "../../src/verify/mod.ts";
import {
  _checkClaimedWorld,
  _checkSplit,
  _claimedParallel,
} from "../../src/verify/_claimed_parallel.ts";
import { _Stop } from "../../src/verify/_stop.ts";
import { _checkServingTensorParallel } from "../../src/verify/_serving_parallel.ts";
import { loadAsset, loadGpuProfile, STACK_PROFILES } from "../../src/resolve/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { forwardSection, oneGemmScenario, servedSection } from "./_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

/** A record's components without the NCCL settings the simulated prover states above 2 ranks. */
const unpinned = (p: ClaimPredicate) =>
  Object.fromEntries(
    Object.entries(p.software.components).filter(([k]) => !k.startsWith("NCCL_")),
  );

const RING4 = { kind: "nccl-ring", protocol: "simple", chunkBytes: 2097152, rings: [[0, 2, 1, 3]] };
// A star: rank 0 adds ranks 1, 2, 3 in that order, one BF16 rounding per add.
const TREE4 = { kind: "nccl-tree", protocol: "simple", trees: [{ down: [[1], [2], [3], []] }] };

const scenario = parseScenario(oneGemmScenario({ logId: "tp-test", seed: "tp-v1" }, {
  hardware: { profile: "a100", count: 8 },
  forward: {
    ...forwardSection(["tables/models/qwen3-tiny-tp", "tables/models/qwen3-tiny-moe-tp"], {
      records: 8,
      catalog: "demo-qwen3-tiny-tp-a100",
      lengths: [6, 10, 16],
    }),
    parallel: [{ tp: 1 }, { tp: 2 }, { tp: 4, allReduce: RING4 }, { tp: 4, allReduce: TREE4 }],
  },
  falsify: [
    // Claims tp=2 (its section's second topology), ran tp=4.
    { seq: 2, kind: "parallelism", tp: 4, allReduce: RING4 },
    // Claims the ring, ran the tree.
    { seq: 3, kind: "parallelism", tp: 4, allReduce: TREE4 },
    // Claims the tree, ran tp=1.
    { seq: 8, kind: "parallelism", tp: 1 },
  ],
}));
const out = await makeClaims(scenario, { store, walker, attention });
const blobs: BlobStore = { dir: "memory", get: (d) => Promise.resolve(out.blobs.get(d) ?? null) };
const log = parseClaimLog(formatClaimLog(out.records));

Deno.test("TP 1, 2 and 4 forward records (dense and MoE): honest PASS, misreported topology FAIL", async () => {
  const falsified = new Set(out.falsified.map((f) => f.seq));
  const seen = new Set<string>();
  for (let index = 1; index < log.records.length; index++) {
    const p = log.records[index]!.predicate;
    const w = p.workload as { model: { type: string } };
    seen.add(`${w.model.type} tp=${p.parallelism.tp}`);
    const r = await verifyRecord({ store, blobs, walker, attention }, { log, index });
    assert.equal(r.status, falsified.has(index) ? "FAIL" : "PASS", `${index}: ${r.reason}`);
    if (falsified.has(index)) {
      assert.equal(r.finding, "fingerprint", `${index}: ${r.reason}`);
      assert.ok(r.firstDivergence !== undefined, `${index}: the layer chain locates it`);
    }
  }
  for (const want of ["qwen3 tp=1", "qwen3 tp=4", "qwen3_moe tp=2", "qwen3_moe tp=4"]) {
    assert.ok(seen.has(want), `${want} in ${[...seen]}`);
  }
});

const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: "hf-qwen3-flash-attn-torch2.8" }))
  .value;
const base: ClaimPredicate = log.records[1]!.predicate;
const claim = (parallelism: Record<string, unknown>, count = 8): ClaimPredicate => ({
  ...base,
  hardware: { ...base.hardware, count },
  parallelism: { tp: 1, pp: 1, ep: 1, dp: 1, ...parallelism } as ClaimPredicate["parallelism"],
});
const { profile: a100 } = await loadGpuProfile(store, "a100");
const stop = (p: ClaimPredicate, s = stack) => {
  try {
    _checkClaimedWorld(p, s, a100);
    _claimedParallel(p, s, a100);
  } catch (e) {
    if (e instanceof _Stop) return `${e.status}: ${e.why}`;
    throw e;
  }
  return "resolved";
};

Deno.test("topology claims the record or its stack contradicts FAIL; what is not modelled is NOT_VERIFIED", async () => {
  assert.match(
    stop(claim({ tp: 4, allReduce: RING4 }, 2)),
    /^FAIL: .*tp=4 x pp=1 x dp=1 ranks on 2 GPU/,
  );
  assert.match(stop(claim({ tp: 4 })), /^FAIL: .*tp=4 without an all-reduce/);
  assert.match(
    stop(claim({ tp: 2, allReduce: { kind: "vllm-custom-1stage" } })),
    /^FAIL: record contradicts its stack: .*nccl-ring or nccl-tree.*vllm-custom-1stage/,
  );
  assert.match(
    stop(claim({ tp: 4, allReduce: { ...RING4, rings: [[0, 1, 1, 3]] } })),
    /^FAIL: record's all-reduce is invalid/,
  );
  assert.match(
    stop(claim({ tp: 4, allReduce: { kind: "nccl-nvls" } })),
    /^NOT_VERIFIED: .*NVSwitch/,
  );
  assert.match(stop(claim({ tp: 2, ep: 2 })), /^NOT_VERIFIED: ep=2: .*expert parallelism is not/);
  const bare = parseStackProfile({
    ...stack,
    operators: { ...stack.operators!, tensorParallel: undefined },
  });
  assert.match(stop(claim({ tp: 2 }), bare), /^NOT_VERIFIED: .*declares no tensor-parallel layout/);
  assert.equal(stop(claim({ tp: 2 })), "resolved");
  // Transformers 5's tp_plan is not the 4.5x plan of 'hf-tp-plan' (review h95): its stack names
  // no layout, so its tensor-parallel records are not modelled rather than held to 4.5x rules.
  const v5 =
    (await loadAsset(store, { kind: STACK_PROFILES, id: "hf-qwen3-sdpa-torch2.11-hopper" }))
      .value;
  const onV5 = { ...claim({ tp: 2 }), software: { stack: v5.id, components: v5.components } };
  assert.match(stop(onV5, v5), /^NOT_VERIFIED: .*declares no tensor-parallel layout/);
  // Pipeline stages copy activations: tp x pp ranks must fit the machine, then each stage's TP
  // pass is what is recomputed; HF's tp_plan runs no pipeline stages (review h95): not modelled; pp alone splits the
  // layers over GPUs by device_map, the bits of one GPU's pass.
  assert.match(
    stop(claim({ tp: 2, pp: 2 }, 4)),
    /^NOT_VERIFIED: tp=2 with pp=2 .*tp_plan runs no pipeline stages/,
  );
  assert.equal(stop(claim({ pp: 2 }, 2)), "resolved");
  assert.match(stop(claim({ tp: 2, pp: 2 }, 2)), /^FAIL: .*tp=2 x pp=2 x dp=1 ranks on 2 GPU/);
  // Data-parallel replicas are ranks too; off vLLM each replica runs its own passes.
  assert.equal(stop(claim({ tp: 2, dp: 4 }, 8)), "resolved");
  assert.match(stop(claim({ tp: 2, dp: 8 }, 8)), /^FAIL: .*tp=2 x pp=1 x dp=8 ranks on 8 GPU/);
  assert.match(stop(claim({ dp: 4096 }, 1)), /^FAIL: .*dp=4096 ranks on 1 GPU/);
  assert.equal(
    stop(
      claim({
        tp: 8,
        pp: 1,
        allReduce: { ...TREE4, trees: [{ down: [[1], [2], [3], [4], [5], [6], [7], []] }] },
      }),
    ),
    "resolved",
  );
});

Deno.test("sequence records served at TP 2 and TP 4 on HF continuous batching (dense and MoE) are NOT_VERIFIED, honest or falsified: Transformers 4.57's paged cache keeps every KV head", async () => {
  const serving = parseScenario(oneGemmScenario({ logId: "tp-serving", seed: "tps-v1" }, {
    hardware: { profile: "a100", count: 4 },
    ...servedSection(["tables/models/qwen3-tiny-tp", "tables/models/qwen3-tiny-moe-tp"], {
      catalog: "demo-qwen3-tiny-tp-a100",
      parallel: [{ tp: 4, allReduce: RING4 }, { tp: 2 }],
    }),
  }));
  const made = await makeClaims(serving, { store, walker, attention });
  assert.equal(made.falsified.length, 2);
  const blobs: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(made.blobs.get(d) ?? null),
  };
  const served = parseClaimLog(formatClaimLog([...made.records]));
  const seen = new Set<string>();
  for (let index = 1; index < served.records.length; index++) {
    const p = served.records[index]!.predicate;
    seen.add(`${(p.workload as { model: { type: string } }).model.type} tp=${p.parallelism.tp}`);
    const r = await verifyRecord({ store, blobs, walker, attention }, { log: served, index });
    assert.equal(r.status, "NOT_VERIFIED", `${index}: ${r.reason}`);
    assert.match(r.reason, /^tp=[24] on HF continuous batching .*every KV head/);
  }
  assert.deepEqual([...seen].sort(), ["qwen3 tp=4", "qwen3_moe tp=2"]);
});

Deno.test("a stated NCCL environment is read against the recorded NCCL all-reduce: one that rules it out FAILs, one that leaves the channels, algorithm or protocol free is NOT_VERIFIED where the bits match", async () => {
  // An honest tree record (the parallel list's fourth topology; not falsified).
  const falsified = new Set(out.falsified.map((f) => f.seq));
  const index = log.records.findIndex((r, i) =>
    i > 0 && !falsified.has(i) &&
    (r.predicate.parallelism.allReduce as { kind?: string } | undefined)?.kind === "nccl-tree"
  );
  assert.ok(index > 0);
  const verdict = async (components: Record<string, string>) => {
    // Cut after the edited record: it is the last, so no later link breaks.
    const records = log.records.slice(0, index + 1);
    const p = records[index]!.predicate;
    records[index] = {
      ...records[index]!,
      predicate: {
        ...p,
        // The prover's own NCCL pins make way for the settings under test.
        software: { ...p.software, components: { ...unpinned(p), ...components } },
      },
    };
    const edited = parseClaimLog(formatClaimLog(records));
    return await verifyRecord({ store, blobs, walker, attention }, { log: edited, index });
  };
  const bare = await verdict({});
  assert.equal(bare.status, "NOT_VERIFIED", bare.reason);
  assert.match(bare.reason, /states no NCCL_ALGO .* with 4 ranks NCCL's tuner picks/);
  // An unpinned environment is said only after a match: a falsified record (it claims the ring,
  // ran the tree) stating no pins still FAILs.
  const ringClaim = log.records.findIndex((r, i) =>
    falsified.has(i) &&
    (r.predicate.parallelism.allReduce as { kind?: string } | undefined)?.kind === "nccl-ring"
  );
  const lie = log.records[ringClaim]!.predicate;
  const stripped = log.records.slice(0, ringClaim + 1);
  stripped[ringClaim] = {
    ...stripped[ringClaim]!,
    predicate: { ...lie, software: { ...lie.software, components: unpinned(lie) } },
  };
  const unpinnedLie = await verifyRecord({ store, blobs, walker, attention }, {
    log: parseClaimLog(formatClaimLog(stripped)),
    index: ringClaim,
  });
  assert.equal(unpinnedLie.status, "FAIL", unpinnedLie.reason);
  assert.equal(unpinnedLie.finding, "fingerprint", unpinnedLie.reason);
  const pinned = await verdict({ env: "NCCL_ALGO=Tree NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=1" });
  assert.equal(pinned.status, "PASS", pinned.reason);
  for (
    const [components, why] of [
      [{ env: "NCCL_ALGO=allreduce:ring;broadcast:tree" }, /NCCL_ALGO=.*algorithm \(tree\)/],
      [{ NCCL_PROTO: "LL128" }, /NCCL_PROTO=LL128 .*protocol \(simple\)/],
      [{ launch_env: "NCCL_MIN_NCHANNELS=4" }, /NCCL_MIN_NCHANNELS=4/],
    ] as const
  ) {
    const r = await verdict(components);
    assert.equal(r.status, "FAIL", `${JSON.stringify(components)}: ${r.reason}`);
    assert.match(r.reason, /record contradicts itself/);
    assert.match(r.reason, why);
  }
  const free = await verdict({ env: "NCCL_ALGO=Tree NCCL_MAX_NCHANNELS=4" });
  assert.equal(free.status, "NOT_VERIFIED", free.reason);
  assert.match(
    free.reason,
    /^recomputed output matches the fingerprint, but .*NCCL_MAX_NCHANNELS=4/,
  );
  // A list that allows the recorded algorithm or protocol and others leaves NCCL's tuner free to
  // pick per message size (review h60 F1).
  for (const env of ["NCCL_ALGO=Ring,Tree", "NCCL_PROTO=LL,LL128,Simple", "NCCL_PROTO=^LL"]) {
    const rest = env.startsWith("NCCL_ALGO") ? {} : { NCCL_ALGO: "Tree" };
    const r = await verdict({ ...rest, NCCL_MAX_NCHANNELS: "1", env });
    assert.equal(r.status, "NOT_VERIFIED", `${env}: ${r.reason}`);
    assert.match(r.reason, /^recomputed output matches the fingerprint, but .*per message size/);
    assert.ok(r.reason.includes(env), r.reason);
  }
});

Deno.test("a stated NCCL release other than 2.27.x is NOT_VERIFIED before any recomputation for an NCCL ring or tree above two ranks; a contradiction still FAILs first, and two ranks or 2.27.x are unaffected", async () => {
  // The replay follows NCCL 2.27's chunking; 2.18 splits a message otherwise (review h60 F2).
  const falsified = new Set(out.falsified.map((f) => f.seq));
  const honest = (kind: string | undefined, tp: number) =>
    log.records.findIndex((r, i) =>
      i > 0 && !falsified.has(i) && r.predicate.parallelism.tp === tp &&
      (r.predicate.parallelism.allReduce as { kind?: string } | undefined)?.kind === kind
    );
  const verdict = async (
    index: number,
    components: Record<string, string>,
    fingerprint: Partial<ClaimPredicate["fingerprint"]> = {},
  ) => {
    const records = log.records.slice(0, index + 1);
    const p = records[index]!.predicate;
    records[index] = makeClaimRecord({
      ...p,
      software: { ...p.software, components: { ...p.software.components, ...components } },
      fingerprint: { ...p.fingerprint, ...fingerprint },
    });
    const edited = parseClaimLog(formatClaimLog(records));
    return await verifyRecord({ store, blobs, walker, attention }, { log: edited, index });
  };
  for (const kind of ["nccl-ring", "nccl-tree"]) {
    const index = honest(kind, 4);
    assert.ok(index > 0, kind);
    for (const fingerprint of [{}, { sha256: "0".repeat(64) }]) {
      const r = await verdict(index, { nccl: "2.18.3-1+cuda12.2" }, fingerprint);
      assert.equal(r.status, "NOT_VERIFIED", `${kind}: ${r.reason}`);
      assert.match(
        r.reason,
        new RegExp(
          `^the NCCL replay follows release 2\\.27's chunking; the stated nccl ` +
            `'2\\.18\\.3-1\\+cuda12\\.2' is not modelled \\(the all-reduce '${kind}' on 4 ranks\\)$`,
        ),
      );
      assert.ok(!r.steps.some((s) => s.step === "recompute"), `${kind}: nothing recomputed`);
    }
    for (const nccl of ["2.27.3", "2.27.7-1+cuda12.9", "NCCL 2.27"]) {
      const r = await verdict(index, { nccl });
      assert.equal(r.status, "PASS", `${kind} ${nccl}: ${r.reason}`);
    }
    // The record's own contradiction comes first.
    const both = await verdict(index, {
      nccl: "2.18.3",
      NCCL_ALGO: kind === "nccl-ring" ? "Tree" : "Ring",
    });
    assert.equal(both.status, "FAIL", both.reason);
    assert.match(both.reason, /record contradicts itself: the stated NCCL_ALGO/);
  }
  // Two ranks add once and round once whatever the release: unaffected.
  const two = honest(undefined, 2);
  assert.ok(two > 0);
  const r = await verdict(two, { nccl: "2.18.3" });
  assert.equal(r.status, "PASS", r.reason);
});

Deno.test("a TP 2 record naming no all-reduce is not said to have stated the verifier's default", async () => {
  // Review h60 F4: the evidence read "(hf-tp-plan, nccl-ring)", an implementation the record
  // never named.
  const falsified = new Set(out.falsified.map((f) => f.seq));
  const at = (stated: boolean) =>
    log.records.findIndex((r, i) =>
      i > 0 && !falsified.has(i) && r.predicate.parallelism.tp === (stated ? 4 : 2) &&
      (r.predicate.parallelism.allReduce !== undefined) === stated
    );
  const component = async (index: number) => {
    const r = await verifyRecord({ store, blobs, walker, attention }, { log, index });
    assert.equal(r.status, "PASS", r.reason);
    return r.evidence!.find((e) => e.component.startsWith("tensor parallelism"))!.component;
  };
  assert.match(
    await component(at(false)),
    /^tensor parallelism tp=2 \(hf-tp-plan, all-reduce not stated: the verifier ran nccl-ring, its default for two ranks/,
  );
  assert.match(
    await component(at(true)),
    /^tensor parallelism tp=4 \(hf-tp-plan, nccl-(ring|tree)\)$/,
  );
});

Deno.test("_checkServingTensorParallel(): tp > 1 on HF continuous batching (an HF stack that flattens its batch) is NOT_VERIFIED, for forward and served records alike; HF's padded prefill and vLLM are not refused", async () => {
  const load = async (id: string) => (await loadAsset(store, { kind: STACK_PROFILES, id })).value;
  const cb = await load("hf-qwen3-continuous-batching-torch2.8");
  const refused = (s: typeof stack, tp: number) => {
    try {
      _checkServingTensorParallel(s, tp);
      return null;
    } catch (e) {
      if (e instanceof _Stop) return `${e.status}: ${e.why}`;
      throw e;
    }
  };
  assert.match(refused(cb, 2)!, /^NOT_VERIFIED: tp=2 on HF continuous batching .*every KV head/);
  assert.equal(refused(cb, 1), null);
  assert.equal(refused(stack, 4), null); // hf-qwen3-flash-attn-torch2.8: padded prefill
  assert.equal(refused(await load("vllm-0.11-eager-fa2"), 8), null);
});

Deno.test("_checkClaimedWorld(): NVLink across more than two bridged PCIe cards FAILs (a bridge joins two cards), two of them and PCIe do not", async () => {
  // NVIDIA's H100 PCIe and A30 data sheets: an NVLink bridge joins two cards; the A100 also
  // ships as SXM modules on NVSwitch boards, where every GPU of the group is NVLink-connected.
  const world = (gpu: typeof a100, parallelism: Record<string, unknown>) => {
    try {
      _checkClaimedWorld(claim({ allReduce: RING4, ...parallelism }), stack, gpu);
    } catch (e) {
      if (e instanceof _Stop) return `${e.status}: ${e.why}`;
      throw e;
    }
    return "no contradiction";
  };
  for (const id of ["h100-pcie", "a30"]) {
    const { profile: gpu } = await loadGpuProfile(store, id);
    assert.match(
      world(gpu, { tp: 4, interconnect: "nvlink" }),
      /^FAIL: record contradicts its hardware: interconnect 'nvlink' on 4 .*NVLink bridge, so 4 are not all NVLink-connected/,
      id,
    );
    assert.equal(world(gpu, { tp: 4, interconnect: "pcie" }), "no contradiction", id);
    const two = { tp: 2, allReduce: undefined, interconnect: "nvlink" };
    assert.equal(world(gpu, two), "no contradiction", id);
  }
  assert.equal(world(a100, { tp: 4, interconnect: "nvlink" }), "no contradiction");
});

Deno.test("_checkSplit(): on vLLM, a MoE width the tp ranks do not divide FAILs without expert parallelism and not with ep = tp, whose ranks hold whole experts", async () => {
  // vLLM 0.11 FusedMoEParallelConfig.make: with --enable-expert-parallel the MoE layer's tp_size
  // is 1 (each rank owns whole experts); without it FusedMoE asserts that tp divides the
  // intermediate size of each expert.
  const vllm = (await loadAsset(store, { kind: STACK_PROFILES, id: "vllm-0.11-eager-fa2" })).value;
  const config = parseDecoderConfig({
    ...JSON.parse(
      await Deno.readTextFile(
        new URL("../../tables/models/qwen3-tiny-moe/config.json", import.meta.url),
      ),
    ),
    num_attention_heads: 4,
    num_key_value_heads: 4,
    moe_intermediate_size: 6,
  });
  const split = (ep: number) => {
    try {
      _checkSplit(claim({ tp: 4, ep }), { stack: vllm, config });
    } catch (e) {
      if (e instanceof _Stop) return `${e.status}: ${e.why}`;
      throw e;
    }
    return "no contradiction";
  };
  assert.match(split(1), /^FAIL: .*the MoE intermediate size 6 over its 4 ranks/);
  assert.equal(split(4), "no contradiction");
});
