/**
 * Resolves a record's kernel reference against the stack's kernel source: an explicit recipe (held
 * to the bundled recipe its name names), or a dispatch catalog loaded by id and checked by digest
 * and GPU.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { KernelRef } from "../claims/mod.ts";
import type { DispatchCatalog, GemmRecipe } from "../kernels/mod.ts";
import { _asset, _Stop } from "./_stop.ts";
import { catalogGpuMismatch } from "./catalog_gpu_mismatch.ts";
import { kernelSourceContradiction } from "./kernel_source_contradiction.ts";
import {
  DISPATCH_CATALOGS,
  loadAsset,
  recipeFromJson,
  recipeNameContradiction,
} from "../resolve/mod.ts";

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
 * @throws {_Stop} FAIL when the record's kernel is not of its stack's kind
 *   (`kernelSourceContradiction`) or names a bundled recipe with another body, NOT_VERIFIED for an
 *   unknown, foreign or differently hashed catalog or an invalid recipe
 */
export async function _resolveKernel(
  store: AssetStore,
  o: { kernel: KernelRef; stackId: string; kernelSource: string; profileId: string },
): Promise<ResolvedKernel> {
  const kernel = o.kernel;
  const contradiction = kernelSourceContradiction(kernel, {
    id: o.stackId,
    gemm: { kernelSource: o.kernelSource },
  });
  if (contradiction !== null) throw new _Stop("FAIL", contradiction);
  if ("recipe" in kernel) {
    let recipe: GemmRecipe;
    try {
      recipe = recipeFromJson(kernel.recipe, "the record");
    } catch (e) {
      throw new _Stop("NOT_VERIFIED", (e as Error).message);
    }
    // The descriptor is signed verbatim, name and all, but only its body is recomputed: a name
    // that is a bundled recipe's states that kernel, and a body computing otherwise contradicts
    // the record's own claim (a FAIL, as a kernel of another source than the stack's is), not a
    // configuration this verifier lacks.
    const why = await recipeNameContradiction(store, kernel.recipe);
    if (why !== null) {
      throw new _Stop("FAIL", `the record's GEMM recipe contradicts its name: ${why}`);
    }
    return { recipe };
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
  const foreign = catalogGpuMismatch({ id: kernel.catalog, gpu: cat.value.gpu }, o.profileId);
  if (foreign !== null) throw new _Stop("NOT_VERIFIED", foreign);
  return { catalog: cat.value };
}
