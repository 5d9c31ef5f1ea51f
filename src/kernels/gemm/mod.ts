/**
 * GEMM kernels as recipes over tensor-core K-walks: the CUTLASS K-walk and the cuBLAS families
 * (single walk, serial split-K, sliced-K, parallel split-K), and dispatch catalogs.
 *
 * @example
 * ```ts
 * import { parseRecipe, referenceKWalker, runGemmRecipe } from "./mod.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const dp = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 8, fracBits: 24,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -132, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const x = new Uint16Array(2 * 32).fill(0x3f80); // [2, 32] ones
 * const w = new Uint16Array(3 * 32).fill(0x4000); // [3, 32] twos
 * const recipe = parseRecipe({ family: "parallel_split_k", splitK: 2, tileK: 16, workspace: "output" });
 * const y = await runGemmRecipe(recipe, { dp, walker: referenceKWalker, a: x, b: w, m: 2, n: 3, k: 32 });
 * if (y.out[5] !== 0x4280) throw new Error(); // 64.0 in bf16
 * ```
 * @module
 */
export { addBiasEpilogue } from "./bias_epilogue.ts";
export {
  type CatalogEntry,
  type CatalogLookup,
  type DispatchCatalog,
  lookupRecipe,
  parseDispatchCatalog,
} from "./dispatch_catalog.ts";
export { gemm, type GemmOptions } from "./gemm.ts";
export { type KWalker, type KWalkJob, referenceKWalker } from "./k_walker.ts";
export { type KSegment, slicedStripes, splitKPartitions } from "./partitions.ts";
export {
  type GemmRecipe,
  type KWalkRecipe,
  type ParallelSplitKRecipe,
  parseRecipe,
  RECIPE_SCHEMA,
  type SerialSplitKRecipe,
  type SingleWalkRecipe,
  type SlicedKRecipe,
} from "./recipe.ts";
export {
  K_PER_WALK,
  MAX_CTA_WARPS,
  maxRecipeWalks,
  RECIPE_WALKS_FLOOR,
  type RecipeFit,
  recipeFit,
  recipeWalks,
} from "./recipe_fit.ts";
export { recipeInstructionMismatch } from "./recipe_instruction.ts";
export {
  type GemmOutFormat,
  type GemmProblem,
  type GemmResult,
  runGemmRecipe,
} from "./run_gemm_recipe.ts";
