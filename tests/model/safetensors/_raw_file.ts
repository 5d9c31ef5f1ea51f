/**
 * Test helpers: build safetensors bytes by hand (bypassing the writer) and assert error codes.
 *
 * @module
 */
import { type InputCode, InputError } from "../../../src/errors.ts";
import { bytesByteSource } from "../../../src/model/safetensors/bytes_byte_source.ts";
import {
  openSafetensors,
  type OpenSafetensorsOptions,
  type SafetensorsFile,
} from "../../../src/model/safetensors/open_safetensors.ts";
import { assertRejectsCode } from "../../_assert_code.ts";

/**
 * Builds a file from a header text (or raw header bytes) and a data buffer.
 *
 * @param header JSON text, UTF-8 encoded as is (no padding added), or raw bytes
 * @param data buffer bytes, or a byte count filled with 0xAB
 * @param prefix overrides the length prefix (default: the header's byte length)
 * @returns the file bytes
 */
export function rawFile(
  header: string | Uint8Array,
  data: Uint8Array | number = 0,
  prefix?: bigint,
): Uint8Array {
  const h = typeof header === "string" ? new TextEncoder().encode(header) : header;
  const d = typeof data === "number" ? new Uint8Array(data).fill(0xab) : data;
  const out = new Uint8Array(8 + h.length + d.length);
  new DataView(out.buffer).setBigUint64(0, prefix ?? BigInt(h.length), true);
  out.set(h, 8);
  out.set(d, 8 + h.length);
  return out;
}

/**
 * Opens in-memory bytes.
 *
 * @param bytes the file
 * @param options passed on
 * @returns the opened file
 */
export function openBytes(
  bytes: Uint8Array,
  options: OpenSafetensorsOptions = {},
): Promise<SafetensorsFile> {
  return openSafetensors(bytesByteSource(bytes), options);
}

/**
 * Asserts that a promise rejects with a coded error of the given code.
 *
 * @param p the promise
 * @param code expected code
 */
export async function rejectsWithCode(p: Promise<unknown>, code: InputCode): Promise<void> {
  await assertRejectsCode(() => p, InputError, code);
}

/**
 * One tensor entry as header JSON.
 *
 * @param dtype dtype text
 * @param shape dims
 * @param offsets data offsets
 * @returns the JSON object text
 */
export function entry(dtype: string, shape: number[], offsets: [number, number]): string {
  return JSON.stringify({ dtype, shape, data_offsets: offsets });
}
