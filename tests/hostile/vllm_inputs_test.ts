/**
 * Hostile inputs of the vLLM stacks: a stack file with malformed or oversized CUDA-graph, layer
 * kernel or all-reduce fields is refused with one coded line (exit 2, never 70), and a scenario's
 * oversized CUDA-graph falsification is refused before its list is read.
 */
import assert from "node:assert/strict";
import { runBitaudit } from "../cli/_run.ts";
import { assertCliCode } from "../_assert_code.ts";
import { fieldsOf } from "../../src/json_fields.ts";
import { parseForwardFalsification } from "../../src/prover/forward_scenario.ts";

const ROOT = new URL("../../", import.meta.url);
const eager = JSON.parse(
  await Deno.readTextFile(new URL("profiles/stack/vllm-0.11-eager-fa2.json", ROOT)),
);

Deno.test("a stack file with malformed vLLM fields is refused with one coded line, exit 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-vllm-stack-" });
  try {
    const bad: Record<string, unknown>[] = [
      {
        cudaGraphs: {
          mode: "piecewise",
          captureSizes: Array.from({ length: 5000 }, (_, i) => i + 1),
        },
      },
      { cudaGraphs: { mode: "piecewise", captureSizes: [1, 1 << 20] } },
      { cudaGraphs: { mode: "piecewise", captureSizes: [8, 4] } },
      { layerKernels: "vllm-triton\u001b[31m" },
      { allReduceSetup: { ...eager.operators.allReduceSetup, multicast: "yes" } },
    ];
    for (const [i, ops] of bad.entries()) {
      const file = `${dir}/stack-${i}.json`;
      await Deno.writeTextFile(
        file,
        JSON.stringify({ ...eager, operators: { ...eager.operators, ...ops } }),
      );
      const r = await runBitaudit([
        "model",
        "classes",
        "--stack",
        file,
        "--profile",
        "a100",
        "--catalog",
        "demo-qwen3-tiny-a100",
        "--config",
        "tables/models/qwen3-tiny-dense/config.json",
        "--context",
        "10",
      ]);
      assert.equal(r.code, 2, `${JSON.stringify(ops).slice(0, 80)}: ${r.stderr}`);
      assertCliCode(r.stderr, "ASSET_FILE_INVALID");
      assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
      assert.ok(!r.stderr.includes("\u001b"), "no raw escape reaches the terminal");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a scenario's CUDA-graph falsification is bounded before its list is read", () => {
  const huge = { captureSizes: { length: 1e9 } as unknown };
  // An array-like that is no array is refused by type; a real oversized array by its length.
  assert.throws(
    () => parseForwardFalsification(fieldsOf(huge, "x"), { seq: 1, kind: "cuda_graphs" }),
    TypeError,
  );
  const big = { captureSizes: Array.from({ length: 1025 }, (_, i) => i + 1) };
  assert.throws(
    () => parseForwardFalsification(fieldsOf(big, "x"), { seq: 1, kind: "cuda_graphs" }),
    /more than 1024 sizes/,
  );
  const unsorted = { captureSizes: [4, 2] };
  assert.throws(
    () => parseForwardFalsification(fieldsOf(unsorted, "x"), { seq: 1, kind: "cuda_graphs" }),
    /ascending/,
  );
});
