/**
 * Host byte order, and the byte swap needed when it is not little-endian.
 *
 * Safetensors stores every element little-endian, and typed arrays use the host's byte order.
 * Every platform Deno ships for is little-endian, so the swap path exists only so that a
 * big-endian host would still read and write correct files instead of silently wrong ones.
 *
 * @module
 */

/** True when typed arrays on this host store the least significant byte first. */
export const HOST_IS_LITTLE_ENDIAN: boolean = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Copies bytes, reversing the byte order within each element (little- <-> big-endian).
 *
 * @param bytes elements of `width` bytes each, back to back
 * @param width element size in bytes: 1, 2, 4 or 8
 * @returns a new array (offset 0 in a fresh buffer) with every element's bytes reversed
 * @throws {RangeError} when `bytes.length` is not a multiple of `width`
 * @example
 * ```ts
 * import { swapBytes } from "./little_endian.ts";
 * const out = swapBytes(new Uint8Array([1, 2, 3, 4]), 2);
 * if (out.join() !== "2,1,4,3") throw new Error();
 * ```
 */
export function swapBytes(bytes: Uint8Array, width: 1 | 2 | 4 | 8): Uint8Array {
  if (bytes.length % width !== 0) {
    throw new RangeError(
      `Cannot swap bytes: length ${bytes.length} is not a multiple of element size ${width}`,
    );
  }
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += width) {
    for (let j = 0; j < width; j++) out[i + j] = bytes[i + width - 1 - j] as number;
  }
  return out;
}
