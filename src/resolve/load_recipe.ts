/**
 * Resolves GEMM recipes: a bundled name (through the hash-checked asset store) or a descriptor,
 * whose name, when it is a bundled recipe's, must come with that recipe's body.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { type GemmRecipe, parseRecipe } from "../kernels/mod.ts";
import { RECIPES } from "./asset_kinds.ts";
import { loadAsset } from "./load_asset.ts";
import { recipeNameContradiction } from "./recipe_name_contradiction.ts";

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

/**
 * Validates a recipe descriptor that will be written into a record (a user's file, a scenario),
 * and holds its `name` to the bundled recipe of that name ({@link recipeNameContradiction}): a
 * record naming a known kernel whose body computes otherwise is one an audit FAILs.
 *
 * @param store the hash-checked assets (the bundled recipes)
 * @param o the parsed descriptor and where it came from, for messages
 * @returns the recipe
 * @throws {InputError} `RECIPE_INVALID` naming the field, or the bundled recipe its name takes
 * @throws {AssetError} `ASSET_*` for a tampered bundled recipe
 * @example
 * ```ts
 * import { openAssetStore } from "../assets/mod.ts";
 * import { recipeFromDescriptor } from "./load_recipe.ts";
 * const store = await openAssetStore();
 * const json = { name: "cublas-single-walk", family: "single_walk" };
 * if ((await recipeFromDescriptor(store, { json, where: "x" })).family !== "single_walk") {
 *   throw new Error();
 * }
 * ```
 */
export async function recipeFromDescriptor(
  store: AssetStore,
  o: { readonly json: unknown; readonly where: string },
): Promise<GemmRecipe> {
  const recipe = recipeFromJson(o.json, o.where);
  const why = await recipeNameContradiction(store, o.json);
  if (why !== null) {
    throw new InputError(
      "RECIPE_INVALID",
      `Cannot use recipe from ${o.where}: ${why}; give the bundled recipe by its name, or name ` +
        "this one otherwise",
    );
  }
  return recipe;
}
