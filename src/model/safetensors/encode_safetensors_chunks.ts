/**
 * Encodes tensors as a safetensors file delivered in chunks, so that a large file is never
 * concatenated in memory: the chunks are the header and views of the callers' own data.
 *
 * @module
 */
import type { SafetensorsTensorInput } from "./check_writer_input.ts";
import { swapBytes } from "./little_endian.ts";
import {
  type EncodeSafetensorsOptions,
  planSafetensorsLayout,
  type SafetensorsLayout,
} from "./plan_safetensors_layout.ts";

/** The chunks of an encoded file, with their total size known up front. */
export interface SafetensorsChunks extends Iterable<Uint8Array> {
  /** Sum of the chunk lengths: the size of the file. */
  readonly byteLength: number;
}

/**
 * Encodes tensors as chunks: first the length prefix and padded header, then each non-empty
 * tensor's data in buffer order. Inputs are checked at once (not on first iteration); the chunks
 * may share memory with the inputs, which must not change until the chunks are written. The
 * result can be iterated more than once.
 *
 * @param tensors tensors to store, in any order (see `planSafetensorsLayout` for the layout)
 * @param options `metadata`: string metadata for `__metadata__`
 * @returns the chunks and their total length
 * @throws {TypeError} for inputs of the wrong type
 * @throws {RangeError} for out-of-range inputs (unknown dtype, repeated name, shape vs data length)
 * @example
 * ```ts
 * import { encodeSafetensorsChunks } from "./encode_safetensors_chunks.ts";
 * const chunks = encodeSafetensorsChunks([
 *   { name: "a", dtype: "I32", shape: [2], data: new Int32Array([1, -1]) },
 * ]);
 * const sizes = [...chunks].map((c) => c.length);
 * if (sizes.length !== 2 || sizes[1] !== 8 || chunks.byteLength !== sizes[0]! + 8) {
 *   throw new Error();
 * }
 * ```
 */
export function encodeSafetensorsChunks(
  tensors: readonly SafetensorsTensorInput[],
  options: EncodeSafetensorsOptions = {},
): SafetensorsChunks {
  const layout = planSafetensorsLayout(tensors, options);
  return Object.freeze({
    byteLength: layout.byteLength,
    [Symbol.iterator]: () => _chunks(layout),
  });
}

function* _chunks(layout: SafetensorsLayout): Generator<Uint8Array, void, undefined> {
  yield layout.head;
  for (const part of layout.parts) {
    if (part.bytes.length === 0) continue;
    yield part.swapWidth === 1 ? part.bytes : swapBytes(part.bytes, part.swapWidth);
  }
}
