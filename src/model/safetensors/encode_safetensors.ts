/**
 * Encodes tensors as one safetensors file in memory.
 *
 * @module
 */
import type { SafetensorsTensorInput } from "./check_writer_input.ts";
import { encodeSafetensorsChunks } from "./encode_safetensors_chunks.ts";
import type { EncodeSafetensorsOptions } from "./plan_safetensors_layout.ts";

/**
 * Encodes tensors as the bytes of a safetensors file (prefix, space-padded header, aligned data;
 * see `planSafetensorsLayout`). For large files prefer {@link encodeSafetensorsChunks}.
 *
 * @param tensors tensors to store, in any order
 * @param options `metadata`: string metadata for `__metadata__`
 * @returns the whole file
 * @throws {TypeError} for inputs of the wrong type
 * @throws {RangeError} for out-of-range inputs (unknown dtype, repeated name, shape vs data length)
 * @example
 * ```ts
 * import { encodeSafetensors } from "./encode_safetensors.ts";
 * const file = encodeSafetensors([], { metadata: { fmt: "pt" } });
 * const text = new TextDecoder().decode(file.subarray(8));
 * if (text !== '{"__metadata__":{"fmt":"pt"}}   ' || file[0] !== 32) throw new Error();
 * ```
 */
export function encodeSafetensors(
  tensors: readonly SafetensorsTensorInput[],
  options: EncodeSafetensorsOptions = {},
): Uint8Array {
  const chunks = encodeSafetensorsChunks(tensors, options);
  const out = new Uint8Array(chunks.byteLength);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
