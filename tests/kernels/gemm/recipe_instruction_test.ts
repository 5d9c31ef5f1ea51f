import assert from "node:assert/strict";
import { findDatapath, parseGpuProfile } from "../../../src/hardware/mod.ts";
import { parseRecipe, recipeInstructionMismatch } from "../../../src/kernels/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const profile = (id: string) =>
  parseGpuProfile(JSON.parse(Deno.readTextFileSync(new URL(`profiles/gpu/${id}.json`, ROOT))));
const kwalk = (instruction: number[]) =>
  parseRecipe({ family: "kwalk", threadblock: [128, 128, 64], warp: [64, 64, 64], instruction });

/** Why the recipe does not fit the profile's datapath for `input`, or null. */
function why(id: string, instruction: number[], input: "bf16" | "fp16" = "bf16"): string | null {
  const p = profile(id);
  const datapath = findDatapath(p, { input, output: "fp32" })!;
  return recipeInstructionMismatch(kwalk(instruction), { architecture: p.architecture, datapath });
}

Deno.test("recipeInstructionMismatch(): the modelled m16n8k16 mma fits the Ampere, Ada and Hopper profiles", () => {
  for (const id of ["a100", "a30", "l40s", "h100-sxm"]) {
    assert.equal(why(id, [16, 8, 16]), null, id);
  }
  assert.equal(
    recipeInstructionMismatch(parseRecipe({ family: "single_walk" }), {
      architecture: "sm_90",
      datapath: findDatapath(profile("h100-sxm"), { input: "bf16", output: "fp32" })!,
    }),
    null,
  );
});

Deno.test("recipeInstructionMismatch(): another depth, a shape the architecture lacks, or none at all is named", () => {
  // Hopper's m16n8k8 BF16 mma rounds in 8-wide blocks, which the profile's datapath does not model.
  assert.match(why("h100-sxm", [16, 8, 8])!, /depth 8, the modelled datapath .* depth 16/);
  assert.match(why("a100", [16, 8, 32])!, /m16n8k32 is not an mma bf16->fp32 instruction of sm_80/);
  assert.match(why("a100", [1, 1, 1])!, /m1n1k1 is not an mma/);
  assert.match(
    why("v100", [16, 8, 16], "fp16")!,
    /m16n8k16 is not an mma fp16->fp32 instruction of sm_70/,
  );
});
