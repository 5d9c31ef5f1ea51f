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
export { type AssetStore, openAssetStore } from "./asset_store.ts";
export { type BlobHasher, type BlobStore, openBlobStore } from "./blob_store.ts";
export { type FileByteSource, fileByteSource } from "./file_byte_source.ts";
export { type Manifest, type ManifestEntry, parseManifest } from "./manifest.ts";
export { type VectorText } from "./parse_vector_text.ts";
export {
  type AccumulatorSource,
  parseVectorSet,
  readVectorSet,
  type VectorOutput,
  type VectorSet,
  type VectorSetFiles,
} from "./read_vector_set.ts";
export { sha256Hex } from "../sha256_hex.ts";
export { type CheckpointDir, checkpointDir } from "./checkpoint_dir.ts";
