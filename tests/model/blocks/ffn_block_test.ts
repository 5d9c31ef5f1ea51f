import assert from "node:assert/strict";
import { bitsFromF32, f32FromBits } from "../../../src/numerics/mod.ts";
import {
  addBf16,
  mulBf16,
  parseDispatchCatalog,
  REDUCE_STACK_CUDA_RECENT,
  rmsNorm,
  runGemmRecipe,
  siluBf16,
} from "../../../src/kernels/mod.ts";
import {
  catalogDispatch,
  planFfnBlock,
  QWEN3_4B_LAYER,
  runFfnBlock,
} from "../../../src/model/mod.ts";
import { ffnWeights, runtime, stack, tensor, teslaSfu } from "./_block_fixture.ts";

const SHAPE = { hidden: 64, intermediate: 96, heads: 1, kvHeads: 1, headDim: 128 };
const M = 3;
const weights = ffnWeights("ffn", SHAPE);
const x = tensor("ffn.x", M * 64);

function planOrThrow(rt = runtime()) {
  const p = planFfnBlock(M, { shape: SHAPE, runtime: rt });
  if (!p.supported) throw new Error(p.reason);
  return p.plan;
}

Deno.test("`runFfnBlock()` composes norm, gate/up, SiLU, gate product, down and residual in HF's order", async () => {
  const rt = runtime({ recipe: { family: "serial_split_k", splitK: 2, tileK: 16 } });
  const plan = planOrThrow(rt);
  const r = await runFfnBlock(x, { plan, runtime: rt, weights });
  // The same chain written out with the kernels directly.
  const norm = rmsNorm(x, {
    rows: M,
    hidden: 64,
    weight: weights.norm,
    sfu: rt.sfu,
    stack: REDUCE_STACK_CUDA_RECENT,
  });
  const gemm = (a: Uint16Array, b: Uint16Array, n: number, k: number) =>
    runGemmRecipe(plan.recipes.gate_proj!, {
      dp: plan.datapath,
      walker: rt.walker,
      a,
      b,
      m: M,
      n,
      k,
    });
  const g = await gemm(norm.output, weights.gate, 96, 64);
  const u = await gemm(norm.output, weights.up, 96, 64);
  const act = siluBf16(g.out, { mufu: rt.sfu });
  const d = await gemm(mulBf16(act, u.out), weights.down, 64, 96);
  assert.deepEqual(r.norm.output, norm.output);
  assert.deepEqual(r.gate.acc, g.acc);
  assert.deepEqual(r.act, act);
  assert.deepEqual(r.down.acc, d.acc);
  assert.deepEqual(r.out, addBf16(x, d.out));
  assert.deepEqual(r.sfu.map((s) => `${s.fn}:${s.status}`), ["ex2:ieee-exact", "rsqrt:ieee-exact"]);
});

Deno.test("`runFfnBlock()` applies SiLU to the gate, not the up projection (swapping them changes the output)", async () => {
  const rt = runtime();
  const plan = planOrThrow(rt);
  const a = await runFfnBlock(x, { plan, runtime: rt, weights });
  const b = await runFfnBlock(x, {
    plan,
    runtime: rt,
    weights: { ...weights, gate: weights.up, up: weights.gate },
  });
  assert.notDeepEqual(a.out, b.out);
});

Deno.test("`runFfnBlock()` takes rsqrt from the runtime's SFU and reports each function's status", async () => {
  const sfu = teslaSfu();
  const table = runtime({
    sfu,
    stack: stack({ sfu: { mode: "tesla-table", minimumStatus: "spot-checked" } }),
  });
  const b = await runFfnBlock(x, { plan: planOrThrow(table), runtime: table, weights });
  const eps = 0x358637bd; // fl32(1e-6)
  for (let r = 0; r < M; r++) {
    const t = Math.fround(f32FromBits(b.norm.variance[r]!) + f32FromBits(eps));
    assert.equal(b.norm.rstd[r], sfu.rsqrt(bitsFromF32(t)));
  }
  assert.deepEqual(
    b.sfu.map((s) => `${s.fn}:${s.status}`),
    ["ex2:spot-checked", "rsqrt:histogram-matched"],
  );
});

Deno.test("`planFfnBlock()` refuses an SFU whose status is below the stack's minimum, or another mode", () => {
  const strict = planFfnBlock(M, {
    shape: SHAPE,
    runtime: runtime({
      sfu: teslaSfu(),
      stack: stack({ sfu: { mode: "tesla-table", minimumStatus: "histogram-matched" } }),
    }),
  });
  assert.equal(strict.supported, false);
  assert.match(!strict.supported ? strict.reason : "", /ex2 .*'spot-checked', below the minimum/);
  const mismatch = planFfnBlock(M, { shape: SHAPE, runtime: runtime({ sfu: teslaSfu() }) });
  assert.match(!mismatch.supported ? mismatch.reason : "", /runs SFU mode 'ieee'/);
});

Deno.test("`planFfnBlock()` takes an SFU function's status on the record's part: RSQ, probed on sm 8.0, 8.9 and 9.0 only, is model-only on a B200 or an A40", () => {
  const on = (gpu: string) =>
    planFfnBlock(M, {
      shape: SHAPE,
      runtime: runtime({
        gpu,
        sfu: teslaSfu(),
        stack: stack({ sfu: { mode: "tesla-table", minimumStatus: "spot-checked" } }),
      }),
    });
  for (const gpu of ["a100", "l4", "h100-sxm"]) {
    const p = on(gpu);
    assert.deepEqual(
      p.supported && p.plan.sfu.map((u) => `${u.fn}:${u.status}`),
      ["ex2:spot-checked", "rsqrt:histogram-matched"],
      gpu,
    );
  }
  // A B200: EX2 was spot-checked there (GB200 outputs), RSQ never.
  const b200 = on("b200");
  assert.match(
    !b200.supported ? b200.reason : "",
    /rsqrt of 'tesla-sfu-v1' is 'model-only' on sm 10\.0 \('histogram-matched' on sm 8\.0, 8\.9, 9\.0 only\), below the minimum/,
  );
  // An A40 (GA102, sm 8.6): neither was compared there.
  const a40 = on("a40");
  assert.match(
    !a40.supported ? a40.reason : "",
    /ex2 of 'tesla-sfu-v1' is 'model-only' on sm 8\.6 \('spot-checked' on sm 8\.0, 8\.9, 9\.0, 10\.0 only\)/,
  );
});

Deno.test("`planFfnBlock()` resolves Qwen3-4B projections through a catalog and reports uncovered shapes", () => {
  const json = JSON.parse(
    Deno.readTextFileSync(
      new URL("../../../tables/catalogs/a100-cublas-qwen3-4b-ffn.json", import.meta.url),
    ),
  );
  const rt = { ...runtime(), gemm: catalogDispatch(parseDispatchCatalog(json)) };
  const ok = planFfnBlock(250, { shape: QWEN3_4B_LAYER, runtime: rt });
  assert.equal(ok.supported, true);
  assert.equal(ok.supported && ok.plan.recipes.down_proj?.family, "serial_split_k");
  const no = planFfnBlock(251, { shape: QWEN3_4B_LAYER, runtime: rt });
  assert.equal(no.supported, false);
  assert.match(!no.supported ? no.reason : "", /^gate_proj: /);
});

Deno.test("`planFfnBlock()` refuses a stack without an operators section; `runFfnBlock()` checks lengths", async () => {
  const { operators: _, ...bare } = stack();
  const r = planFfnBlock(M, { shape: SHAPE, runtime: { ...runtime(), stack: bare } });
  assert.match(!r.supported ? r.reason : "", /declares no operators section/);
  const rt = runtime();
  await assert.rejects(
    () => runFfnBlock(x.subarray(1), { plan: planOrThrow(rt), runtime: rt, weights }),
    TypeError,
  );
  assert.throws(() => planFfnBlock(0, { shape: SHAPE, runtime: rt }), RangeError);
});
