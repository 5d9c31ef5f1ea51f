import assert from "node:assert/strict";
import { parseScenario } from "../../src/prover/mod.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";

Deno.test("parseScenario() refuses a projection whose records' output name the verifier would refuse", () => {
  const named = (name: string) =>
    oneGemmScenario({ logId: "names", seed: "names-v1" }, {
      model: { name: "m", layers: 1, projections: [{ name, n: 128, k: 256 }] },
      falsify: [],
    });
  for (const name of ["q_proj", "self_attn.qkv_proj"]) {
    assert.equal(parseScenario(named(name)).model.projections[0]!.name, name);
  }
  for (const name of ["q proj", "attention_block", "ffn_block", ""]) {
    assert.throws(
      () => parseScenario(named(name)),
      /scenario\.model\.projections\[0\]\.name': a GEMM record's output is one linear's output/,
      name,
    );
  }
});
