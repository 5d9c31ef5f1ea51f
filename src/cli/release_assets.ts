/**
 * The checker's own release as `check` compares verdicts with it: this build's version and the
 * digests its asset manifest lists (the manifest's own included).
 *
 * @module
 */
import { type AssetStore, MANIFEST_PATH } from "../assets/mod.ts";
import type { ReleaseAssets } from "../attest/mod.ts";
import { VERSION } from "../version.ts";

/**
 * This release's assets, read from an opened asset store (whose manifest was parsed strictly, and
 * whose own digest is the one every verdict of this release names).
 *
 * @param store the install's asset store
 * @returns the version and the manifest's digests
 * @example
 * ```ts
 * import { openAssetStore } from "../assets/mod.ts";
 * import { releaseAssets } from "./release_assets.ts";
 * const r = releaseAssets(await openAssetStore());
 * if (r.manifest.path !== "tables/manifest.json" || !("profiles/gpu/a100.json" in r.assets)) {
 *   throw new Error();
 * }
 * ```
 */
export function releaseAssets(
  store: Pick<AssetStore, "manifest" | "manifestSha256">,
): ReleaseAssets {
  // fromEntries defines own properties, so a path such as "__proto__" stays data.
  const assets = Object.fromEntries(
    Object.entries(store.manifest.assets).map(([path, entry]) => [path, entry.sha256]),
  );
  return {
    version: VERSION,
    manifest: { path: MANIFEST_PATH, sha256: store.manifestSha256 },
    assets,
  };
}
