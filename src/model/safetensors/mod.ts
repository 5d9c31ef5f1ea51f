/**
 * Safetensors reading and writing, on bytes and abstract byte sources (no I/O here).
 *
 * Reading validates the whole header strictly (see `parseSafetensorsHeader` and `checkTiling`
 * for the rules) and then reads tensors one at a time; floating-point tensors are viewed as bit
 * patterns. Writing produces the reference layout (space-padded header, aligned data) either as
 * one array or as chunks. For files on disk, use `fileByteSource` from `src/assets`.
 *
 * @example
 * ```ts
 * import { bytesByteSource, encodeSafetensors, openSafetensors } from "./mod.ts";
 * const bytes = encodeSafetensors(
 *   [{ name: "w", dtype: "F32", shape: [1, 2], data: new Uint32Array([0x3f800000, 0x80000000]) }],
 *   { metadata: { format: "pt" } },
 * );
 * const file = await openSafetensors(bytesByteSource(bytes));
 * const w = file.entry("w");
 * const bits = await file.tensorView("w"); // Uint32Array of fp32 bit patterns
 * if (w.elementCount !== 2 || bits[1] !== 0x80000000 || file.metadata.format !== "pt") {
 *   throw new Error();
 * }
 * ```
 * @module
 */
export { type ByteSource, checkRange, readExactly } from "./byte_source.ts";
export { bytesByteSource } from "./bytes_byte_source.ts";
export { type SafetensorsTensorInput } from "./check_writer_input.ts";
export { encodeSafetensors } from "./encode_safetensors.ts";
export { encodeSafetensorsChunks, type SafetensorsChunks } from "./encode_safetensors_chunks.ts";
export {
  DEFAULT_MAX_HEADER_BYTES,
  HEADER_BYTES_BESIDES_TENSORS,
  HEADER_BYTES_PER_TENSOR,
  openSafetensors,
  type OpenSafetensorsOptions,
  type SafetensorsFile,
} from "./open_safetensors.ts";
export {
  DEFAULT_MAX_TENSORS,
  HEADER_VALUES_PER_TENSOR,
  headerValueLimit,
  MAX_METADATA_CHARS,
  MAX_METADATA_ENTRIES,
  METADATA_KEY,
  parseSafetensorsHeader,
  type SafetensorsHeader,
} from "./parse_safetensors_header.ts";
export { type SafetensorsEntry } from "./parse_tensor_entry.ts";
export { type EncodeSafetensorsOptions } from "./plan_safetensors_layout.ts";
export {
  dtypeByteSize,
  isSafetensorsDtype,
  SAFETENSORS_DTYPE_BYTES,
  SAFETENSORS_DTYPES,
  type SafetensorsDtype,
} from "./safetensors_dtype.ts";
export {
  type SafetensorsView,
  type SafetensorsViewTypes,
  viewTensorBytes,
} from "./view_tensor_bytes.ts";
