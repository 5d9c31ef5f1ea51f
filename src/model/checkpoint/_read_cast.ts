/**
 * Reads elements of an F32 or F16 tensor and casts them to BF16 (`castToBf16`), a bounded chunk
 * at a time: a cast tensor is never held whole in its stored dtype beside its BF16 copy.
 *
 * @module
 */
import {
  type ByteSource,
  readExactly,
  type SafetensorsEntry,
  viewTensorBytes,
} from "../safetensors/mod.ts";
import { castToBf16, firstNan, type LoadCastDtype } from "./cast_to_bf16.ts";

/** Elements read per chunk: 1 Mi (4 MiB of F32). */
export const _CAST_CHUNK = 1 << 20;

/**
 * Casts `count` elements of a tensor from element `first` into `out` at `at`, reading the stored
 * bytes one chunk at a time; without `out`, only looks for a NaN.
 *
 * @param source the weight file
 * @param o the tensor's entry (its dtype F32 or F16), the first element and the count, the output
 *   and where in it to write (none: nothing is cast)
 * @returns the index in the tensor of the first NaN met (the cast stops there), or -1
 * @throws {InputError} `BYTE_SOURCE_SHORT_READ` from the source; {RangeError} for a range outside
 *   the file
 */
export async function _readCast(
  source: ByteSource,
  o: {
    readonly entry: SafetensorsEntry & { readonly dtype: LoadCastDtype };
    readonly first: number;
    readonly count: number;
    readonly out?: { readonly to: Uint16Array; readonly at: number };
  },
): Promise<number> {
  const { entry, out } = o;
  const width = entry.dtype === "F32" ? 4 : 2;
  for (let done = 0; done < o.count; done += _CAST_CHUNK) {
    const n = Math.min(_CAST_CHUNK, o.count - done);
    const bytes = await readExactly(source, {
      offset: entry.byteOffset + (o.first + done) * width,
      length: n * width,
      what: `elements ${o.first + done}..${o.first + done + n - 1} of '${entry.name}'`,
    });
    const bits = viewTensorBytes(entry.dtype, bytes);
    const nan = out === undefined
      ? firstNan(bits)
      : castToBf16(entry.dtype, { bits, out: out.to, at: out.at + done });
    if (nan >= 0) return o.first + done + nan;
  }
  return -1;
}
