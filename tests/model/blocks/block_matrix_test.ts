import assert from "node:assert/strict";
import { createFa2Pool, createGemmEngine } from "../../../src/engine/mod.ts";
import {
  planAttentionBlock,
  planFfnBlock,
  runAttentionBlock,
  runFfnBlock,
} from "../../../src/model/mod.ts";
import {
  attentionWeights,
  ffnWeights,
  runtime,
  stack,
  tensor,
  teslaSfu,
} from "./_block_fixture.ts";
import { createSfu } from "../../../src/hardware/mod.ts";

// Both blocks on the A100 and H100 profiles with both SFU modes (issue 6, "done when").
const SHAPE = { hidden: 64, intermediate: 96, heads: 4, kvHeads: 2, headDim: 128 };
const M = 6, SMS = { "a100": 108, "h100-sxm": 132 } as const;
const attn = attentionWeights("m", SHAPE);
const ffn = ffnWeights("m", SHAPE);
const x = tensor("m.x", M * 64);
const MODES = {
  "tesla-table": () => ({
    sfu: teslaSfu(),
    stack: stack({
      attention: "fa2-dao-fastmath",
      sfu: { mode: "tesla-table", minimumStatus: "spot-checked" },
    }),
  }),
  "ieee": () => ({ sfu: createSfu({ mode: "ieee" }), stack: stack() }),
} as const;

async function runBoth(gpu: keyof typeof SMS, mode: keyof typeof MODES) {
  const rt = runtime({ gpu, ...MODES[mode]() });
  const a = planAttentionBlock(M, {
    shape: SHAPE,
    runtime: rt,
    rope: { theta: 1_000_000 },
    multiProcessorCount: SMS[gpu],
  });
  const f = planFfnBlock(M, { shape: SHAPE, runtime: rt });
  if (!a.supported) throw new Error(a.reason);
  if (!f.supported) throw new Error(f.reason);
  return {
    rt,
    plan: a.plan,
    attention: await runAttentionBlock(x, { plan: a.plan, runtime: rt, weights: attn }),
    ffn: await runFfnBlock(x, { plan: f.plan, runtime: rt, weights: ffn }),
  };
}

Deno.test("both blocks run on the A100 and H100 profiles in both SFU modes and name the SFU statuses they rest on", async () => {
  const outs: Record<string, Uint32Array> = {};
  for (const gpu of ["a100", "h100-sxm"] as const) {
    for (const mode of ["tesla-table", "ieee"] as const) {
      const r = await runBoth(gpu, mode);
      assert.equal(r.attention.out.length, M * 64);
      assert.equal(r.ffn.out.length, M * 64);
      const statuses = [...r.attention.sfu, ...r.ffn.sfu].map((s) => s.status);
      assert.ok(statuses.length > 0);
      for (const s of statuses) {
        if (mode === "ieee") assert.equal(s, "ieee-exact");
        else assert.notEqual(s, "ieee-exact");
      }
      outs[`${gpu}/${mode}`] = r.attention.qNorm.rstd; // 24 per-head rows
    }
  }
  // The SFU mode reaches the bits: QK-norm's rsqrt (MUFU.RSQ vs correctly rounded). The FFN
  // block's rstd follows its runtime's SFU (ffn_block_test.ts).
  for (const gpu of ["a100", "h100-sxm"]) {
    assert.notDeepEqual(outs[`${gpu}/tesla-table`], outs[`${gpu}/ieee`], gpu);
  }
});

Deno.test("an attention block on an Fa2Pool (heads over threads, wasm tile products) has the same bits as on the calling thread", async () => {
  const engine = createGemmEngine(
    Deno.readFileSync(new URL("../../../tables/wasm/gemm_engine.wasm", import.meta.url)),
  );
  const pool = createFa2Pool(engine, { workers: 2 });
  try {
    for (const mode of ["tesla-table", "ieee"] as const) {
      const ref = await runBoth("h100-sxm", mode);
      const rt = { ...ref.rt, attention: pool.forward };
      const got = await runAttentionBlock(x, { plan: ref.plan, runtime: rt, weights: attn });
      assert.deepEqual(got.core.out, ref.attention.core.out, mode);
      assert.deepEqual(got.out, ref.attention.out, mode);
    }
  } finally {
    pool.close();
  }
});
