/**
 * Assets: the manifest of profiles and tables, hash-checked reads (blobs refused by size before a
 * byte is read: `BLOB_MAX_BYTES` per kind), measured-vector files.
 *
 * @example
 * ```ts
 * import { BLOB_MAX_BYTES, parseManifest, sha256Hex } from "./mod.ts";
 * const m = parseManifest('{"schema":"bitaudit.asset-manifest/v1","assets":{}}');
 * if (m.schema !== "bitaudit.asset-manifest/v1" || sha256Hex(new Uint8Array([0])).length !== 64) {
 *   throw new Error();
 * }
 * if (BLOB_MAX_BYTES.config > BLOB_MAX_BYTES.history) {
 *   throw new Error();
 * }
 * ```
 * @module
 */
export { type AssetStore, MANIFEST_PATH, openAssetStore } from "./asset_store.ts";
export { BLOB_MAX_BYTES, type BlobLimits, type BlobReadOptions } from "./blob_limits.ts";
export { type BlobHasher, type BlobStore, openBlobStore } from "./blob_store.ts";
export { type FileByteSource, fileByteSource } from "./file_byte_source.ts";
export { type Manifest, type ManifestEntry, parseManifest } from "./manifest.ts";
export { type VectorText } from "./parse_vector_text.ts";
export {
  type AccumulatorSource,
  MAX_VECTOR_OUTPUTS,
  parseVectorSet,
  readVectorSet,
  type VectorOutput,
  type VectorSet,
  type VectorSetFiles,
} from "./read_vector_set.ts";
export { sha256Hex } from "../sha256_hex.ts";
export { type CheckpointDir, checkpointDir } from "./checkpoint_dir.ts";
