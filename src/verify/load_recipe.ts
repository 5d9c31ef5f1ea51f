/**
 * Resolves GEMM recipes: a bundled name (through the hash-checked asset store) or a descriptor.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { AssetError, InputError } from "../errors.ts";
import { type GemmRecipe, parseRecipe } from "../kernels/gemm/mod.ts";

const PREFIX = "profiles/recipes/";

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
  const path = `${PREFIX}${name}.json`;
  if (!/^[a-z0-9][a-z0-9_.-]{0,63}$/.test(name) || store.manifest.assets[path] === undefined) {
    const known = Object.keys(store.manifest.assets).filter((p) => p.startsWith(PREFIX))
      .map((p) => p.slice(PREFIX.length, -5)).join(", ");
    throw new AssetError("RECIPE_UNKNOWN", `Cannot find recipe '${name}': known are ${known}`);
  }
  const json = await store.readJson(path);
  return { recipe: recipeFromJson(json, path), sha256: store.manifest.assets[path]!.sha256, path };
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
    throw new InputError("RECIPE_INVALID", `Cannot use recipe from ${where}: ${(e as Error).message}`);
  }
}
