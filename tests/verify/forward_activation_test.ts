/**
 * The activation bound of a prefill forward (`forwardActivation`): a sequence's score rows
 * [L, L] count only where the stack's attention holds them (HF's eager attention); FA2, which
 * walks tiles of keys, is bounded by the rows it does hold, so a long FA2 prefill is recomputed
 * where it had been refused for an L x L tensor it never makes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  type ModelForwardWorkload,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import type { Fa2Forward } from "../../src/kernels/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { forwardActivation, MAX_RECOMPUTE_ELEMENTS, verifyRecord } from "../../src/verify/mod.ts";
import { engineWalker, forwardStack, vllmForwardStack } from "../model/forward/_forward_fixture.ts";
import { forwardSection, oneGemmScenario } from "./_serving_fixture.ts";

const TINY = parseDecoderConfig(
  JSON.parse(
    await Deno.readTextFile(
      new URL("../../tables/models/qwen3-tiny-dense/config.json", import.meta.url),
    ),
  ),
);
const RECIPE = JSON.parse(
  await Deno.readTextFile(
    new URL("../../profiles/recipes/cutlass-kwalk-128x128x64.json", import.meta.url),
  ),
);
/** The shortest prompt whose score rows [L, L] are over the limit (16,385^2 > 2^28). */
const LONG = 2 ** 14 + 1;

Deno.test("forwardActivation: eager attention's score rows count, FA2's (Dao's, PyTorch's, vLLM's paged) do not", () => {
  const eager = forwardStack({ attention: "eager" });
  assert.deepEqual(forwardActivation(TINY, { lens: [LONG], stack: eager }), [LONG, LONG]);
  assert.ok(LONG * LONG > MAX_RECOMPUTE_ELEMENTS);
  for (
    const stack of [
      forwardStack(),
      forwardStack({ attention: "fa2-pytorch-bundled" }),
      vllmForwardStack(),
    ]
  ) {
    // The widest row is the MLP's (intermediate 768), whatever the prompt's length.
    assert.deepEqual(forwardActivation(TINY, { lens: [LONG], stack }), [LONG, 768]);
    assert.deepEqual(forwardActivation(TINY, { lens: [2 ** 16], stack }), [2 ** 16, 768]);
  }
  // Padded rows: two sequences padded to the longest, either way.
  assert.deepEqual(forwardActivation(TINY, { lens: [3, 1000], stack: eager }), [2000, 1000]);
  assert.deepEqual(forwardActivation(TINY, { lens: [3, 1000], stack: forwardStack() }), [
    2000,
    768,
  ]);
  // A backend nothing is computed for (the forward refuses it) holds no score rows either.
  const cudnn = forwardStack({ attention: "cudnn-sdpa" });
  assert.deepEqual(forwardActivation(TINY, { lens: [LONG], stack: cudnn }), [LONG, 768]);
});

Deno.test("model_forward: a 16,385-token prompt on an FA2 stack is recomputed, not refused for an L x L activation FA2 never makes", async () => {
  const store = await openAssetStore();
  const scenario = parseScenario(oneGemmScenario({ logId: "long", seed: "long-v1" }, {
    forward: {
      ...forwardSection(["tables/models/qwen3-tiny-dense"], { records: 1, lengths: [3] }),
      batchSizes: [1],
    },
    falsify: [],
  }));
  const made = await makeClaims(scenario, { store, walker: engineWalker });
  const honest = made.records[1]!;
  const p = structuredClone(honest.predicate) as unknown as Record<string, unknown>;
  p.log = { logId: "x", seq: 0, prev: GENESIS_PREV };
  const w = p.workload as ModelForwardWorkload;
  const tokens = Array.from({ length: LONG }, (_, i) => 1 + (i * 37) % 500);
  // A recipe stack: its GEMMs run at any M (a catalog covers the M it was measured at).
  p.software = { stack: "cutlass-3.5-hf-flash-attn", components: {} };
  p.workload = {
    ...w,
    kernel: { recipe: RECIPE },
    tokens: { sequences: [tokens] },
    positions: [[0, LONG - 1]],
    layerChain: undefined,
  };
  const log = parseClaimLog(formatClaimLog([makeClaimRecord(p as never)]));
  // The FA2 core is where the forward would spend its time: reaching it is what is tested.
  const reached = new Error("the FA2 core was reached");
  let rows = 0;
  const attention = ((inputs, o) => {
    rows = inputs.q.length / (o.heads * o.headDim);
    throw reached;
  }) as Fa2Forward;
  const blobs = {
    dir: "memory",
    get: (d: string) => Promise.resolve(made.blobs.get(d) ?? null),
  };
  const said = await verifyRecord({ store, blobs, walker: engineWalker, attention }, {
    log,
    index: 0,
  }).then((r) => `${r.status}: ${r.reason}`, (e) => e);
  assert.equal(said, reached);
  assert.equal(rows, LONG);
});
