/**
 * Resolves GPU profiles by id through the hash-checked store.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import { GPU_PROFILES } from "./asset_kinds.ts";
import { listAssetIds, loadAsset } from "./load_asset.ts";

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
