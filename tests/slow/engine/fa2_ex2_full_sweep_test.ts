/**
 * Exhaustive: the wasm FA2 softmax's MUFU.EX2 and ex2.approx.f32 against the TypeScript table
 * model, and against the `ieee` SFU's `ieeeEx2` (FTZ off and on), on all 2^32 FP32 patterns (a
 * few minutes each; `deno task test:slow`).
 */
import assert from "node:assert/strict";
import { createSfu, sfuDescription } from "../../../src/hardware/mod.ts";
import { instantiateKernel } from "../../../src/engine/wasm_kernel.ts";
import { ex2ApproxF32 } from "../../../src/kernels/mod.ts";
import { ENGINE, TESLA } from "../../kernels/attention/_fa2_fixture.ts";

Deno.test("fa2Instructions: MUFU.EX2 and ex2.approx.f32 equal the TypeScript models on all 2^32 patterns", () => {
  const desc = sfuDescription(TESLA);
  if (desc?.mode !== "tesla-table") throw new Error("the fixture's SFU is the table model");
  const run = instantiateKernel(ENGINE.module).fa2Instructions(desc.tables.ex2);
  let mismatches = 0;
  for (let x = 0; x <= 0xffffffff; x++) {
    if (run("ex2", x, 0, 0, false) !== TESLA.ex2(x)) mismatches++;
    if (run("ex2-approx", x, 0, 0, false) !== ex2ApproxF32(TESLA, x)) mismatches++;
  }
  assert.equal(mismatches, 0);
});

Deno.test("fa2Instructions: the ieee SFU's MUFU.EX2 and ex2.approx.f32 equal ieeeEx2 on all 2^32 patterns, FTZ off and on", () => {
  const desc = sfuDescription(TESLA);
  if (desc?.mode !== "tesla-table") throw new Error("the fixture's SFU is the table model");
  const run = instantiateKernel(ENGINE.module).fa2Instructions(desc.tables.ex2);
  const ieee = [createSfu({ mode: "ieee" }), createSfu({ mode: "ieee", ftz: true })] as const;
  let mismatches = 0;
  for (const ftz of [false, true]) {
    const sfu = ieee[ftz ? 1 : 0];
    for (let x = 0; x <= 0xffffffff; x++) {
      if (run("ieee-ex2", x, 0, 0, ftz) !== sfu.ex2(x)) mismatches++;
      if (run("ieee-ex2-approx", x, 0, 0, ftz) !== ex2ApproxF32(sfu, x)) mismatches++;
    }
  }
  assert.equal(mismatches, 0);
});
