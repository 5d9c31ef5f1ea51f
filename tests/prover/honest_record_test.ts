/**
 * `makeClaims()` writes honest records only where `falsify` names none: a scenario whose honest
 * record the audit would FAIL for what it states of its world (library versions against its
 * stack's pins, ranks against its GPU count) or its attention's SM count (above the chip's) is
 * refused with `SCENARIO_INVALID`, naming the record's section and the fact, before any record is
 * computed, as `claims append` refuses such a record. (`claims make` wrote them, with no
 * "falsified" line, and the audit FAILed them: "record contradicts its GPU: multiProcessorCount
 * 200 on a 'a100', whose chip has 108 SMs".) A record the scenario falsifies is still written,
 * and still FAILs.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import { InputError } from "../../src/errors.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { ENGINE } from "../model/forward/_forward_fixture.ts";
import {
  assertVerdicts,
  forwardSection,
  oneGemmScenario,
  servedSection,
} from "../verify/_serving_fixture.ts";

const store = await openAssetStore();
const walker = engineWalker;
const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

const DENSE = ["tables/models/qwen3-tiny-dense"];

/** The demo's block section (the CUTLASS recipe stack), two records: attention, then FFN. */
const BLOCKS = {
  stack: "cutlass-3.5-hf-flash-attn",
  components: { cutlass: "3.5.0", pytorch: "2.8.0", flash_attn: "2.8.3" },
  recipe: {
    schema: "bitaudit.gemm-recipe/v1",
    name: "cutlass-kwalk-128x128x64",
    family: "kwalk",
    threadblock: [128, 128, 64],
    warp: [64, 64, 64],
    instruction: [16, 8, 16],
  },
  shape: { hidden: 256, intermediate: 768, heads: 2, kvHeads: 1, headDim: 128 },
  tokens: [4],
  records: 2,
  multiProcessorCount: 108,
  ropeTheta: "1000000",
};

function make(sections: Record<string, unknown>, hardware = { profile: "a100", count: 1 }) {
  const scenario = { ...oneGemmScenario({ logId: "honest", seed: "honest-v1" }, sections) };
  return makeClaims(parseScenario({ ...scenario, hardware }), { store, walker, attention });
}

/** Asserts a `SCENARIO_INVALID` refusal whose message names the section and the fact. */
async function assertRefused(made: Promise<unknown>, o: { section: string; fact: RegExp }) {
  await assert.rejects(made, (e) => {
    assert.ok(e instanceof InputError, String(e));
    assert.equal(e.code, "SCENARIO_INVALID");
    assert.ok(e.message.includes(`of ${o.section}: `), e.message);
    assert.match(e.message, o.fact);
    return true;
  });
}

Deno.test("makeClaims() refuses a forward section stating 200 SMs on an A100 (108): SCENARIO_INVALID, not records the audit FAILs", async () => {
  const forward = { ...forwardSection(DENSE, { records: 2 }), multiProcessorCount: 200 };
  await assertRefused(make({ forward, falsify: [] }), {
    section: "scenario.forward",
    fact: /multiProcessorCount 200 on a 'a100', whose chip has 108 SMs/,
  });
});

Deno.test("makeClaims() refuses a forward section stating PyTorch 2.4.0 on a stack pinning 2.8.0", async () => {
  const forward = { ...forwardSection(DENSE, { records: 1 }), components: { pytorch: "2.4.0" } };
  await assertRefused(make({ forward, falsify: [] }), {
    section: "scenario.forward",
    fact: /components\.pytorch '2\.4\.0', where the stack pins '2\.8\.0'/,
  });
});

Deno.test("makeClaims() refuses a forward section claiming tp=2 on a machine of one GPU", async () => {
  const forward = {
    ...forwardSection(["tables/models/qwen3-tiny-tp"], { records: 1 }),
    catalog: "demo-qwen3-tiny-tp-a100",
    parallel: [{ tp: 2 }],
  };
  await assertRefused(make({ forward, falsify: [] }), {
    section: "scenario.forward",
    fact: /tp=2 x pp=1 x dp=1 ranks on 1 GPU\(s\)/,
  });
});

Deno.test("makeClaims() refuses a block section's attention record stating 200 SMs on an A100", async () => {
  await assertRefused(make({ blocks: { ...BLOCKS, multiProcessorCount: 200 }, falsify: [] }), {
    section: "scenario.blocks",
    fact: /multiProcessorCount 200 on a 'a100'/,
  });
});

Deno.test("makeClaims() refuses a serving section stating 200 SMs on an A100", async () => {
  const { serving } = servedSection(DENSE);
  await assertRefused(make({ serving: { ...serving, multiProcessorCount: 200 }, falsify: [] }), {
    section: "scenario.serving",
    fact: /multiProcessorCount 200 on a 'a100'/,
  });
});

Deno.test("makeClaims() refuses GEMM records stating PyTorch 2.4.0 on a stack pinning 2.8.0", async () => {
  const software = { stack: "hf-qwen3-flash-attn-torch2.8", components: { pytorch: "2.4.0" } };
  await assertRefused(make({ software, falsify: [] }), {
    section: "the scenario's GEMM records",
    fact: /components\.pytorch '2\.4\.0', where the stack pins '2\.8\.0'/,
  });
});

Deno.test("makeClaims() still writes a record 'falsify' names, whatever its world states: the audit FAILs it", async () => {
  // Record 1 states 200 SMs and a flipped fingerprint: listed, so written as asked.
  const forward = { ...forwardSection(DENSE, { records: 1 }), multiProcessorCount: 200 };
  const made = await make({ forward, falsify: [{ seq: 1, kind: "fingerprint", bit: 5 }] });
  assert.equal(made.records.length, 2);
  assert.deepEqual(made.falsified, [{ seq: 1, kind: "fingerprint" }]);
  await assertVerdicts(made, { store, walker, attention });
});

Deno.test("makeClaims() refuses GEMM records naming the scenario's catalog on a recipe stack (CUTLASS): the audit FAILs their kernel", async () => {
  const software = { stack: "cutlass-3.5-hf-flash-attn", components: {} };
  await assertRefused(make({ software, falsify: [] }), {
    section: "the scenario's GEMM records",
    fact:
      /stack 'cutlass-3\.5-hf-flash-attn' runs explicit recipes, but the record names catalog 'demo-small-transformer-a100'/,
  });
});

Deno.test("makeClaims() refuses a block section naming its recipe on a catalog stack: the audit FAILs its kernel", async () => {
  const blocks = { ...BLOCKS, stack: "hf-qwen3-flash-attn-torch2.8", components: {} };
  await assertRefused(make({ blocks, falsify: [] }), {
    section: "scenario.blocks",
    fact:
      /stack 'hf-qwen3-flash-attn-torch2\.8' dispatches through a catalog, but the record names a recipe/,
  });
});

Deno.test("makeClaims() refuses a forward section naming its catalog on a recipe stack", async () => {
  const forward = {
    ...forwardSection(DENSE, { records: 1 }),
    stack: "cutlass-3.5-hf-flash-attn",
    components: {},
  };
  await assertRefused(make({ forward, falsify: [] }), {
    section: "scenario.forward",
    fact: /stack 'cutlass-3\.5-hf-flash-attn' runs explicit recipes, but the record names catalog/,
  });
});

Deno.test("makeClaims() refuses GEMM records on an H100 naming the A100's catalog: the audit says NOT_VERIFIED, and claims append refuses such a record", async () => {
  await assertRefused(make({ falsify: [] }, { profile: "h100-sxm", count: 1 }), {
    section: "the scenario's GEMM records",
    fact: /catalog 'demo-small-transformer-a100' was captured on 'a100', not 'h100-sxm'/,
  });
});

Deno.test("makeClaims() refuses a forward section on an H100 naming the A100's catalog", async () => {
  const forward = { ...forwardSection(DENSE, { records: 1 }), multiProcessorCount: 132 };
  await assertRefused(
    make({ catalog: "demo-small-transformer-h100-sxm", forward, falsify: [] }, {
      profile: "h100-sxm",
      count: 1,
    }),
    {
      section: "scenario.forward",
      fact: /catalog 'demo-qwen3-tiny-a100' was captured on 'a100', not 'h100-sxm'/,
    },
  );
});
