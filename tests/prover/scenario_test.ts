import assert from "node:assert/strict";
import { ncclEnvFinding, statedSettings } from "../../src/kernels/mod.ts";
import { parseScenario } from "../../src/prover/mod.ts";
import { topologyComponents } from "../../src/prover/scenario_parallel.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";
import { parseStrictJson } from "../../src/json_strict.ts";

Deno.test("parseScenario() refuses a projection whose records' output name the verifier would refuse", () => {
  const named = (name: string) =>
    oneGemmScenario({ logId: "names", seed: "names-v1" }, {
      model: { name: "m", layers: 1, projections: [{ name, n: 128, k: 256 }] },
      falsify: [],
    });
  for (const name of ["q_proj", "self_attn.qkv_proj"]) {
    assert.equal(parseScenario(named(name)).model.projections[0]!.name, name);
  }
  for (const name of ["q proj", "attention_block", "ffn_block", ""]) {
    assert.throws(
      () => parseScenario(named(name)),
      /scenario\.model\.projections\[0\]\.name': a GEMM record's output is one linear's output/,
      name,
    );
  }
});

Deno.test("parseScenario() refuses no projection, a projection named twice, and no batch size (each record draws one of each)", () => {
  const scenario = (o: Record<string, unknown>) =>
    oneGemmScenario({ logId: "lists", seed: "lists-v1" }, { falsify: [], ...o });
  const p = (name: string, n: number) => ({ name, n, k: 256 });
  assert.throws(
    () => parseScenario(scenario({ model: { name: "m", layers: 1, projections: [] } })),
    /'scenario\.model\.projections': empty/,
  );
  assert.throws(
    () =>
      parseScenario(
        scenario({
          model: { name: "m", layers: 1, projections: [p("q_proj", 128), p("q_proj", 64)] },
        }),
      ),
    /'scenario\.model\.projections\[1\]\.name': 'q_proj' is named twice/,
  );
  assert.throws(() => parseScenario(scenario({ batchSizes: [] })), /'scenario\.batchSizes': empty/);
  assert.equal(parseScenario(scenario({ batchSizes: [3] })).batchSizes.length, 1);
});

Deno.test("parseScenario() refuses a list of sizes longer than 4,096 as the scenario's own error (a spread of 300,000 overflowed the call stack)", () => {
  const scenario = (o: Record<string, unknown>) =>
    oneGemmScenario({ logId: "long", seed: "long-v1" }, { falsify: [], ...o });
  assert.equal(
    parseScenario(scenario({ batchSizes: new Array(4096).fill(1) })).batchSizes.length,
    4096,
  );
  for (const n of [4097, 300_000]) {
    assert.throws(
      () => parseScenario(scenario({ batchSizes: new Array(n).fill(1) })),
      new RegExp(`'scenario\\.batchSizes': ${n} entries, at most 4096`),
    );
  }
});

Deno.test("parseScenario() refuses a section's stack or components beside its stacks, which no record would read (review h175)", async () => {
  const demo = parseStrictJson(
    await Deno.readTextFile(new URL("../../demo/scenario.json", import.meta.url)),
  ) as Record<string, Record<string, unknown>>;
  // The demo names each record's stack in `stacks` alone.
  const parsed = parseScenario(demo);
  assert.equal(parsed.forward!.stacks.length, 30);
  assert.equal(parsed.serving!.stacks.length, 7);
  const extra = [
    ["components", { pytorch: "2.4.0" }],
    ["stack", "hf-qwen3-flash-attn-torch2.8"],
  ] as const;
  for (const section of ["forward", "serving"]) {
    for (const [key, value] of extra) {
      const edited = { ...demo, [section]: { ...demo[section], [key]: value } };
      assert.throws(
        () => parseScenario(edited),
        new RegExp(`'scenario\\.${section}\\.${key}': not beside 'scenario\\.${section}\\.stacks'`),
        `${section}.${key}`,
      );
    }
  }
  // Without stacks, the section's stack and components are its one entry.
  const { stacks: _stacks, ...single } = demo.forward!;
  const one = parseScenario({
    ...demo,
    forward: { ...single, stack: "hf-qwen3-flash-attn-torch2.8", components: { pytorch: "2.8.0" } },
  });
  assert.deepEqual(one.forward!.stacks, [{
    stack: "hf-qwen3-flash-attn-torch2.8",
    components: { pytorch: "2.8.0" },
  }]);
  assert.throws(() => parseScenario({ ...demo, forward: single }), /'scenario\.forward\.stack'/);
});

Deno.test("topologyComponents() adds the NCCL pins a record above two ranks needs, by exact name: a lowercase nccl_algo pins nothing and leaves NCCL_ALGO to add (review m2)", () => {
  const ring = {
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [[0, 1, 2, 3]],
  } as const;
  const tp4 = { tp: 4, allReduce: ring } as unknown as Parameters<typeof topologyComponents>[1];
  for (const env of ["", "nccl_algo=Ring", "NCCL_DEBUG=INFO"]) {
    const c = topologyComponents(env === "" ? {} : { env }, tp4);
    assert.equal(ncclEnvFinding(statedSettings(c), ring), null, `${env}: ${JSON.stringify(c)}`);
    assert.equal(c.NCCL_ALGO, "Ring", env);
  }
  // A pin the section states is kept as stated, not added twice.
  const own = topologyComponents({ env: "NCCL_ALGO=Ring" }, tp4);
  assert.equal(own.NCCL_ALGO, undefined);
  assert.equal(ncclEnvFinding(statedSettings(own), ring), null);
});

Deno.test("parseScenario() reads blocks.ropeTheta by the record's rule: a theta the record parser refuses ('1', '0.5', 65 characters) is refused naming the field, not written into a log that cannot be read", () => {
  const blocks = (ropeTheta: string) =>
    oneGemmScenario({ logId: "theta", seed: "theta-v1" }, {
      falsify: [],
      blocks: {
        stack: "cutlass-3.5-hf-flash-attn",
        components: {},
        recipe: { family: "kwalk", threadblock: [128, 128, 64], warp: [64, 64, 64] },
        shape: { hidden: 64, intermediate: 96, heads: 2, kvHeads: 1, headDim: 128 },
        tokens: [3],
        records: 2,
        multiProcessorCount: 108,
        ropeTheta,
      },
    });
  for (const theta of ["1000000", "1e6", "10000.5", "1.5"]) {
    assert.equal(parseScenario(blocks(theta)).blocks?.ropeTheta, theta);
  }
  for (
    const [theta, why] of [["1", /must be a decimal > 1/], ["0.5", /must be a decimal > 1/], [
      "1".repeat(65),
      /does not match/,
    ]] as const
  ) {
    assert.throws(
      () => parseScenario(blocks(theta)),
      (e: Error) => {
        assert.ok(e instanceof RangeError, String(e));
        assert.match(e.message, /'scenario\.blocks\.ropeTheta'/);
        assert.match(e.message, why);
        return true;
      },
      theta,
    );
  }
});
