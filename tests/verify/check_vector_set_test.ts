/**
 * `checkVectorSet()` runs a set only through the datapath of the input format it was measured in
 * (review h56: the A100 bf16 capture "matched" 5000/5000 on the fp16 datapath).
 */
import assert from "node:assert/strict";
import { readVectorSet } from "../../src/assets/mod.ts";
import { parseGpuProfile } from "../../src/hardware/mod.ts";
import { InputError } from "../../src/errors.ts";
import { checkVectorSet } from "../../src/verify/mod.ts";
import { assertCode } from "../_assert_code.ts";

const SET = new URL("../vectors/khattak-mikaitis/A100/bf16", import.meta.url).pathname;
const PROFILE = new URL("../../profiles/gpu/a100.json", import.meta.url);

Deno.test("checkVectorSet() refuses an input format other than the capture's", async () => {
  const profile = parseGpuProfile(JSON.parse(await Deno.readTextFile(PROFILE)));
  const set = await readVectorSet(SET);
  assert.equal(set.inputFormat, "bf16");
  for (const input of ["fp16", "tf32"] as const) {
    assertCode(() => checkVectorSet(profile, { set, input }), InputError, "VECTOR_SET_CAPTURE");
  }
  const [r] = checkVectorSet(profile, { set, input: "bf16" });
  assert.equal(r?.matched, 5000);
});
