/**
 * `servingRows()` refuses pass shapes no launch could have: a padded batch with fewer GEMM rows
 * than its tokens, a negative cached length, and MoE expert rows that do not add up to the pass's
 * rows times top-k (every row routes to top-k distinct experts: Transformers 4.57's
 * `Qwen3MoeSparseMoeBlock` takes `torch.topk(routing_weights, self.top_k)` per token and counts
 * an expert's rows by `one_hot(selected_experts)`).
 */
import assert from "node:assert/strict";
import { type PassShape, servingRows } from "../../../src/model/mod.ts";

const refused = (passes: PassShape[], o: Parameters<typeof servingRows>[2], why: string) =>
  assert.throws(
    () => servingRows(passes, [], o),
    (e: Error) => e instanceof RangeError && e.message.includes(why),
    why,
  );

Deno.test("servingRows(): a padded batch holds at least its tokens' rows, a flattened one exactly them", () => {
  // Two entries of 3 and 2 tokens: 5 tokens; padded to the longest, 6 rows.
  const pass = (rows: number): PassShape => ({
    entries: [{ query: 3, cached: 0 }, { query: 2, cached: 0 }],
    rows,
    logitsRows: 2,
  });
  for (const rows of [5, 6]) servingRows([pass(rows)], [], { flatten: false });
  for (const rows of [4, 1]) {
    refused([pass(rows)], { flatten: false }, `pass 0 says ${rows} GEMM rows for 5 tokens`);
  }
  servingRows([pass(5)], [], { flatten: true });
  refused([pass(6)], { flatten: true }, "pass 0 says 6 GEMM rows, its entries flatten to 5");
});

Deno.test("servingRows(): a negative cached length is refused, in an entry no sequence computes too", () => {
  const pass: PassShape = {
    entries: [{ query: 1, cached: 4 }, { query: 1, cached: -1 }],
    rows: 2,
    logitsRows: 2,
  };
  refused([pass], { flatten: true }, "pass 0 has a negative cached length");
});

Deno.test("servingRows(): each MoE layer's expert rows add up to the pass's rows times top-k", () => {
  // 3 rows, top-2 of 4 experts: 6 (row, expert) pairs per layer, each expert at most 3.
  const pass = (layer: number[]): PassShape => ({
    entries: [{ query: 3, cached: 0 }],
    rows: 3,
    logitsRows: 1,
    expertRows: [[3, 1, 1, 1], layer],
  });
  const o = { flatten: true, experts: 4, moeLayers: 2, topK: 2 };
  servingRows([pass([2, 2, 0, 2])], [], o);
  for (const [layer, sum] of [[[2, 2, 0, 1], 5], [[0, 0, 0, 0], 0], [[3, 2, 0, 2], 7]] as const) {
    refused([pass([...layer])], o, `expert rows adding up to ${sum}, not 3 rows x top-2`);
  }
  refused([pass([4, 1, 1, 0])], o, "an expert row count outside 0..rows");
});
