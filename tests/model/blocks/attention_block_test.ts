import assert from "node:assert/strict";
import { ropeInvFreq } from "../../../src/kernels/mod.ts";
import {
  type AttentionBlockOptions,
  planAttentionBlock,
  QWEN3_4B_LAYER,
  runAttentionBlock,
} from "../../../src/model/mod.ts";
import { attentionWeights, runtime, stack, tensor, teslaSfu } from "./_block_fixture.ts";

const SHAPE = { hidden: 64, intermediate: 96, heads: 4, kvHeads: 2, headDim: 128 };
const M = 5;
const D = 128;
const weights = attentionWeights("attn", SHAPE);
const x = tensor("attn.x", M * 64);
const base: AttentionBlockOptions = {
  shape: SHAPE,
  runtime: runtime(),
  rope: { theta: 1_000_000 },
  multiProcessorCount: 108,
};

function planOrThrow(o: Partial<AttentionBlockOptions> = {}, tokens = M) {
  const p = planAttentionBlock(tokens, { ...base, ...o });
  if (!p.supported) throw new Error(p.reason);
  return p.plan;
}

Deno.test("`runAttentionBlock()` attends token 0 to itself only: its core output is its own V row", async () => {
  for (
    const rt of [
      base.runtime,
      runtime({
        sfu: teslaSfu(),
        stack: stack({ sfu: { mode: "tesla-table", minimumStatus: "spot-checked" } }),
      }),
    ]
  ) {
    const plan = planOrThrow({ runtime: rt });
    const r = await runAttentionBlock(x, { plan, runtime: rt, weights });
    for (let h = 0; h < 4; h++) {
      const kvh = Math.floor(h / 2); // GQA: query heads 0,1 read KV head 0
      assert.deepEqual(
        r.core.out.subarray(h * D, (h + 1) * D),
        r.v.out.subarray(kvh * D, (kvh + 1) * D),
      );
    }
    // Later tokens mix several values: not a copy of their own V row.
    const last = (M - 1) * 4 * D;
    assert.notDeepEqual(
      r.core.out.subarray(last, last + D),
      r.v.out.subarray((M - 1) * 2 * D, (M - 1) * 2 * D + D),
    );
    assert.equal(r.out.length, M * 64);
  }
});

Deno.test("`runAttentionBlock()` rotates q and k at positions 0..M-1: position 0 is left unchanged by RoPE", async () => {
  const plan = planOrThrow();
  const r = await runAttentionBlock(x, { plan, runtime: base.runtime, weights });
  assert.deepEqual(r.qRope.subarray(0, 4 * D), r.qNorm.output.subarray(0, 4 * D));
  assert.notDeepEqual(r.qRope.subarray(4 * D, 8 * D), r.qNorm.output.subarray(4 * D, 8 * D));
  assert.equal(r.qNorm.sumsq.length, M * 4, "QK-norm reduces one row per (token, head)");
  assert.equal(r.kNorm.sumsq.length, M * 2);
});

Deno.test("`planAttentionBlock()` takes recorded inv_freq patterns as they are", () => {
  const inv = ropeInvFreq(D, { theta: 1_000_000 });
  assert.deepEqual(planOrThrow().invFreq, inv);
  const skewed = inv.slice();
  skewed[37] = skewed[37]! + 1; // one ulp off: a CPU powf that differs in the last bit
  assert.deepEqual(planOrThrow({ rope: { invFreq: skewed } }).invFreq, skewed);
  assert.throws(() => planOrThrow({ rope: { invFreq: inv.subarray(1) } }), TypeError);
});

Deno.test("`planAttentionBlock()` reports theta-derived RoPE at head dimension 96 as unsupported: PyTorch leaves entries to glibc powf", () => {
  const shape = { ...SHAPE, headDim: 96 };
  const p = planAttentionBlock(M, { ...base, shape });
  assert.equal(p.supported, false);
  assert.match(p.supported ? "" : p.reason, /scalar glibc powf.*record the model's inv_freq/);
  // The model's recorded patterns are taken as they are.
  const inv = Uint32Array.from({ length: 48 }, (_, i) => 0x3f800000 - 0x10000 * i);
  assert.equal(planAttentionBlock(M, { ...base, shape, rope: { invFreq: inv } }).supported, true);
});

Deno.test("`planAttentionBlock()` reports cuDNN, memory-efficient and eager attention as unsupported, with the reason", () => {
  for (
    const [attention, why] of [
      ["cudnn-sdpa", /closed source/],
      ["sdpa-mem-efficient", /memory-efficient/],
      ["eager", /eager attention in block claims is not modelled/],
    ] as const
  ) {
    const r = planAttentionBlock(M, { ...base, runtime: runtime({ stack: stack({ attention }) }) });
    assert.equal(r.supported, false);
    assert.match(!r.supported ? r.reason : "", why);
  }
});

Deno.test("`planAttentionBlock()` needs MUFU.RCP for the Dao build and checks its status", () => {
  const rt = (minimumStatus: string) =>
    runtime({
      sfu: teslaSfu(),
      stack: stack({ attention: "fa2-dao-fastmath", sfu: { mode: "tesla-table", minimumStatus } }),
    });
  const ok = planOrThrow({ runtime: rt("spot-checked") });
  assert.deepEqual(ok.sfu.map((s) => s.fn), ["ex2", "rcp", "rsqrt"]);
  assert.equal(ok.build.id, "dao-fastmath");
  const strict = planAttentionBlock(M, { ...base, runtime: rt("histogram-matched") });
  assert.match(!strict.supported ? strict.reason : "", /ex2/);
  const pytorch = planOrThrow();
  assert.deepEqual(pytorch.sfu.map((s) => s.fn), ["ex2", "rsqrt"], "PyTorch's build divides");
});

Deno.test("`planAttentionBlock()` follows FA2's split heuristic and needs MUFU.LG2 for a split launch", () => {
  const h100 = (stackOptions: Parameters<typeof stack>[0] = {}, sfu = teslaSfu()) =>
    runtime({ gpu: "h100-sxm", sfu, stack: stack(stackOptions) });
  const at = (tokens: number, rt = runtime({ gpu: "h100-sxm" })) =>
    planAttentionBlock(tokens, {
      ...base,
      shape: QWEN3_4B_LAYER,
      runtime: rt,
      multiProcessorCount: 132,
    });
  const one = at(128);
  assert.equal(one.supported && one.plan.splits, 1);
  const split = at(150); // 129-320 tokens on 132 SMs: two splits (spec stack_pytorch_hf.md §4.2)
  assert.equal(split.supported && split.plan.splits, 2);
  assert.deepEqual(split.supported && split.plan.sfu.map((s) => s.fn), ["ex2", "lg2", "rsqrt"]);
  // The table model's LG2 is model-only: a stack asking for spot-checked SFUs refuses the split
  // launch, and one that accepts model-only runs it and says so.
  const spot = { sfu: { mode: "tesla-table", minimumStatus: "spot-checked" } } as const;
  assert.equal(at(128, h100(spot)).supported, true);
  const refused = at(150, h100(spot));
  assert.match(!refused.supported ? refused.reason : "", /lg2 .*'model-only', below the minimum/);
  const loose = at(150, h100({ sfu: { mode: "tesla-table", minimumStatus: "model-only" } }));
  assert.deepEqual(
    loose.supported && loose.plan.sfu.find((s) => s.fn === "lg2")?.status,
    "model-only",
  );
});

Deno.test("`runAttentionBlock()` runs a split-KV launch: token 0 still sees only its own V row", async () => {
  const tokens = 150;
  const plan = planOrThrow({}, tokens);
  assert.ok(plan.splits > 1, `expected a split launch, got ${plan.splits}`);
  const xs = tensor("attn.x.split", tokens * 64);
  const r = await runAttentionBlock(xs, { plan, runtime: base.runtime, weights });
  assert.equal(r.core.splits, plan.splits);
  assert.ok(r.core.sfuFunctionsUsed.includes("lg2"));
  // Exact (ieee) SFU: split 0 holds key 0 with weight exp(0) = 1, the other split is empty.
  for (let h = 0; h < 4; h++) {
    const kvh = Math.floor(h / 2);
    assert.deepEqual(
      r.core.out.subarray(h * D, (h + 1) * D),
      r.v.out.subarray(kvh * D, (kvh + 1) * D),
    );
  }
  assert.equal(r.out.length, tokens * 64);
});

Deno.test("`runAttentionBlock()` checks tensor lengths; `planAttentionBlock()` checks the SM count", async () => {
  const plan = planOrThrow();
  await assert.rejects(
    () =>
      runAttentionBlock(x, {
        plan,
        runtime: base.runtime,
        weights: { ...weights, kNorm: weights.kNorm.subarray(1) },
      }),
    TypeError,
  );
  assert.throws(() => planAttentionBlock(M, { ...base, multiProcessorCount: 0 }), RangeError);
});
