/**
 * Holds a recipe descriptor's `name` to the bundled recipe of that name. A descriptor travels
 * verbatim into a record (`kernel.recipe`) and is signed with it, but only its body is run: a
 * body named after a bundled recipe it is not would have the record name a kernel that never ran
 * (a K-walk signed as `cublas-serial-split-k2`).
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { parseRecipe } from "../kernels/mod.ts";
import { RECIPES } from "./asset_kinds.ts";
import { listAssetIds, loadAsset } from "./load_asset.ts";

/**
 * Says how a recipe descriptor contradicts the bundled recipe its `name` names: a name that is a
 * bundled recipe's id must come with exactly that recipe's body (family and every parameter; the
 * optional `schema` is not part of the body). A descriptor without a name, or with a name no
 * bundled recipe has, contradicts nothing: its body is the kernel.
 *
 * @param store the hash-checked assets (the bundled recipes)
 * @param descriptor a descriptor `parseRecipe` accepts
 * @returns the contradiction (one line, naming both bodies), or null
 * @throws {TypeError|RangeError} from `parseRecipe` for a descriptor it refuses
 * @throws {AssetError} `ASSET_*` for a tampered bundled recipe
 * @example
 * ```ts
 * import { openAssetStore } from "../assets/mod.ts";
 * import { recipeNameContradiction } from "./recipe_name_contradiction.ts";
 * const store = await openAssetStore();
 * const renamed = { name: "cublas-single-walk", family: "serial_split_k", splitK: 2, tileK: 64 };
 * if (!(await recipeNameContradiction(store, renamed))?.includes("single_walk")) throw new Error();
 * const own = { name: "my-split-k", family: "serial_split_k", splitK: 2, tileK: 64 };
 * if (await recipeNameContradiction(store, own) !== null) throw new Error();
 * ```
 */
export async function recipeNameContradiction(
  store: AssetStore,
  descriptor: unknown,
): Promise<string | null> {
  const body = parseRecipe(descriptor);
  const name = (descriptor as { name?: unknown }).name;
  if (typeof name !== "string" || !listAssetIds(store, RECIPES).includes(name)) return null;
  const { name: _id, ...bundled } = (await loadAsset(store, { kind: RECIPES, id: name })).value;
  if (_canonical(bundled) === _canonical(body)) return null;
  // Both bodies are parsed recipes (a family from a fixed list, integers): safe to print.
  return `it is named '${name}', the bundled recipe ${JSON.stringify(bundled)}, ` +
    `but describes ${JSON.stringify(body)}`;
}

/**
 * A parsed recipe as canonical text: keys sorted, values integers, fixed strings and arrays of
 * integers, so equal text is an equal kernel whatever order the descriptor listed its fields in.
 */
function _canonical(r: object): string {
  return JSON.stringify(r, Object.keys(r).sort());
}
