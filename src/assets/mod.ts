/**
 * Assets: the manifest of profiles and tables, hash-checked reads, measured-vector files.
 *
 * @example
 * ```ts
 * import { parseManifest, sha256Hex } from "./mod.ts";
 * const m = parseManifest('{"schema":"bitaudit.asset-manifest/v1","assets":{}}');
 * if (m.schema !== "bitaudit.asset-manifest/v1" || sha256Hex(new Uint8Array([0])).length !== 64) {
 *   throw new Error();
 * }
 * ```
 * @module
 */
export * from "./manifest.ts";
export * from "../sha256_hex.ts";
export * from "./asset_store.ts";
export * from "./read_vector_set.ts";
export * from "./parse_vector_text.ts";
export * from "./file_byte_source.ts";
export * from "./blob_store.ts";
export * from "./checkpoint_dir.ts";
