/**
 * Resolves GPU profiles through the hash-checked asset store.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { AssetError } from "../errors.ts";
import { type GpuProfile, parseGpuProfile } from "../hardware/mod.ts";

/** A profile together with the digest of the file it came from. */
export interface LoadedProfile {
  /** The validated profile. */
  readonly profile: GpuProfile;
  /** Repository-relative path. */
  readonly path: string;
  /** SHA-256 of the profile file. */
  readonly sha256: string;
}

const PREFIX = "profiles/gpu/";

/**
 * Loads one GPU profile by id.
 *
 * @param store asset store
 * @param id profile id, e.g. `h100-sxm`
 * @returns the profile and its digest
 * @throws {AssetError} `PROFILE_UNKNOWN`, `ASSET_*` on tampering, `ASSET_INVALID` when the
 *   file fails validation
 * @example
 * ```ts ignore
 * const { profile, sha256 } = await loadGpuProfile(await openAssetStore(), "a100");
 * ```
 */
export async function loadGpuProfile(store: AssetStore, id: string): Promise<LoadedProfile> {
  const path = `${PREFIX}${id}.json`;
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(id) || store.manifest.assets[path] === undefined) {
    const known = listGpuProfileIds(store).join(", ");
    throw new AssetError("PROFILE_UNKNOWN", `Cannot find GPU profile '${id}': known are ${known}`);
  }
  const json = await store.readJson(path);
  let profile: GpuProfile;
  try {
    profile = parseGpuProfile(json);
  } catch (e) {
    throw new AssetError("ASSET_INVALID", `Cannot load '${path}': ${(e as Error).message}`);
  }
  if (profile.id !== id) {
    throw new AssetError("ASSET_INVALID", `Cannot load '${path}': its id is '${profile.id}'`);
  }
  return { profile, path, sha256: store.manifest.assets[path]?.sha256 ?? "" };
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
  return Object.keys(store.manifest.assets)
    .filter((p) => p.startsWith(PREFIX) && p.endsWith(".json"))
    .map((p) => p.slice(PREFIX.length, -5))
    .sort();
}
