/**
 * What `demo/scenario.json` makes, read from the scenario alone (no record is computed): every
 * bundled model family in the forward section, each with its topology (TP 1, 2 and 4), the vLLM
 * records among them (eager and piecewise graphs, dense and MoE, TP 1 and 2), the serving
 * section's engine runs (a new family, a TP 2 run, three vLLM runs), and where each falsification
 * falls. The
 * records themselves are audited by the demo's own test (`tests/cli/cli_test.ts`).
 */
import assert from "node:assert/strict";
import { parseScenario } from "../../src/prover/mod.ts";
import { parseStrictJson } from "../../src/json_strict.ts";

const ROOT = new URL("../../", import.meta.url);
const scenario = parseScenario(
  parseStrictJson(await Deno.readTextFile(new URL("demo/scenario.json", ROOT))),
);
const forward = scenario.forward!;
const serving = scenario.serving!;
const FIRST_FORWARD = scenario.records + scenario.blocks!.records;
const FIRST_SEQUENCE = FIRST_FORWARD + forward.records;

/** Checkpoint and TP size of forward record `i` (counted from the section's first). */
const forwardOf = (i: number) => ({
  dir: forward.checkpoints[i % forward.checkpoints.length]!.replace("tables/models/", ""),
  tp: forward.parallel![i % forward.parallel!.length]!.tp,
});

Deno.test("demo scenario: 280 GEMM, 20 block, 30 model-forward and 42 sequence records", () => {
  assert.equal(scenario.records, 280);
  assert.equal(scenario.blocks!.records, 20);
  assert.equal(forward.records, 30);
  assert.equal(serving.checkpoints.length * serving.requests, 42);
});

Deno.test("demo scenario: vLLM records in both sections: eager and piecewise graphs, dense and MoE, TP 1 and 2", () => {
  const stackOf = (i: number) => forward.stacks[i % forward.stacks.length]!.stack;
  const vllm = new Set<string>();
  for (let i = 0; i < forward.records; i++) {
    const stack = stackOf(i);
    if (!stack.startsWith("vllm-")) continue;
    const { dir, tp } = forwardOf(i);
    vllm.add(`${stack} ${dir.includes("moe") ? "moe" : "dense"} tp=${tp}`);
  }
  for (
    const want of [
      "vllm-0.11-eager-fa2 dense tp=1",
      "vllm-0.11-eager-fa2 dense tp=2",
      "vllm-0.11-eager-fa2 moe tp=1",
      "vllm-0.11-custom-ops-piecewise-fa2 dense tp=1",
      "vllm-0.11-custom-ops-piecewise-fa2 moe tp=2",
      "vllm-0.11-eager-fa2 dense tp=8",
      "vllm-0.11-eager-fa2 moe tp=2",
    ]
  ) assert.ok(vllm.has(want), `${want} in ${[...vllm]}`);
  // The MoE TP checkpoint's TP 2 pair splits its experts over the ranks (ep = tp).
  assert.deepEqual(forward.parallel![8], { tp: 2, ep: 2 });
  // The graph-padding falsification sits on a vLLM eager record (it ran inside graphs).
  const graphs = scenario.falsify.find((f) => f.kind === "cuda_graphs")!;
  assert.equal(stackOf(graphs.seq - FIRST_FORWARD), "vllm-0.11-eager-fa2");
});

Deno.test("demo scenario: the forward section runs every bundled model family, the TP checkpoints at TP 2, 4 and 8, three records a pair", () => {
  // `parallel` is aligned with `checkpoints`: record i runs pair i mod 10.
  assert.equal(forward.parallel!.length, forward.checkpoints.length);
  const pairs = new Map<string, number>();
  for (let i = 0; i < forward.records; i++) {
    const { dir, tp } = forwardOf(i);
    pairs.set(`${dir} tp=${tp}`, (pairs.get(`${dir} tp=${tp}`) ?? 0) + 1);
  }
  assert.deepEqual([...new Set([...pairs.keys()].map((k) => k.split(" ")[0]!))].sort(), [
    "llama3-tiny",
    "mistral-tiny",
    "qwen2-tiny",
    "qwen3-tiny-dense",
    "qwen3-tiny-moe",
    "qwen3-tiny-moe-tp",
    "qwen3-tiny-tp",
  ]);
  for (const dir of ["qwen3-tiny-tp", "qwen3-tiny-moe-tp"]) {
    const tps = [...pairs.keys()].filter((k) => k.startsWith(`${dir} `));
    assert.ok(tps.length >= 2, `${dir}: ${tps}`);
  }
  assert.deepEqual(
    [...new Set([...pairs.keys()].map((k) => k.split(" ")[1]))].sort(),
    ["tp=1", "tp=2", "tp=4", "tp=8"],
  );
  for (const [pair, n] of pairs) assert.equal(n, 3, pair);
});

Deno.test("demo scenario: the serving section runs a Llama 3 engine, a TP 2 engine and vLLM engines (dense TP 1 and 2, MoE)", () => {
  const runs = serving.checkpoints.map((c, i) =>
    `${c.replace("tables/models/", "")} tp=${serving.parallel![i % serving.parallel!.length]!.tp} ${
      serving.stacks[i % serving.stacks.length]!.stack
    }`
  );
  const hf = "hf-qwen3-continuous-batching-torch2.8-lg2-model";
  const vllm = "vllm-0.11-eager-fa2-lg2-model";
  assert.deepEqual(runs, [
    `qwen3-tiny-dense tp=1 ${hf}`,
    `qwen3-tiny-moe tp=1 ${hf}`,
    `llama3-tiny tp=1 ${hf}`,
    `qwen3-tiny-tp tp=2 ${hf}`,
    `qwen3-tiny-dense tp=1 ${vllm}`,
    `qwen3-tiny-tp tp=2 ${vllm}`,
    `qwen3-tiny-moe tp=1 ${vllm}`,
  ]);
});

Deno.test("demo scenario: the forward falsifications fall on the families and topologies the docs name", () => {
  const at = (seq: number) => {
    const f = scenario.falsify.find((x) => x.seq === seq)!;
    const { dir, tp } = forwardOf(seq - FIRST_FORWARD);
    return { kind: f.kind, dir, tp, ran: f.kind === "parallelism" ? f.ran : undefined };
  };
  assert.deepEqual(at(312), { kind: "weight_flip", dir: "llama3-tiny", tp: 1, ran: undefined });
  assert.deepEqual(at(314), { kind: "fingerprint", dir: "qwen2-tiny", tp: 1, ran: undefined });
  // Claims its pair's TP 2, ran TP 4.
  const tp = at(315);
  assert.deepEqual([tp.kind, tp.dir, tp.tp, tp.ran!.tp], ["parallelism", "qwen3-tiny-tp", 2, 4]);
  // Claims its pair's TP 4 ring, ran the TP 4 tree.
  const ar = at(326);
  assert.deepEqual([ar.kind, ar.dir, ar.tp, ar.ran!.tp], [
    "parallelism",
    "qwen3-tiny-moe-tp",
    4,
    4,
  ]);
  const claimed = forward.parallel![(326 - FIRST_FORWARD) % forward.parallel!.length]!;
  assert.equal(claimed.allReduce!.kind, "nccl-ring");
  assert.equal(ar.ran!.allReduce!.kind, "nccl-tree");
  // Every falsification names a record of the log, sequence falsifications the serving section.
  for (const f of scenario.falsify) {
    assert.ok(f.seq < FIRST_SEQUENCE + serving.checkpoints.length * serving.requests, `${f.seq}`);
  }
});
