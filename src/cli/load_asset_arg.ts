/**
 * A command-line asset argument that names either a bundled asset (an id, resolved through the
 * hash-checked store) or a user file (a path ending in `.json`, parsed by the same validating
 * parser).
 *
 * @module
 */
import { type AssetStore, sha256Hex } from "../assets/mod.ts";
import { AssetError } from "../errors.ts";
import { parseStrictJson } from "../json_strict.ts";
import { type AssetKind, loadAsset } from "../resolve/mod.ts";
import { readTextFile } from "./read_json_file.ts";

/** Largest asset file accepted (bytes). */
export const MAX_ASSET_FILE_BYTES = 16 << 20;

/** A resolved asset argument. */
export interface AssetArg<T> {
  /** The parsed, frozen value. */
  readonly value: T;
  /** Where it came from: the manifest path of a bundled asset, or the file as given. */
  readonly source: string;
  /** SHA-256 of its bytes. */
  readonly sha256: string;
  /** Whether it is a bundled asset (false: a user file). */
  readonly bundled: boolean;
}

/**
 * Resolves `<id|file.json>`.
 *
 * @param store asset store (for ids)
 * @param o the asset `kind` and the argument `text`
 * @returns the parsed asset with its source and digest
 * @throws {AssetError} the kind's unknown-id code and `ASSET_*` for ids; `ASSET_INVALID` for a
 *   file the parser refuses
 * @throws {InputError} `INPUT_MISSING`, `INPUT_TOO_LARGE`, `INPUT_UTF8`, `INPUT_JSON` for files
 * @example
 * ```ts ignore
 * const stack = await loadAssetArg(store, { kind: STACK_PROFILES, text: "my-stack.json" });
 * ```
 */
export async function loadAssetArg<T>(
  store: AssetStore,
  o: { kind: AssetKind<T>; text: string },
): Promise<AssetArg<T>> {
  const { kind, text } = o;
  if (!text.endsWith(".json")) {
    const a = await loadAsset(store, { kind, id: text });
    return Object.freeze({ value: a.value, source: a.path, sha256: a.sha256, bundled: true });
  }
  const body = await readTextFile(text, { maxBytes: MAX_ASSET_FILE_BYTES, jsonCode: "INPUT_JSON" });
  let value: T;
  try {
    value = kind.parse(parseStrictJson(body));
  } catch (e) {
    throw new AssetError(
      "ASSET_FILE_INVALID",
      `Cannot load ${kind.what} '${text}': ${(e as Error).message}`,
    );
  }
  const sha256 = sha256Hex(new TextEncoder().encode(body));
  return Object.freeze({ value: Object.freeze(value), source: text, sha256, bundled: false });
}
