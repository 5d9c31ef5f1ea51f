/**
 * HF's sparse MoE block adds each expert's weighted output into the BF16 result with
 * `index_add_`, one expert at a time in ascending id (`Qwen3MoeSparseMoeBlock.forward`,
 * transformers 4.57.6 `modeling_qwen3_moe.py`: `expert_hit = ...nonzero()`, then
 * `for expert_idx in expert_hit: ... final_hidden_states.index_add_(0, top_x, ...)`). With top-8
 * every token takes eight BF16 adds, so their order decides bits. The experts here are built so
 * that each GEMM has one non-zero term per output (exact on any K-walk), which lets the test
 * write the expert MLP and the fold literally.
 */
import assert from "node:assert/strict";
import { createSfu, findDatapath } from "../../../src/hardware/mod.ts";
import {
  addBf16,
  mulBf16,
  REDUCE_STACK_CUDA_RECENT,
  rmsNorm,
  siluBf16,
} from "../../../src/kernels/mod.ts";
import { addBf16Once } from "../../../src/model/forward/mod.ts";
import { type ExpertWeights, runMoeBlock } from "../../../src/model/forward/moe_block.ts";
import { runtime, tensor } from "../blocks/_block_fixture.ts";

const H = 16, E = 10, K = 8, M = 4;
const moe = {
  experts: E,
  topK: K,
  intermediate: H,
  normTopkProb: true,
  decoderSparseStep: 1,
  mlpOnlyLayers: [],
};
const pow2 = (p: number) => (127 + p) << 7; // BF16 pattern of 2^p

/** Expert e: gate picks h[j] * 2^(e % 3), up picks h[(j + e) % H] * 2^-(e % 4), down is I. */
function expertWeights(e: number): ExpertWeights {
  const gate = new Uint16Array(H * H), up = new Uint16Array(H * H), down = new Uint16Array(H * H);
  for (let j = 0; j < H; j++) {
    gate[j * H + j] = pow2(e % 3);
    up[j * H + ((j + e) % H)] = pow2(-(e % 4));
    down[j * H + j] = pow2(0);
  }
  return { gate, up, down };
}

Deno.test("runMoeBlock(): top-8 experts are folded into the BF16 output in ascending id, as HF's index_add_ loop", async () => {
  const sfu = createSfu({ mode: "ieee" });
  // x at 2^-20 (RMSNorm scales it back up; eps below its mean square): the residual add
  // x + y leaves y's BF16 bits, so the output shows the fold itself.
  const x = tensor("moe-order-x", M * H, 3).map((b) => b - (20 << 7));
  const norm = tensor("moe-order-norm", H, 1).map((b) => (b & 0x7f) | 0x3f80);
  const router = tensor("moe-order-router", E * H, 2);
  const rt = runtime();
  const datapath = findDatapath(rt.profile, { input: "bf16", output: "fp32" });
  assert.ok(datapath !== undefined);
  const o = {
    hidden: H,
    moe,
    runtime: rt,
    datapath,
    reduceStack: REDUCE_STACK_CUDA_RECENT,
    torchVersion: "2.8.0",
    eps: 1e-20,
    norm,
    router,
    expert: (e: number) => Promise.resolve(expertWeights(e)),
  };
  const got = await runMoeBlock(x, o);
  const { experts, weights } = got.routing;
  // Literal: h = RMSNorm(x); for e ascending, for each (token, slot) choosing e:
  // y[t] = index_add(y[t], bf16(down(bf16(silu(gate(h[t])) * up(h[t]))) * w[t, slot])).
  const h = rmsNorm(x, {
    rows: M,
    launchRows: M,
    hidden: H,
    weight: norm,
    sfu,
    stack: o.reduceStack,
    eps: o.eps,
  }).output;
  // Scaling by 2^p through the exponent field needs normal values far from the range ends.
  for (const b of h) assert.ok(((b >> 7) & 0xff) > 8 && ((b >> 7) & 0xff) < 240);
  const contributions: { t: number; scaled: Uint16Array }[] = [];
  for (let e = 0; e < E; e++) {
    for (let t = 0; t < M; t++) {
      const s = Array.from(experts.subarray(t * K, (t + 1) * K)).indexOf(e);
      if (s < 0) continue;
      const gate = Uint16Array.from({ length: H }, (_, j) => h[t * H + j]! + ((e % 3) << 7));
      const up = Uint16Array.from(
        { length: H },
        (_, j) => h[t * H + ((j + e) % H)]! - ((e % 4) << 7),
      );
      const act = mulBf16(siluBf16(gate, { mufu: sfu }), up);
      contributions.push({ t, scaled: mulBf16(act, new Uint16Array(H).fill(weights[t * K + s]!)) });
    }
  }
  const fold = (list: typeof contributions) => {
    const y = new Uint16Array(M * H);
    for (const { t, scaled } of list) {
      for (let j = 0; j < H; j++) y[t * H + j] = addBf16Once(y[t * H + j]!, scaled[j]!);
    }
    return Array.from(addBf16(x, y));
  };
  const multi = contributions.length;
  assert.equal(multi, M * K);
  const want = fold(contributions);
  // The data make the order visible: the descending fold gives other bits.
  assert.notDeepEqual(fold(contributions.slice().reverse()), want);
  assert.deepEqual(Array.from(got.out), want);
});
