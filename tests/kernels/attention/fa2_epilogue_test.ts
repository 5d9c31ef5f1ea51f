/**
 * The FP32 instruction sites of the FA2 softmax that a data-driven walk rarely tells apart, each
 * pinned on inputs chosen so that the two candidate orders or fusions round differently:
 * - the exp2 argument `S * scale_log2 - max_scaled` (one FFMA in the fast-math wheel, FMUL then
 *   FADD in PyTorch's bundled build);
 * - the epilogue's quad all-reduce of the four lane sums, `(t0 + t2) + (t1 + t3)`.
 */
import assert from "node:assert/strict";
import { FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED } from "../../../src/kernels/mod.ts";
import { _fa2Arith } from "../../../src/kernels/attention/_fa2_arith.ts";
import { _fa2Epilogue } from "../../../src/kernels/attention/_fa2_epilogue.ts";
import { TESLA as sfu } from "./_fa2_fixture.ts";

const ONE = 0x3f800000;

Deno.test("FA2 exp2 argument: one FFMA in the fast-math wheel, FMUL then FADD in PyTorch's bundled build", () => {
  // s = k = 1 + 2^-12, max_scaled = 1 + 2^-11: s * k = 1 + 2^-11 + 2^-24 exactly.
  // FFMA (sfu_and_math.md §5.2, formats.md rounding table row 16): one rounding of 2^-24, which
  // is 0x33800000. FMUL + FADD (stack_pytorch_hf.md §3.2 item 1, UNFUSE_FMA): fl32(s * k) ties
  // to even at 1 + 2^-11, and 1 + 2^-11 - max_scaled is +0. (Swapping the two builds' choices
  // keeps them different, so a test that they differ does not tell which is which.)
  const s = 0x3f800800, k = 0x3f800800, m = 0x3f801000;
  assert.equal(_fa2Arith(FA2_DAO_FASTMATH, sfu).exp2Arg(s, k, m), 0x33800000);
  assert.equal(_fa2Arith(FA2_PYTORCH_BUNDLED, sfu).exp2Arg(s, k, m), 0);
});

Deno.test("FA2 epilogue: the row total is (t0 + t2) + (t1 + t3) over the quad's lane sums (ops.md §4.3 'finally')", () => {
  // Lane sums 1, 2^-24, 0, 2^-24: (1 + 0) + (2^-24 + 2^-24) = 1 + 2^-23 exactly; the adjacent
  // order (t0 + t1) + (t2 + t3) loses both halves to ties-to-even and gives 1.
  const laneSums = Uint32Array.of(ONE, 0x33800000, 0, 0x33800000);
  const arith = _fa2Arith(FA2_PYTORCH_BUNDLED, sfu); // IEEE reciprocal: 1/(1 + 2^-23)
  const row = _fa2Epilogue(
    { o: Uint32Array.of(ONE, 0x40000000), rowMax: 0, laneSums },
    { arith, softmaxScale: ONE, lse: false, split: false },
  );
  // fl32(1 / (1 + 2^-23)) = 1 - 2^-23 (0x3f7ffffe); O = [1, 2] scaled by it.
  assert.deepEqual([...row.outF32], [0x3f7ffffe, 0x3ffffffe]);
});
