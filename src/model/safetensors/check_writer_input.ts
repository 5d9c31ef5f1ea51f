/**
 * Validates what a caller hands to the safetensors writer. Misuse throws built-in errors:
 * `TypeError` for a wrong type, `RangeError` for a value out of range.
 *
 * @module
 */
import { METADATA_KEY } from "./parse_safetensors_header.ts";
import {
  isSafetensorsDtype,
  SAFETENSORS_DTYPE_BYTES,
  SAFETENSORS_DTYPES,
  type SafetensorsDtype,
} from "./safetensors_dtype.ts";

/** A tensor to write. */
export interface SafetensorsTensorInput {
  /** Tensor name: any well-formed string except `"__metadata__"`, unique in the file. */
  readonly name: string;
  /** Element type. */
  readonly dtype: SafetensorsDtype;
  /** Dimensions, outermost first; `[]` for a scalar. */
  readonly shape: readonly number[];
  /**
   * The elements in C order: a `Uint8Array` holds raw little-endian bytes for any dtype; any
   * other typed array holds values in host order and must have the dtype's element size (e.g.
   * `Uint16Array` of bit patterns for BF16).
   */
  readonly data: ArrayBufferView;
}

/** A validated tensor input. */
export interface CheckedTensor {
  /** Name. */
  readonly name: string;
  /** Element type. */
  readonly dtype: SafetensorsDtype;
  /** Copy of the shape. */
  readonly shape: readonly number[];
  /** The data's bytes (a view, not a copy). */
  readonly bytes: Uint8Array;
  /** Element size in bytes. */
  readonly width: 1 | 2 | 4 | 8;
  /** True when `bytes` are in host order (data was a typed array other than Uint8Array). */
  readonly hostOrder: boolean;
}

/**
 * Checks tensors and metadata, and sorts the tensors into buffer order: decreasing element size,
 * then name by UTF-16 code units.
 *
 * @param tensors tensors to write, in any order
 * @param metadata optional string metadata
 * @returns the checked tensors in buffer order, and the metadata as key-sorted pairs
 * @throws {TypeError} a tensor, name, dtype, shape, data or metadata value of the wrong type, or
 *   a typed array whose element size differs from the dtype's
 * @throws {RangeError} an unknown dtype, a reserved, ill-formed or repeated name, a dimension
 *   that is not a safe non-negative integer, or data whose length does not match the shape
 * @example
 * ```ts
 * import { checkWriterInput } from "./check_writer_input.ts";
 * const { tensors } = checkWriterInput([
 *   { name: "b", dtype: "U8", shape: [1], data: new Uint8Array(1) },
 *   { name: "a", dtype: "F32", shape: [1], data: new Uint32Array(1) },
 * ], undefined);
 * if (tensors.map((t) => t.name).join() !== "a,b") throw new Error();
 * ```
 */
export function checkWriterInput(
  tensors: readonly SafetensorsTensorInput[],
  metadata: Readonly<Record<string, string>> | undefined,
): { tensors: readonly CheckedTensor[]; metadata: readonly [string, string][] | undefined } {
  if (!Array.isArray(tensors)) {
    throw new TypeError("Cannot encode safetensors: tensors must be an array");
  }
  const seen = new Set<string>();
  const checked = tensors.map((t: SafetensorsTensorInput, i: number) => {
    const c = _tensor(t, i);
    if (seen.has(c.name)) {
      throw new RangeError(`Cannot encode safetensors: name ${JSON.stringify(c.name)} repeats`);
    }
    seen.add(c.name);
    return c;
  });
  checked.sort((x, y) => y.width - x.width || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return { tensors: checked, metadata: metadata === undefined ? undefined : _metadata(metadata) };
}

function _tensor(t: SafetensorsTensorInput, i: number): CheckedTensor {
  const where = `Cannot encode safetensors tensor ${i}`;
  if (typeof t !== "object" || t === null) throw new TypeError(`${where}: not an object`);
  const { name, dtype, shape, data } = t;
  if (typeof name !== "string") throw new TypeError(`${where}: name is not a string`);
  if (name === METADATA_KEY || !name.isWellFormed()) {
    throw new RangeError(`${where}: name ${JSON.stringify(name)} is reserved or ill-formed`);
  }
  if (typeof dtype !== "string") throw new TypeError(`${where}: dtype is not a string`);
  if (!isSafetensorsDtype(dtype)) {
    throw new RangeError(`${where}: unknown dtype '${dtype}' (known: ${SAFETENSORS_DTYPES})`);
  }
  if (!Array.isArray(shape)) throw new TypeError(`${where}: shape is not an array`);
  let count = 1n;
  for (const d of shape) {
    if (typeof d !== "number") throw new TypeError(`${where}: dimension ${d} is not a number`);
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new RangeError(`${where}: dimension ${d} is not a safe non-negative integer`);
    }
    count *= BigInt(d);
  }
  if (!ArrayBuffer.isView(data) || data instanceof DataView) {
    throw new TypeError(`${where}: data is not a typed array`);
  }
  const width = SAFETENSORS_DTYPE_BYTES[dtype];
  const perElement = (data as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  const raw = data instanceof Uint8Array;
  if (!raw && perElement !== width) {
    throw new TypeError(
      `${where}: ${dtype} needs ${width}-byte elements, data has ${perElement}-byte elements`,
    );
  }
  if (BigInt(data.byteLength) !== count * BigInt(width)) {
    throw new RangeError(
      `${where}: ${dtype} [${shape}] needs ${
        count * BigInt(width)
      } bytes, data has ${data.byteLength}`,
    );
  }
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return Object.freeze({
    name,
    dtype,
    shape: Object.freeze(shape.slice()),
    bytes,
    width,
    hostOrder: !raw,
  });
}

function _metadata(metadata: Readonly<Record<string, string>>): [string, string][] {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new TypeError("Cannot encode safetensors metadata: not an object");
  }
  const pairs = Object.entries(metadata);
  for (const [k, v] of pairs) {
    if (typeof v !== "string") {
      throw new TypeError(`Cannot encode safetensors metadata '${k}': value is not a string`);
    }
    if (!k.isWellFormed() || !v.isWellFormed()) {
      throw new RangeError(`Cannot encode safetensors metadata '${k}': ill-formed Unicode`);
    }
  }
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
