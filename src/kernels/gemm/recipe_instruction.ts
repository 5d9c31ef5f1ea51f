/**
 * Whether a recipe's tensor-core instruction is the one the GPU profile's datapath models. A
 * `kwalk` recipe names its instruction shape; the emulator walks every product with the profile's
 * datapath, whose block size and alignment the published model gives (the measured vectors check
 * the datapath, not every block size) for one instruction depth
 * `k`. An instruction of another depth rounds differently on some GPUs (Hopper's m16n8k8 BF16
 * `mma` sums 8-wide blocks with F = 25: /work/shared/spec/gaps.md B.1), and a shape the
 * architecture does not offer names no kernel at all.
 *
 * @module
 */
import { type Architecture, type Datapath, INSTRUCTION_CATALOG } from "../../hardware/mod.ts";
import type { GemmRecipe } from "./recipe.ts";

/**
 * Checks a recipe's instruction against the architecture and the datapath.
 *
 * @param recipe the recipe (only `kwalk` names an instruction; others always pass)
 * @param o the profile's architecture and the datapath the walk runs on
 * @returns null when it fits, else why (one line)
 * @example
 * ```ts ignore
 * const why = recipeInstructionMismatch(recipe, { architecture: "sm_90", datapath: dp });
 * ```
 */
export function recipeInstructionMismatch(
  recipe: GemmRecipe,
  o: { readonly architecture: Architecture; readonly datapath: Datapath },
): string | null {
  if (recipe.family !== "kwalk") return null;
  const [m, n, k] = recipe.instruction;
  const shape = `m${m}n${n}k${k}`;
  const dp = o.datapath;
  const offered = INSTRUCTION_CATALOG[o.architecture].some((s) =>
    s.family === dp.family && s.shape === shape && s.inputs.includes(dp.input.name) &&
    s.outputs.includes(dp.output.name)
  );
  if (!offered) {
    return `the recipe's instruction ${shape} is not an ${dp.family} ${dp.input.name}->${dp.output.name} ` +
      `instruction of ${o.architecture}`;
  }
  if (k !== dp.k) {
    return `the recipe's instruction ${shape} has depth ${k}, the modelled datapath ${dp.family} ${dp.input.name}->${dp.output.name} ` +
      `depth ${dp.k}: its rounding at that depth is not modelled`;
  }
  return null;
}
