/**
 * Ground truth through the engine: every bf16/fp16 -> fp32 case measured by Khattak & Mikaitis
 * on A100, L40S and H100 (6 sets, 30,000 cases; the other 60,000 bundled cases are tf32, fp8 or
 * fp16-output sets that the kernel does not cover) as a 1x1xK GEMM with init = c, 100% match.
 *
 * Source and licence: tests/vectors/khattak-mikaitis/README.md and LICENCE (BSD-2-Clause).
 */
import assert from "node:assert/strict";
import { readVectorSet } from "../../src/assets/mod.ts";
import { findDatapath, parseGpuProfile } from "../../src/hardware/mod.ts";
import { convert, FP16, FP32 } from "../../src/numerics/mod.ts";
import { loadEngine } from "./_engine_fixture.ts";

const engine = await loadEngine();
const ROOT = new URL("../vectors/khattak-mikaitis/", import.meta.url).pathname;
const PROFILE: Record<string, string> = { A100: "a100", L40S: "l40s", H100: "h100-sxm" };
let cases = 0;

for (const gpu of ["A100", "L40S", "H100"]) {
  for (const fmt of ["bf16", "fp16"] as const) {
    Deno.test(`GemmEngine.kWalk() matches every ${gpu} ${fmt} -> fp32 capture bit for bit`, async () => {
      const url = new URL(`../../profiles/gpu/${PROFILE[gpu]}.json`, import.meta.url);
      const profile = parseGpuProfile(JSON.parse(await Deno.readTextFile(url)));
      const dp = findDatapath(profile, { input: fmt, output: "fp32" });
      assert.ok(dp !== undefined && engine.supports(dp));
      const set = await readVectorSet(`${ROOT}${gpu}/${fmt}`);
      const out = set.outputs.find((o) => o.format === "fp32");
      assert.ok(out !== undefined && out.accumulator === "c_file");
      const to16 = (x: number) => fmt === "bf16" ? x >>> 16 : convert(FP32, FP16, x);
      const k = set.k;
      let bad = 0;
      for (let i = 0; i < set.cases; i++) {
        const a = Uint16Array.from(set.a.subarray(i * k, (i + 1) * k), to16);
        const b = Uint16Array.from(set.b.subarray(i * k, (i + 1) * k), to16);
        const init = new Uint32Array([set.c[i] as number]);
        const d = engine.kWalk(dp, { a, b, m: 1, n: 1, k, init });
        if (d[0] !== out.d[i]) bad++;
      }
      assert.equal(bad, 0);
      assert.equal(set.cases, 5000);
      cases += set.cases;
    });
  }
}

Deno.test("the engine saw the 30,000 bf16/fp16 -> fp32 captured cases", () => {
  assert.equal(cases, 30_000);
});
