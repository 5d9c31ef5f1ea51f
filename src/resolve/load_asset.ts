/**
 * Resolves a named, parsed asset through the hash-checked store (profiles, stacks, recipes,
 * catalogs share this path: id -> manifest -> digest check -> parse -> id check -> frozen
 * object). The kinds are registered in `asset_kinds.ts`.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { AssetError, type UnknownAssetCode } from "../errors.ts";
import { quoteShort } from "../escape_text.ts";

/** A parsed asset with where it came from. */
export interface LoadedAsset<T> {
  /** The parsed value. */
  readonly value: T;
  /** Repository-relative path. */
  readonly path: string;
  /** SHA-256 of the file. */
  readonly sha256: string;
}

/** Where a kind of asset lives and how it parses. */
export interface AssetKind<T> {
  /** Human name for messages, e.g. `GPU profile`. */
  readonly what: string;
  /** Folder prefix, e.g. `profiles/gpu/`. */
  readonly prefix: string;
  /** Error code for an unknown id. */
  readonly unknownCode: UnknownAssetCode;
  /** Validating parser (throws TypeError/RangeError). */
  readonly parse: (json: unknown) => T;
  /** The id a parsed value declares, checked against the file name. */
  readonly idOf: (value: T) => string;
}

/**
 * Lists the ids of one kind of asset.
 *
 * @param store asset store
 * @param kind asset kind
 * @returns ids sorted
 * @example
 * ```ts ignore
 * listAssetIds(store, GPU_PROFILES);
 * ```
 */
export function listAssetIds<T>(store: AssetStore, kind: AssetKind<T>): string[] {
  return Object.keys(store.manifest.assets)
    .filter((p) =>
      p.startsWith(kind.prefix) && p.endsWith(".json") && !p.slice(kind.prefix.length).includes("/")
    )
    .map((p) => p.slice(kind.prefix.length, -5))
    .sort();
}

/**
 * Loads, checks and parses one asset by id.
 *
 * @param store asset store
 * @param options asset kind and id
 * @returns the parsed asset (frozen) with its path and digest
 * @throws {AssetError} `kind.unknownCode`, `ASSET_*`, `ASSET_INVALID`
 * @example
 * ```ts ignore
 * const { value } = await loadAsset(store, { kind: GPU_PROFILES, id: "a100" });
 * ```
 */
export async function loadAsset<T>(
  store: AssetStore,
  options: { kind: AssetKind<T>; id: string },
): Promise<LoadedAsset<T>> {
  const { kind, id } = options;
  const path = `${kind.prefix}${id}.json`;
  const entry = store.manifest.assets[path];
  if (!/^[a-z0-9][a-z0-9._-]{0,127}$/.test(id) || entry === undefined) {
    // The id is often a record's (its stack, profile, catalog): any text, quoted short so that
    // it cannot pad itself into a line of its own where a reason is printed.
    throw new AssetError(
      kind.unknownCode,
      `Cannot find ${kind.what} ${quoteShort(id, 64)}: known are ${
        listAssetIds(store, kind).join(", ")
      }`,
    );
  }
  const json = await store.readJson(path);
  let value: T;
  try {
    value = kind.parse(json);
  } catch (e) {
    throw new AssetError("ASSET_INVALID", `Cannot load '${path}': ${(e as Error).message}`);
  }
  if (kind.idOf(value) !== id) {
    throw new AssetError(
      "ASSET_INVALID",
      `Cannot load '${path}': it declares id '${kind.idOf(value)}'`,
    );
  }
  return Object.freeze({ value: Object.freeze(value), path, sha256: entry.sha256 });
}
