/**
 * Whether a recipe fits a GEMM's K: a recipe descriptor is data (a prover's claim record can
 * carry one verbatim), and its partition counts mean something only against the K they cut.
 * Every recipe walks the whole M x N output once per K partition and warp slice, empty or not,
 * so a descriptor with thousands of empty partitions costs thousands of walks for the bits of
 * one (red-team finding F3: `sliced_k {splitK 1024, tileK 64, warpK 1}` on a 128 x 128 x 16
 * GEMM took 65,536 walks, 10 s instead of 0.07 s). `recipeFit` is asked where a recipe meets its
 * shape, before any walk.
 *
 * @module
 */
import { splitKPartitions } from "./partitions.ts";
import type { GemmRecipe } from "./recipe.ts";

/**
 * Most warps one CTA holds: 1,024 threads per block (the CUDA C++ Programming Guide's limit on
 * every architecture since Fermi) over 32 threads per warp. A recipe whose threadblock needs
 * more warps (or, for sliced-K, more warp slices of one K tile) describes no launchable kernel.
 */
export const MAX_CTA_WARPS = 32;

/** M x N walks any recipe may take, whatever its K (the floor of {@link maxRecipeWalks}). */
export const RECIPE_WALKS_FLOOR = 16;

/**
 * K elements per M x N walk above the floor (see {@link maxRecipeWalks}): the K tile of every
 * recipe in `profiles/recipes/` and `tables/catalogs/`.
 */
export const K_PER_WALK = 64;

/** The verdict of {@link recipeFit}. */
export type RecipeFit =
  | {
    /** The recipe fits. */
    readonly fits: true;
    /** M x N walks it takes ({@link recipeWalks}). */
    readonly walks: number;
  }
  | {
    /** The recipe does not fit. */
    readonly fits: false;
    /** Why (one line, quoting the recipe and K). */
    readonly reason: string;
  };

/**
 * Number of M x N K-walks a recipe takes (`runGemmRecipe` walks the whole output once per K
 * partition and warp slice, including empty ones, which contribute a +0 partial): 1 for
 * `single_walk` and for a `kwalk` whose warp K equals its threadblock K, threadblock K / warp K
 * for other `kwalk`s, `splitK` for the split-K families, `splitK * tileK / warpK` for `sliced_k`.
 * It does not depend on K.
 *
 * @param recipe a validated recipe
 * @returns the walk count (at most 1024 * 4096)
 * @example
 * ```ts
 * import { recipeWalks } from "./recipe_fit.ts";
 * if (recipeWalks({ family: "sliced_k", splitK: 3, tileK: 64, warpK: 32 }) !== 6) throw new Error();
 * ```
 */
export function recipeWalks(recipe: GemmRecipe): number {
  switch (recipe.family) {
    case "single_walk":
      return 1;
    case "kwalk":
      return recipe.threadblock[2] / recipe.warp[2];
    case "serial_split_k":
    case "parallel_split_k":
      return recipe.splitK;
    case "sliced_k":
      return recipe.splitK * (recipe.tileK / recipe.warpK);
  }
}

/**
 * Most M x N walks a recipe may take for reduction length K: `max(16, ceil(K / 64))`.
 *
 * Why: besides its products, a walk costs every output element a fixed overhead (a fresh
 * partial, the FP32 combine in the recipe's order, a rounding, a block FMA per stripe). One walk
 * per 64 K elements is what cutting K into 64-wide tiles, one partition a tile, takes (64 is the
 * K tile of every recipe in the profiles and catalogs); the floor admits any recipe of the
 * profiles and catalogs at any K (5 walks at most there) and CUTLASS-sized sliced-K CTAs.
 * Measured on the wasm engine (one thread, 256 x 256 outputs, this repository's machine): at
 * K = 4096 a single walk took 76 ms and the largest admitted recipes 126-244 ms (64-way serial
 * and parallel split-K, sliced-K with 64 one-element warp slices), 1.7-3.2 times as long; at
 * K = 16 the floor's 16 walks took 15-30 ms against 1.3 ms, about what the products of a
 * K = 1,600 single walk cost. The red-team descriptor `sliced_k {splitK 1024, tileK 64,
 * warpK 1}` takes 65,536 walks at any K.
 *
 * @param k reduction length K (a non-negative integer)
 * @returns the bound
 * @example
 * ```ts
 * import { maxRecipeWalks } from "./recipe_fit.ts";
 * if (maxRecipeWalks(16) !== 16 || maxRecipeWalks(9728) !== 152) throw new Error();
 * ```
 */
export function maxRecipeWalks(k: number): number {
  return Math.max(RECIPE_WALKS_FLOOR, Math.ceil(k / K_PER_WALK));
}

/**
 * Checks a recipe against the K of the GEMM it is to run:
 *
 * 1. a CTA holds at most {@link MAX_CTA_WARPS} warps: a `kwalk`'s warp grid, or a `sliced_k`'s
 *    warp slices of one K tile (`tileK / warpK`), may not need more (no such kernel launches);
 * 2. at most {@link maxRecipeWalks}(K) M x N walks.
 *
 * Empty partitions and warp slices alone are not refused: the serial split-K kernel (CUTLASS
 * 2.x `kernel::Gemm`) launches every slice it is asked for, and a tile K above the problem's K
 * leaves warp stripes empty, each adding a +0 partial that can turn a -0 into +0; the recipes
 * model that bit for bit. What an empty walk costs is the same as a full one, and the bound
 * counts it: a descriptor whose splitK, tileK and warpK far exceed K (mostly empty walks) is
 * refused by 2, with the count of empty walks in the reason.
 *
 * A recipe that does not fit is no evidence about the prover: callers refuse it as not emulated
 * (NOT_VERIFIED, an uncovered dispatch), never as a wrong result.
 *
 * @param recipe a validated recipe
 * @param k reduction length K
 * @returns `fits` with the walk count, or the reason it does not fit
 * @throws {RangeError} when `k` is not a non-negative safe integer
 * @example
 * ```ts
 * import { recipeFit } from "./recipe_fit.ts";
 * const r = recipeFit({ family: "sliced_k", splitK: 1024, tileK: 64, warpK: 2 }, 16);
 * if (r.fits || !/32768 M x N walks/.test(r.reason)) throw new Error();
 * if (!recipeFit({ family: "serial_split_k", splitK: 3, tileK: 64 }, 9728).fits) throw new Error();
 * ```
 */
export function recipeFit(recipe: GemmRecipe, k: number): RecipeFit {
  if (!(Number.isSafeInteger(k) && k >= 0)) {
    throw new RangeError(`Cannot check a recipe: K must be a non-negative integer, got ${k}`);
  }
  const what = `recipe ${JSON.stringify(recipe)}`;
  const warps = _ctaWarps(recipe);
  if (warps > MAX_CTA_WARPS) {
    return {
      fits: false,
      reason: `${what} needs ${warps} warps in one CTA, more than the ${MAX_CTA_WARPS} ` +
        `(1,024 threads) a CTA holds`,
    };
  }
  const walks = recipeWalks(recipe);
  const most = maxRecipeWalks(k);
  if (walks > most) {
    const empty = walks - _fullWalks(recipe, k);
    return {
      fits: false,
      reason: `${what} takes ${walks} M x N walks for K = ${k}` +
        (empty > 0 ? ` (${empty} of them over no K element)` : "") +
        `; this verifier emulates at most ${most}, max(${RECIPE_WALKS_FLOOR}, ceil(K / ` +
        `${K_PER_WALK}))`,
    };
  }
  return { fits: true, walks };
}

/** Warps of one CTA the recipe names: a kwalk's warp grid, a sliced-K tile's warp slices. */
function _ctaWarps(recipe: GemmRecipe): number {
  if (recipe.family === "kwalk") {
    const [tb, w] = [recipe.threadblock, recipe.warp];
    return (tb[0] / w[0]) * (tb[1] / w[1]) * (tb[2] / w[2]);
  }
  return recipe.family === "sliced_k" ? recipe.tileK / recipe.warpK : 1;
}

/**
 * Walks that cover at least one K element. A warp of a sliced CTA owns stripes starting at
 * `p * warpK` in each tile of its slice, so it has one iff `p * warpK` is below the slice's
 * length (the first tile is the longest).
 */
function _fullWalks(recipe: GemmRecipe, k: number): number {
  const warpsOver = (length: number, tileK: number, warpK: number) =>
    Math.min(tileK / warpK, Math.ceil(length / warpK));
  switch (recipe.family) {
    case "single_walk":
      return k > 0 ? 1 : 0;
    case "kwalk":
      return recipe.threadblock[2] === recipe.warp[2]
        ? (k > 0 ? 1 : 0)
        : warpsOver(k, recipe.threadblock[2], recipe.warp[2]);
    case "serial_split_k":
    case "parallel_split_k":
      return splitKPartitions(k, recipe).filter(([s, e]) => s < e).length;
    case "sliced_k":
      return splitKPartitions(k, recipe)
        .reduce((n, [s, e]) => n + warpsOver(e - s, recipe.tileK, recipe.warpK), 0);
  }
}
