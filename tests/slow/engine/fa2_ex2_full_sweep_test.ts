/**
 * Exhaustive: the wasm FA2 softmax's MUFU.EX2 and ex2.approx.f32 against the TypeScript table
 * model on all 2^32 FP32 patterns (a few minutes; `deno task test:slow`).
 */
import assert from "node:assert/strict";
import { sfuDescription } from "../../../src/hardware/mod.ts";
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
