/**
 * Resolves a record's kernel reference against the stack's kernel source: an explicit recipe, or
 * a dispatch catalog loaded by id and checked by digest and GPU.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { KernelRef } from "../claims/mod.ts";
import type { DispatchCatalog, GemmRecipe } from "../kernels/mod.ts";
import { _asset, _Stop } from "./_stop.ts";
import { DISPATCH_CATALOGS, loadAsset, recipeFromJson } from "../resolve/mod.ts";

/** A resolved kernel reference. */
export type ResolvedKernel =
  | { readonly recipe: GemmRecipe }
  | { readonly catalog: DispatchCatalog };

/**
 * Resolves a kernel reference.
 *
 * @param store hash-checked assets
 * @param o the reference, the stack (id and kernel source) and the GPU profile id
 * @returns the recipe or the catalog
 * @throws {_Stop} FAIL when the record contradicts its stack, NOT_VERIFIED for an unknown,
 *   foreign or differently hashed catalog or an invalid recipe
 */
export async function _resolveKernel(
  store: AssetStore,
  o: { kernel: KernelRef; stackId: string; kernelSource: string; profileId: string },
): Promise<ResolvedKernel> {
  const kernel = o.kernel;
  if ("recipe" in kernel) {
    if (o.kernelSource !== "recipe") {
      throw new _Stop(
        "FAIL",
        `stack '${o.stackId}' dispatches through a catalog, but the record names a recipe`,
      );
    }
    try {
      return { recipe: recipeFromJson(kernel.recipe, "the record") };
    } catch (e) {
      throw new _Stop("NOT_VERIFIED", (e as Error).message);
    }
  }
  if (o.kernelSource !== "catalog") {
    // The stack runs explicit recipes (CUTLASS): a catalog's kernels are another library's, so
    // recomputing them would check a stack the record does not name.
    throw new _Stop(
      "FAIL",
      `stack '${o.stackId}' runs explicit recipes, but the record names catalog '${kernel.catalog}'`,
    );
  }
  const cat = await _asset(
    () => loadAsset(store, { kind: DISPATCH_CATALOGS, id: kernel.catalog }),
    "catalog",
  );
  if (cat.sha256 !== kernel.catalogSha256) {
    throw new _Stop(
      "NOT_VERIFIED",
      `catalog '${kernel.catalog}' digest differs from the claimed one`,
    );
  }
  if (cat.value.gpu !== o.profileId) {
    throw new _Stop(
      "NOT_VERIFIED",
      `catalog '${kernel.catalog}' was captured on '${cat.value.gpu}', not '${o.profileId}'`,
    );
  }
  return { catalog: cat.value };
}
