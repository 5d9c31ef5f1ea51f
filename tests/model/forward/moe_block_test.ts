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
import { createSfu } from "../../../src/hardware/mod.ts";
import { addBf16, mulBf16, rmsNorm, siluBf16 } from "../../../src/kernels/mod.ts";
import { addBf16Once } from "../../../src/model/forward/mod.ts";
import { runMoeBlock } from "../../../src/model/forward/moe_block.ts";
import { H, M, moeLayer } from "./_moe_fixture.ts";

const E = 10, K = 8;

Deno.test("runMoeBlock(): top-8 experts are folded into the BF16 output in ascending id, as HF's index_add_ loop", async () => {
  const sfu = createSfu({ mode: "ieee" });
  // Experts: gate picks h[j] * 2^(e % 3), up picks h[(j + e) % H] * 2^-(e % 4), down is I.
  // x at 2^-20 (RMSNorm scales it back up; eps below its mean square): the residual add
  // x + y leaves y's BF16 bits, so the output shows the fold itself.
  const { x, layer } = moeLayer("moe-order", {
    experts: E,
    topK: K,
    shape: { upPeriod: 4, downPair: false },
  });
  const o = { ...layer, torchVersion: "2.8.0" };
  const got = await runMoeBlock(x, o);
  const { experts, weights } = got.routing;
  // Literal: h = RMSNorm(x); for e ascending, for each (token, slot) choosing e:
  // y[t] = index_add(y[t], bf16(down(bf16(silu(gate(h[t])) * up(h[t]))) * w[t, slot])).
  const h = rmsNorm(x, {
    rows: M,
    launchRows: M,
    hidden: H,
    weight: o.norm,
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
