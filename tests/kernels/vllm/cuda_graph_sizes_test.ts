/**
 * vLLM's CUDA-graph capture sizes and padding, against a line-by-line transcription of the
 * mapping vLLM builds (`bs_to_padded_graph_size`, compilation.py:570-582 at c3124680).
 */
import assert from "node:assert/strict";
import { vllmCaptureSizes, vllmPaddedTokens } from "../../../src/kernels/mod.ts";

/** vLLM's table: sizes sorted descending, each batch mapped to the size that ends its range. */
function referenceTable(sizes: readonly number[]): number[] {
  const desc = [...sizes].sort((a, b) => b - a);
  const max = desc[0] ?? 0;
  const table = new Array<number>(max + 1).fill(0);
  const next = [...desc.slice(1), 0];
  desc.forEach((end, i) => {
    const start = next[i]!;
    for (let bs = start; bs < end; bs++) table[bs] = bs === start ? start : end;
  });
  table[max] = max;
  return table;
}

Deno.test("default capture sizes: [1, 2, 4] then multiples of 8 up to min(2 x max_num_seqs, 512), within the token budget", () => {
  const d = vllmCaptureSizes({ maxNumSeqs: 256, maxNumBatchedTokens: 8192 });
  assert.deepEqual(d, [1, 2, 4, ...Array.from({ length: 64 }, (_, i) => 8 * (i + 1))]);
  assert.equal(vllmCaptureSizes({ maxNumSeqs: 1024, maxNumBatchedTokens: 8192 }).at(-1), 512);
  assert.deepEqual(vllmCaptureSizes({ maxNumSeqs: 2, maxNumBatchedTokens: 8192 }), [1, 2, 4]);
  assert.deepEqual(vllmCaptureSizes({ maxNumSeqs: 1, maxNumBatchedTokens: 8192 }), [1, 2]);
  assert.equal(vllmCaptureSizes({ maxNumSeqs: 256, maxNumBatchedTokens: 100 }).at(-1), 96);
  assert.deepEqual(
    vllmCaptureSizes({ maxNumSeqs: 8, maxNumBatchedTokens: 64, cudaGraphSizes: [48, 1, 16, 128] }),
    [1, 16, 48],
  );
  assert.deepEqual(
    vllmCaptureSizes({ maxNumSeqs: 8, maxNumBatchedTokens: 64, cudaGraphSizes: [20] }),
    [1, 2, 4, 8, 16],
  );
  assert.deepEqual(
    vllmCaptureSizes({ maxNumSeqs: 8, maxNumBatchedTokens: 64, enforceEager: true }),
    [],
  );
  assert.throws(
    () => vllmCaptureSizes({ maxNumSeqs: 8, maxNumBatchedTokens: 64, sequenceParallel: true }),
    /sequence parallelism/,
  );
  assert.throws(() => vllmCaptureSizes({ maxNumSeqs: 0, maxNumBatchedTokens: 64 }), /maxNumSeqs/);
});

Deno.test("padding equals vLLM's table for every batch up to the largest size, and none above it", () => {
  for (
    const sizes of [
      vllmCaptureSizes({ maxNumSeqs: 256, maxNumBatchedTokens: 8192 }),
      [1, 16, 48],
      [3, 7],
    ]
  ) {
    const table = referenceTable(sizes);
    for (let n = 0; n < table.length; n++) {
      assert.equal(vllmPaddedTokens(n, sizes), table[n], `${n}`);
    }
    const max = Math.max(...sizes);
    assert.equal(vllmPaddedTokens(max + 1, sizes), max + 1);
  }
  assert.equal(vllmPaddedTokens(5, []), 5, "no graphs: no padding");
  assert.throws(() => vllmPaddedTokens(-1, [1]), /non-negative/);
});
