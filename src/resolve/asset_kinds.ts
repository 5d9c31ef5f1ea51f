/**
 * The registry of named JSON asset kinds: where each kind lives in the manifest, which of the
 * core's validating parsers reads it, and which id it must declare. `loadAsset` resolves any of
 * them (id -> manifest -> digest check -> parse -> id check).
 *
 * @module
 */
import { type GpuProfile, parseGpuProfile } from "../hardware/mod.ts";
import {
  type DispatchCatalog,
  type GemmRecipe,
  parseDispatchCatalog,
  parseRecipe,
  parseStackProfile,
  type StackProfile,
} from "../kernels/mod.ts";
import type { AssetKind } from "./load_asset.ts";

/** GPU profiles in `profiles/gpu/`. */
export const GPU_PROFILES: AssetKind<GpuProfile> = _byId({
  what: "GPU profile",
  prefix: "profiles/gpu/",
  unknownCode: "PROFILE_UNKNOWN",
  parse: parseGpuProfile,
});

/** Software-stack profiles in `profiles/stack/`. */
export const STACK_PROFILES: AssetKind<StackProfile> = _byId({
  what: "stack profile",
  prefix: "profiles/stack/",
  unknownCode: "STACK_UNKNOWN",
  parse: parseStackProfile,
});

/** Dispatch catalogs in `tables/catalogs/`. */
export const DISPATCH_CATALOGS: AssetKind<DispatchCatalog> = _byId({
  what: "dispatch catalog",
  prefix: "tables/catalogs/",
  unknownCode: "CATALOG_UNKNOWN",
  parse: parseDispatchCatalog,
});

/** Named recipes in `profiles/recipes/`. */
export const RECIPES: AssetKind<GemmRecipe & { name?: string }> = Object.freeze({
  what: "recipe",
  prefix: "profiles/recipes/",
  unknownCode: "RECIPE_UNKNOWN",
  parse: (json: unknown) => ({
    ...parseRecipe(json),
    name: (json as { name?: string }).name ?? "",
  }),
  idOf: (r: GemmRecipe & { name?: string }) => r.name ?? "",
});

/**
 * Every kind above, by the folder prefix it owns (a new kind is added here and nowhere else).
 *
 * @example
 * ```ts
 * import { ASSET_KINDS } from "./asset_kinds.ts";
 * if (!ASSET_KINDS.some((k) => k.prefix === "profiles/gpu/")) throw new Error();
 * ```
 */
export const ASSET_KINDS: readonly AssetKind<unknown>[] = Object.freeze([
  GPU_PROFILES,
  STACK_PROFILES,
  DISPATCH_CATALOGS,
  RECIPES,
] as AssetKind<unknown>[]);

/** A kind whose documents declare their id in an `id` field. */
function _byId<T extends { readonly id: string }>(
  kind: Omit<AssetKind<T>, "idOf">,
): AssetKind<T> {
  return Object.freeze({ ...kind, idOf: (value: T) => value.id });
}
