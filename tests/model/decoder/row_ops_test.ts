/**
 * `normRows()` launches a per-head RMSNorm (Qwen3's q_norm/k_norm) as PyTorch does: one reduction
 * over the `[tokens, heads, head_dim]` view, whose `num_outputs` is tokens x heads, not tokens
 * (spec `stack_pytorch_hf.md` §1.1). The reduction's block shape depends on `num_outputs` where
 * a row of 128 is not vectorised (`REDUCE_STACK_CUDA_LEGACY`: 32 threads a row at 16 outputs, 128
 * at 1), so the sums of squares, and some outputs, differ.
 */
import assert from "node:assert/strict";
import { REDUCE_STACK_CUDA_LEGACY, rmsNorm } from "../../../src/kernels/mod.ts";
import { normRows } from "../../../src/model/mod.ts";
import { forwardRuntime } from "../forward/_forward_fixture.ts";

Deno.test("normRows(): QK-norm of one token's 16 heads is one reduction of 16 outputs (tokens x heads), not of 1", () => {
  const heads = 16, d = 128;
  const runtime = forwardRuntime();
  const weight = new Uint16Array(d).map((_, j) => 0x3f00 + (j % 128));
  const o = { rows: heads, hidden: d, weight, sfu: runtime.sfu, stack: REDUCE_STACK_CUDA_LEGACY };
  // A seeded search for a token on which the two launches disagree (each head: one value near
  // 2^12 among values in [1, 2)).
  let seed = 99;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let x: Uint16Array | undefined, expected: Uint16Array | undefined;
  for (let t = 0; t < 2_000 && x === undefined; t++) {
    const cand = new Uint16Array(heads * d).map((_, i) =>
      ((i % d === 0 ? 139 : 127) << 7) | Math.floor(next() * 128)
    );
    const viewed = rmsNorm(cand, { ...o, launchRows: heads, eps: 1e-6 }).output;
    const one = rmsNorm(cand, { ...o, launchRows: 1, eps: 1e-6 }).output;
    if (viewed.some((v, i) => v !== one[i])) [x, expected] = [cand, viewed];
  }
  assert.ok(x !== undefined && expected !== undefined, "no token tells the launches apart");
  const out = normRows(x, {
    width: d,
    perRow: heads,
    weight,
    runtime,
    stack: REDUCE_STACK_CUDA_LEGACY,
    eps: 1e-6,
    launchRows: new Int32Array([1]),
  });
  assert.deepEqual(out, expected);
});
