/**
 * Ground truth: every case of every bundled Khattak & Mikaitis capture (A100, L40S, H100; 13 input
 * sets, 18 output files, 90,000 cases) must match the profiles bit for bit.
 *
 * Source and licence: tests/vectors/khattak-mikaitis/README.md and LICENCE (BSD-2-Clause).
 */
import assert from "node:assert/strict";
import { readVectorSet } from "../../../src/assets/mod.ts";
import { parseGpuProfile } from "../../../src/hardware/mod.ts";
import type { FormatName } from "../../../src/numerics/mod.ts";
import { checkVectorSet } from "../../../src/verify/check_vector_set.ts";

const ROOT = new URL("../../vectors/khattak-mikaitis/", import.meta.url).pathname;
const PROFILE: Record<string, string> = { A100: "a100", L40S: "l40s", H100: "h100-sxm" };
const SETS: Record<string, string[]> = {
  A100: ["bf16", "fp16", "tf32"],
  L40S: ["bf16", "fp16", "tf32", "E4M3", "E5M2"],
  H100: ["bf16", "fp16", "tf32", "E4M3", "E5M2"],
};

let files = 0;
let cases = 0;
for (const [gpu, formats] of Object.entries(SETS)) {
  for (const fmt of formats) {
    Deno.test(`checkVectorSet() matches every ${gpu} ${fmt} capture bit for bit`, async () => {
      const profileUrl = new URL(`../../../profiles/gpu/${PROFILE[gpu]}.json`, import.meta.url);
      const profile = parseGpuProfile(JSON.parse(await Deno.readTextFile(profileUrl)));
      const set = await readVectorSet(`${ROOT}${gpu}/${fmt}`);
      const results = checkVectorSet(profile, { set, input: fmt.toLowerCase() as FormatName });
      assert.ok(results.length >= 1);
      for (const r of results) {
        assert.notEqual(r.datapath, null, `${r.file}: ${r.reason}`);
        assert.equal(r.total, 5000);
        assert.deepEqual(r.mismatches, [], `${gpu}/${fmt}/${r.file}`);
        assert.equal(r.matched, r.total);
        files++;
        cases += r.total;
      }
    });
  }
}

Deno.test("the bundled captures hold 18 output files and 90,000 cases", () => {
  // Runs after the per-set tests above (Deno runs tests of a file in order).
  assert.equal(files, 18);
  assert.equal(cases, 90_000);
});
