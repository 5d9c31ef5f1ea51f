/**
 * The build a worker's result was computed by: the bitaudit version and the digest of its asset
 * manifest, which lists the program's code digest beside every table (`code` in
 * `tables/manifest.json`). The version string alone does not tell builds apart (it names a
 * release, and a checkout between releases keeps it), so a merge, a serve and a resumed shard
 * hold results to both: a result of another build rests on other code or tables than the
 * merging one's, whose name the signed verdict carries.
 *
 * @module
 */
import { MANIFEST_PATH } from "../assets/mod.ts";
import { quoteShort } from "../escape_text.ts";
import type { ItemResult } from "./item_result.ts";
import { VERSION } from "../version.ts";

/** A bitaudit build: its version and its manifest's SHA-256. */
export interface Build {
  /** bitaudit version. */
  readonly version: string;
  /** SHA-256 (hex) of `tables/manifest.json`, or null where a result names none. */
  readonly manifest: string | null;
}

/**
 * The build a result names (its verifier's version, the manifest among its assets).
 *
 * @param r the result
 * @returns its build
 * @example
 * ```ts
 * import { resultBuild } from "./result_build.ts";
 * const b = resultBuild({ verifier: { version: "0.1.0" }, assets: { "tables/manifest.json": "ab" } });
 * if (b.manifest !== "ab") throw new Error();
 * ```
 */
export function resultBuild(
  r: { readonly verifier: { readonly version: string }; readonly assets: ItemResult["assets"] },
): Build {
  const m = Object.hasOwn(r.assets, MANIFEST_PATH) ? r.assets[MANIFEST_PATH]! : null;
  return { version: r.verifier.version, manifest: m };
}

/**
 * This install's build: this version and the digest of the manifest its asset store read.
 *
 * @param store the asset store (its `manifestSha256`)
 * @returns the build
 * @example
 * ```ts
 * import { ownBuild } from "./result_build.ts";
 * if (ownBuild({ manifestSha256: "ab" }).manifest !== "ab") throw new Error();
 * ```
 */
export function ownBuild(store: { readonly manifestSha256: string }): Build {
  return { version: VERSION, manifest: store.manifestSha256 };
}

/**
 * Whether two builds are one (same version, same manifest; a missing manifest matches none).
 *
 * @param a a build
 * @param b another
 * @returns true when both name the same version and manifest
 * @example
 * ```ts
 * import { sameBuild } from "./result_build.ts";
 * if (sameBuild({ version: "1", manifest: "a" }, { version: "1", manifest: "b" })) throw new Error();
 * ```
 */
export function sameBuild(a: Build, b: Build): boolean {
  return a.version === b.version && a.manifest !== null && a.manifest === b.manifest;
}

/**
 * A build in a few words for messages: `version '0.1.0', manifest 1a2b3c4d5e6f7a8b…` (the
 * version quoted as signed text, `quoteShort`, the digest shortened).
 *
 * @param b the build
 * @returns the description
 * @example
 * ```ts
 * import { describeBuild } from "./result_build.ts";
 * if (!describeBuild({ version: "0.1.0", manifest: null }).endsWith("no manifest")) throw new Error();
 * ```
 */
export function describeBuild(b: Build): string {
  const m = b.manifest === null ? "no manifest" : `manifest ${b.manifest.slice(0, 16)}…`;
  return `version ${quoteShort(b.version, 40)}, ${m}`;
}
