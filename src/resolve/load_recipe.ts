/**
 * Resolves GEMM recipes: a bundled name (through the hash-checked asset store) or a descriptor.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { type GemmRecipe, parseRecipe } from "../kernels/mod.ts";
import { RECIPES } from "./asset_kinds.ts";
import { loadAsset } from "./load_asset.ts";

/**
 * Loads a bundled recipe by name.
 *
 * @param store asset store
 * @param name recipe name, e.g. `cutlass-kwalk-128x128x64`
 * @returns the recipe and the sha256 of its file
 * @throws {AssetError} `RECIPE_UNKNOWN`, `ASSET_*`
 * @example
 * ```ts ignore
 * const { recipe } = await loadNamedRecipe(await openAssetStore(), "cublas-single-walk");
 * ```
 */
export async function loadNamedRecipe(
  store: AssetStore,
  name: string,
): Promise<{ recipe: GemmRecipe; sha256: string; path: string }> {
  const { value, path, sha256 } = await loadAsset(store, { kind: RECIPES, id: name });
  const { name: _name, ...recipe } = value;
  return { recipe: Object.freeze(recipe) as GemmRecipe, sha256, path };
}

/**
 * Validates a recipe descriptor supplied by a user or a claim.
 *
 * @param json parsed descriptor
 * @param where where it came from, for messages
 * @returns the recipe
 * @throws {InputError} `RECIPE_INVALID` naming the field
 * @example
 * ```ts
 * import { recipeFromJson } from "./load_recipe.ts";
 * if (recipeFromJson({ family: "single_walk" }, "x").family !== "single_walk") throw new Error();
 * ```
 */
export function recipeFromJson(json: unknown, where: string): GemmRecipe {
  try {
    return parseRecipe(json);
  } catch (e) {
    throw new InputError(
      "RECIPE_INVALID",
      `Cannot use recipe from ${where}: ${(e as Error).message}`,
    );
  }
}
