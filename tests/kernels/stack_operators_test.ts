/**
 * `stackOperators`: the one registry the drivers read: attention per driver, MoE experts only
 * when the model has them, reductions from the torch release, the batch layout.
 */
import assert from "node:assert/strict";
import { parseStackProfile, reduceStackForTorch, stackOperators } from "../../src/kernels/mod.ts";

const stack = (ops: Record<string, unknown>) =>
  parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "s",
    name: "S",
    components: {},
    gemm: { kernelSource: "recipe" },
    sources: [],
    operators: { torch: "2.8.0", attention: "fa2-dao-fastmath", ...ops },
  });

Deno.test("stackOperators resolves a modelled stack for each driver", () => {
  const r = stackOperators(stack({ batching: "flatten" }), { driver: "serving", moe: false });
  assert.ok(r.supported);
  assert.equal(r.ops.attention?.id, "fa2-dao-fastmath");
  assert.equal(r.ops.attention?.build?.id, "dao-fastmath");
  assert.equal(r.ops.attention?.sdpa, false);
  assert.equal(r.ops.batching, "flatten");
  assert.deepEqual(r.ops.reduceStack, reduceStackForTorch("2.8.0"));
  const sdpa = stackOperators(stack({ attention: "fa2-pytorch-bundled" }), {
    driver: "prefill",
    moe: false,
  });
  assert.ok(sdpa.supported && sdpa.ops.attention?.sdpa === true);
  assert.ok(sdpa.supported && sdpa.ops.batching === "pad-to-longest");
});

Deno.test("stackOperators names what is not modelled: eager outside a prefill, MoE experts, no operators", () => {
  const eager = stack({ attention: "eager" });
  assert.ok(stackOperators(eager, { driver: "prefill", moe: false }).supported);
  const serving = stackOperators(eager, { driver: "serving", moe: false });
  assert.ok(!serving.supported && serving.reason.startsWith("attention backend 'eager'"));
  // An FFN block runs no attention: its stack's backend is not its concern.
  const ffn = stackOperators(stack({ attention: "cudnn-sdpa" }), {
    driver: "block",
    moe: false,
    attention: false,
  });
  assert.ok(ffn.supported && ffn.ops.attention === null);
  const none = stackOperators(stack({}), { driver: "prefill", moe: true });
  assert.ok(!none.supported && /names no MoE experts/.test(none.reason));
  const fused = stackOperators(stack({ experts: "fused-moe" }), { driver: "prefill", moe: true });
  assert.ok(!fused.supported && /fused/.test(fused.reason));
  const dense = stackOperators(stack({ experts: "fused-moe" }), { driver: "prefill", moe: false });
  assert.ok(dense.supported, "experts matter only to a model that has them");
  const bare = parseStackProfile({
    schema: "bitaudit.stack-profile/v1",
    id: "g",
    name: "G",
    components: {},
    gemm: { kernelSource: "recipe" },
    sources: [],
  });
  const r = stackOperators(bare, { driver: "block", moe: false });
  assert.ok(!r.supported && /declares no operators section/.test(r.reason));
});
