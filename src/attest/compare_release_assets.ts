/**
 * A verdict's assets against the checker's own release. A bitaudit release ships one asset
 * manifest (`tables/manifest.json`: every profile, SFU table, wasm module and dispatch catalog with
 * its SHA-256), and a verdict names the digest of the manifest and of every asset it used. So a
 * verdict that names the checker's release but an asset at another digest, or an asset the release
 * does not list, was computed by an install whose assets are not the release's: its recomputations
 * rest on other tables, and it is no certificate of what this release computes. A verdict of
 * another release (or another verifier) is not compared: each release has its own manifest.
 *
 * Plain data in, plain data out, so the browser checker could run it too (it holds no manifest:
 * the page is itself one of the release's assets); the CLI builds the release's side from its
 * asset store. {@link checkReleaseAssets} says the outcome as `check`'s `assets` lines.
 *
 * @module
 */
import { quoteShort } from "../escape_text.ts";
import type { AddCheck } from "./check_trust_inputs.ts";
import type { VerdictPredicate } from "./verdict_predicate.ts";

/** The release a checker runs: its version and its manifest's digests. */
export interface ReleaseAssets {
  /** bitaudit version of the checker (`VERSION`). */
  readonly version: string;
  /** The manifest's own path and SHA-256 (hex): every verdict of the release names it. */
  readonly manifest: { readonly path: string; readonly sha256: string };
  /** Every asset the manifest lists: path -> SHA-256 (hex). */
  readonly assets: Readonly<Record<string, string>>;
}

/**
 * One asset where a verdict and the release differ: a digest the release does not have for that
 * path (`release` null: the release lists no such asset), or the manifest the verdict does not
 * name (`attested` null).
 */
export interface AssetDifference {
  /** The asset's path, as the verdict (or the release) names it: untrusted text. */
  readonly path: string;
  /** The digest the verdict names (untrusted text), or null when it names none. */
  readonly attested: string | null;
  /** The release's digest, or null when the release does not list the path. */
  readonly release: string | null;
}

/** Outcome of {@link compareReleaseAssets}. */
export type ReleaseAssetsComparison =
  | {
    /** Discriminant: the verdict is of another release (or verifier). */
    readonly compared: false;
    /** Whose verdict it is (the verifier's id and version as signed: untrusted text). */
    readonly verifier: { readonly id: string; readonly version: string };
  }
  | {
    /** Discriminant: the verdict names this release, and its assets were compared. */
    readonly compared: true;
    /** How many assets the verdict names (its manifest included). */
    readonly named: number;
    /** Every asset that differs, the manifest first; empty when all are the release's. */
    readonly differences: readonly AssetDifference[];
  };

/** The verifier id bitaudit signs into its verdicts (`verifier.id`). */
const BITAUDIT = "bitaudit";

/**
 * Compares the assets a verdict names with a release's manifest, when the verdict names that
 * release (`verifier.id` bitaudit, `verifier.version` the release's version).
 *
 * @param predicate the verified verdict predicate (its `verifier` and `assets`)
 * @param release the checker's release
 * @returns not compared (another release), or every asset that differs
 * @example
 * ```ts
 * import { compareReleaseAssets } from "./compare_release_assets.ts";
 * const release = {
 *   version: "0.1.0",
 *   manifest: { path: "tables/manifest.json", sha256: "aa".repeat(32) },
 *   assets: { "profiles/gpu/a100.json": "bb".repeat(32) },
 * };
 * const verifier = { id: "bitaudit", version: "0.1.0", engine: "wasm", runtime: "deno" };
 * const c = compareReleaseAssets({
 *   verifier,
 *   assets: { "tables/manifest.json": "aa".repeat(32), "profiles/gpu/a100.json": "cc".repeat(32) },
 * }, release);
 * if (!c.compared || c.differences[0]?.path !== "profiles/gpu/a100.json") throw new Error();
 * const other = { ...verifier, version: "0.2.0" };
 * if (compareReleaseAssets({ verifier: other, assets: {} }, release).compared) throw new Error();
 * ```
 */
export function compareReleaseAssets(
  predicate: Pick<VerdictPredicate, "verifier" | "assets">,
  release: ReleaseAssets,
): ReleaseAssetsComparison {
  const { id, version } = predicate.verifier;
  if (id !== BITAUDIT || version !== release.version) {
    return { compared: false, verifier: { id, version } };
  }
  const differences: AssetDifference[] = [];
  const attested = Object.entries(predicate.assets);
  if (!Object.hasOwn(predicate.assets, release.manifest.path)) {
    differences.push({
      path: release.manifest.path,
      attested: null,
      release: release.manifest.sha256,
    });
  }
  for (const [path, digest] of attested) {
    // Own properties only: a path such as "constructor" or "__proto__" names no asset.
    const mine = path === release.manifest.path
      ? release.manifest.sha256
      : Object.hasOwn(release.assets, path)
      ? release.assets[path]!
      : null;
    if (mine !== digest) differences.push({ path, attested: digest, release: mine });
  }
  return { compared: true, named: attested.length, differences };
}

/**
 * The most asset differences named one per line; the rest are counted on one more line (a signed
 * predicate may name any number of assets).
 */
export const MAX_NAMED_ASSET_DIFFERENCES = 64;

/**
 * Compares a verdict's assets with the release and adds `check`'s `assets` lines: one that passes
 * (every asset is the release's, or the verdict is of another release and was not compared), or
 * one failed line per asset that differs (`[VERDICT_ASSETS]`, at most
 * {@link MAX_NAMED_ASSET_DIFFERENCES}, then a count), its path and attested digest quoted.
 *
 * @param predicate the verified verdict predicate
 * @param o the checker's `release`, and `add` for each line (check name, passed, one-line detail)
 * @example
 * ```ts
 * import { checkReleaseAssets } from "./compare_release_assets.ts";
 * const release = {
 *   version: "0.1.0",
 *   manifest: { path: "tables/manifest.json", sha256: "aa".repeat(32) },
 *   assets: {},
 * };
 * const verifier = { id: "bitaudit", version: "0.1.0", engine: "wasm", runtime: "deno" };
 * const lines: string[] = [];
 * checkReleaseAssets({ verifier, assets: { "tables/manifest.json": "ab".repeat(32) } }, {
 *   release,
 *   add: (check, ok, detail) => lines.push(`${ok ? "ok" : "FAIL"} ${check}: ${detail}`),
 * });
 * if (!lines[0]?.startsWith("FAIL assets: [VERDICT_ASSETS] 'tables/manifest.json'")) {
 *   throw new Error(lines.join("\n"));
 * }
 * ```
 */
export function checkReleaseAssets(
  predicate: Pick<VerdictPredicate, "verifier" | "assets">,
  o: { readonly release: ReleaseAssets; readonly add: AddCheck },
): void {
  const { release, add } = o;
  const c = compareReleaseAssets(predicate, release);
  if (!c.compared) {
    const by = c.verifier.id === BITAUDIT
      ? `bitaudit ${_ascii(c.verifier.version)}`
      : `verifier ${_ascii(c.verifier.id)} ${_ascii(c.verifier.version)}`;
    add(
      "assets",
      true,
      `not compared: the verdict was computed by ${by}, this checker is bitaudit ` +
        `${release.version} (each release has its own asset manifest)`,
    );
    return;
  }
  if (c.differences.length === 0) {
    const named = c.named === 1
      ? "the 1 asset the verdict names is"
      : `the ${c.named} assets the verdict names are`;
    const manifest = release.manifest.sha256.slice(0, 16);
    add(
      "assets",
      true,
      `${named} this release's (bitaudit ${release.version}, manifest sha256 ${manifest}…)`,
    );
    return;
  }
  // The manifest's digest alone: every table the verdict read is this release's, but the
  // manifest also names the code (`code` in tables/manifest.json) and the other files, so
  // another build of this version computed the verdict: said, and refused as the others are.
  const first = c.differences[0]!;
  const alone = c.differences.length === 1 && first.path === release.manifest.path &&
      first.attested !== null
    ? `: another build of bitaudit ${release.version} (its code or files it did not read ` +
      `differ; the ${c.named - 1} asset(s) it read are this release's)`
    : "";
  for (const d of c.differences.slice(0, MAX_NAMED_ASSET_DIFFERENCES)) {
    add("assets", false, `[VERDICT_ASSETS] ${_assetFinding(d, release.version)}${alone}`);
  }
  const more = c.differences.length - MAX_NAMED_ASSET_DIFFERENCES;
  if (more > 0) {
    add("assets", false, `[VERDICT_ASSETS] and ${more} more asset(s) differ from this release's`);
  }
}

/** One asset difference in one line (the path and an attested digest are quoted: untrusted). */
function _assetFinding(d: AssetDifference, version: string): string {
  const path = quoteShort(d.path, 100);
  const mine = d.release === null ? null : `${d.release.slice(0, 16)}…`;
  if (d.attested === null) {
    return `${path}: not named by the verdict, which names bitaudit ${version}; this release's ` +
      `sha256 ${mine}`;
  }
  const theirs = /^[0-9a-f]{64}$/.test(d.attested)
    ? `${d.attested.slice(0, 16)}…`
    : quoteShort(d.attested, 24);
  return mine === null
    ? `${path}: attested sha256 ${theirs}, an asset bitaudit ${version} does not list`
    : `${path}: attested sha256 ${theirs}, bitaudit ${version}'s ${mine}`;
}

/**
 * A signed id or version quoted with every character outside printable ASCII escaped: a
 * look-alike (`bitаudit` with a Cyrillic a, `0.1.0` with a zero-width space) must not read as
 * this release's name on a line that passes.
 */
function _ascii(text: string): string {
  return quoteShort(text).replace(
    /[^\x20-\x7e]/gu,
    (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
  );
}
