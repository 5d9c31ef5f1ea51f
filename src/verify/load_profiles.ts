/**
 * Resolves GPU profiles, stack profiles and dispatch catalogs through the hash-checked store.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { type GpuProfile, parseGpuProfile } from "../hardware/mod.ts";
import {
  type DispatchCatalog,
  parseDispatchCatalog,
  parseStackProfile,
  type StackProfile,
} from "../kernels/mod.ts";
import { type AssetKind, listAssetIds, loadAsset } from "./load_asset.ts";

/** GPU profiles in `profiles/gpu/`. */
export const GPU_PROFILES: AssetKind<GpuProfile> = {
  what: "GPU profile",
  prefix: "profiles/gpu/",
  unknownCode: "PROFILE_UNKNOWN",
  parse: parseGpuProfile,
  idOf: (p) => p.id,
};

/** Software-stack profiles in `profiles/stack/`. */
export const STACK_PROFILES: AssetKind<StackProfile> = {
  what: "stack profile",
  prefix: "profiles/stack/",
  unknownCode: "STACK_UNKNOWN",
  parse: parseStackProfile,
  idOf: (p) => p.id,
};

/** Dispatch catalogs in `tables/catalogs/`. */
export const DISPATCH_CATALOGS: AssetKind<DispatchCatalog> = {
  what: "dispatch catalog",
  prefix: "tables/catalogs/",
  unknownCode: "CATALOG_UNKNOWN",
  parse: parseDispatchCatalog,
  idOf: (c) => c.id,
};

/** A profile together with the digest of the file it came from. */
export interface LoadedProfile {
  /** The validated profile. */
  readonly profile: GpuProfile;
  /** Repository-relative path. */
  readonly path: string;
  /** SHA-256 of the profile file. */
  readonly sha256: string;
}

/**
 * Loads one GPU profile by id.
 *
 * @param store asset store
 * @param id profile id, e.g. `h100-sxm`
 * @returns the profile and its digest
 * @throws {AssetError} `PROFILE_UNKNOWN`, `ASSET_*` on tampering, `ASSET_INVALID`
 * @example
 * ```ts ignore
 * const { profile, sha256 } = await loadGpuProfile(await openAssetStore(), "a100");
 * ```
 */
export async function loadGpuProfile(store: AssetStore, id: string): Promise<LoadedProfile> {
  const { value, path, sha256 } = await loadAsset(store, { kind: GPU_PROFILES, id });
  return { profile: value, path, sha256 };
}

/**
 * Lists the GPU profile ids the manifest knows, sorted.
 *
 * @param store asset store
 * @returns profile ids
 * @example
 * ```ts ignore
 * listGpuProfileIds(await openAssetStore()); // ["a100", "a2", ...]
 * ```
 */
export function listGpuProfileIds(store: AssetStore): string[] {
  return listAssetIds(store, GPU_PROFILES);
}
