/**
 * Validates one tensor entry of a safetensors header.
 *
 * @module
 */
import { InputError, type SafetensorsCode } from "../../errors.ts";
import {
  isSafetensorsDtype,
  SAFETENSORS_DTYPE_BYTES,
  SAFETENSORS_DTYPES,
  type SafetensorsDtype,
} from "./safetensors_dtype.ts";

/** One tensor described by a safetensors header (frozen). */
export interface SafetensorsEntry {
  /** Tensor name, the header key. */
  readonly name: string;
  /** Element type. */
  readonly dtype: SafetensorsDtype;
  /** Dimensions, outermost first (C order); `[]` is a scalar. */
  readonly shape: readonly number[];
  /** Number of elements: the product of `shape` (1 for a scalar). */
  readonly elementCount: number;
  /** `data_offsets` as written: begin and end relative to the start of the data buffer. */
  readonly dataOffsets: readonly [number, number];
  /** Absolute offset of the first byte in the file (buffer start + `dataOffsets[0]`). */
  readonly byteOffset: number;
  /** Bytes of data: `elementCount * dtype size`. */
  readonly byteLength: number;
}

/**
 * The fields a tensor entry has: the format defines no others. The reference reader ignores any
 * other, and so does {@link parseTensorEntry}; the header's parse tells them apart.
 */
export const TENSOR_ENTRY_FIELDS: readonly string[] = Object.freeze([
  "dtype",
  "shape",
  "data_offsets",
]);

/**
 * Checks the fields of one entry and builds its frozen description. Offsets are checked against
 * each other and the element count here; their place in the buffer is checked by the caller.
 *
 * @param name tensor name (the header key)
 * @param value the parsed JSON value of the entry
 * @param dataStart absolute offset of the data buffer in the file (`8 + header length`)
 * @returns the validated entry
 * @throws {InputError} `SAFETENSORS_ENTRY_FIELD` (not an object, a field missing or of the wrong
 *   JSON type; another field is ignored), `SAFETENSORS_DTYPE` (unknown dtype), `SAFETENSORS_SHAPE` (a dimension that
 *   is not a safe non-negative integer, or an element count above 2^53 - 1), `SAFETENSORS_OFFSETS`
 *   (not two safe non-negative integers with begin <= end), `SAFETENSORS_BYTE_LENGTH` (end - begin
 *   differs from element count times dtype size)
 * @example
 * ```ts
 * import { parseTensorEntry } from "./parse_tensor_entry.ts";
 * const e = parseTensorEntry("w", { dtype: "BF16", shape: [2, 3], data_offsets: [0, 12] }, 16);
 * if (e.elementCount !== 6 || e.byteOffset !== 16 || e.byteLength !== 12) throw new Error();
 * ```
 */
export function parseTensorEntry(
  name: string,
  value: unknown,
  dataStart: number,
): SafetensorsEntry {
  const where = `tensor '${name}'`;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    _fail("SAFETENSORS_ENTRY_FIELD", where, `expected an object, got ${_kind(value)}`);
  }
  const obj = value as Record<string, unknown>;
  for (const key of TENSOR_ENTRY_FIELDS) {
    if (!Object.hasOwn(obj, key)) _fail("SAFETENSORS_ENTRY_FIELD", where, `missing '${key}'`);
  }
  const { dtype, shape, data_offsets: offsets } = obj;
  if (typeof dtype !== "string") {
    _fail("SAFETENSORS_ENTRY_FIELD", where, `'dtype' is ${_kind(dtype)}, expected a string`);
  }
  if (!isSafetensorsDtype(dtype)) {
    _fail("SAFETENSORS_DTYPE", where, `unknown dtype '${dtype}' (known: ${SAFETENSORS_DTYPES})`);
  }
  if (!Array.isArray(shape)) {
    _fail("SAFETENSORS_ENTRY_FIELD", where, `'shape' is ${_kind(shape)}, expected an array`);
  }
  if (!Array.isArray(offsets)) {
    _fail(
      "SAFETENSORS_ENTRY_FIELD",
      where,
      `'data_offsets' is ${_kind(offsets)}, expected an array`,
    );
  }
  const elementCount = _elementCount(shape, where);
  const [begin, end] = _offsets(offsets, where);
  const byteLength = elementCount * SAFETENSORS_DTYPE_BYTES[dtype];
  if (!Number.isSafeInteger(byteLength) || byteLength !== end - begin) {
    _fail(
      "SAFETENSORS_BYTE_LENGTH",
      where,
      `${dtype} [${shape}] needs ${elementCount} * ${SAFETENSORS_DTYPE_BYTES[dtype]} bytes, ` +
        `data_offsets [${begin}, ${end}] give ${end - begin}`,
    );
  }
  return Object.freeze({
    name,
    dtype,
    shape: Object.freeze(shape.slice() as number[]),
    elementCount,
    dataOffsets: Object.freeze([begin, end] as [number, number]),
    byteOffset: dataStart + begin,
    byteLength,
  });
}

function _elementCount(shape: readonly unknown[], where: string): number {
  // Exact product in BigInt: dimensions are safe integers, their product may not be.
  let count = 1n;
  for (const d of shape) {
    if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 0) {
      _fail("SAFETENSORS_SHAPE", where, `dimension ${_show(d)} is not a safe non-negative integer`);
    }
    count *= BigInt(d);
  }
  if (count > BigInt(Number.MAX_SAFE_INTEGER)) {
    _fail("SAFETENSORS_SHAPE", where, `element count ${count} of [${shape}] exceeds 2^53 - 1`);
  }
  return Number(count);
}

function _offsets(offsets: readonly unknown[], where: string): [number, number] {
  const [begin, end] = offsets;
  const ok = (v: unknown): v is number =>
    typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
  if (offsets.length !== 2 || !ok(begin) || !ok(end) || begin > end) {
    _fail(
      "SAFETENSORS_OFFSETS",
      where,
      `data_offsets ${_show(offsets)} are not [begin, end] safe integers with 0 <= begin <= end`,
    );
  }
  return [begin, end];
}

function _fail(code: SafetensorsCode, where: string, why: string): never {
  throw new InputError(code, `Cannot read safetensors ${where}: ${why}`);
}

function _kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : `a ${typeof v}`;
}

function _show(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}
