/**
 * Turns the raw little-endian bytes of a tensor into a typed array of stored values.
 *
 * Floating-point tensors come back as unsigned bit patterns, never as host floats: bitaudit's
 * numerics work on patterns (`Uint16Array` for BF16/F16, `Uint32Array` for F32, `BigUint64Array`
 * for F64, `Uint8Array` for the two FP8 formats), so that no value is ever rounded, flushed or has
 * its NaN payload changed by the host. Integer tensors come back in their own signed or unsigned
 * kind; BOOL as one byte per element.
 *
 * @module
 */
import { HOST_IS_LITTLE_ENDIAN, swapBytes } from "./little_endian.ts";
import { SAFETENSORS_DTYPE_BYTES, type SafetensorsDtype } from "./safetensors_dtype.ts";

/** The typed array each dtype is viewed as. */
export interface SafetensorsViewTypes {
  /** One byte per element, 0 or 1 in a valid file (not checked). */
  BOOL: Uint8Array;
  /** Unsigned bytes. */
  U8: Uint8Array;
  /** Signed bytes. */
  I8: Int8Array;
  /** FP8 E4M3 (E4M3FN) bit patterns. */
  F8_E4M3: Uint8Array;
  /** FP8 E5M2 bit patterns. */
  F8_E5M2: Uint8Array;
  /** Unsigned 16-bit integers. */
  U16: Uint16Array;
  /** Signed 16-bit integers. */
  I16: Int16Array;
  /** IEEE binary16 bit patterns. */
  F16: Uint16Array;
  /** bfloat16 bit patterns. */
  BF16: Uint16Array;
  /** Unsigned 32-bit integers. */
  U32: Uint32Array;
  /** Signed 32-bit integers. */
  I32: Int32Array;
  /** IEEE binary32 bit patterns. */
  F32: Uint32Array;
  /** Unsigned 64-bit integers. */
  U64: BigUint64Array;
  /** Signed 64-bit integers. */
  I64: BigInt64Array;
  /** IEEE binary64 bit patterns. */
  F64: BigUint64Array;
}

/** Any typed array {@link viewTensorBytes} may return. */
export type SafetensorsView = SafetensorsViewTypes[SafetensorsDtype];

type _Ctor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => SafetensorsView;

const _CTORS: Readonly<Record<SafetensorsDtype, _Ctor>> = Object.freeze({
  BOOL: Uint8Array,
  U8: Uint8Array,
  I8: Int8Array,
  F8_E4M3: Uint8Array,
  F8_E5M2: Uint8Array,
  U16: Uint16Array,
  I16: Int16Array,
  F16: Uint16Array,
  BF16: Uint16Array,
  U32: Uint32Array,
  I32: Int32Array,
  F32: Uint32Array,
  U64: BigUint64Array,
  I64: BigInt64Array,
  F64: BigUint64Array,
});

/**
 * Views tensor bytes as stored values. Shares memory with `bytes` when the host is
 * little-endian and `bytes` is aligned to the element size; copies otherwise.
 *
 * @param dtype the tensor's dtype
 * @param bytes its raw little-endian data
 * @returns a typed array of `bytes.length / size` elements, of the kind listed in
 *   {@link SafetensorsViewTypes}
 * @throws {RangeError} when `bytes.length` is not a multiple of the element size
 * @example
 * ```ts
 * import { viewTensorBytes } from "./view_tensor_bytes.ts";
 * const bits = viewTensorBytes("F32", new Uint8Array([0x00, 0x00, 0x80, 0x3f])); // 1.0f
 * if (!(bits instanceof Uint32Array) || bits[0] !== 0x3f800000) throw new Error();
 * ```
 */
export function viewTensorBytes<D extends SafetensorsDtype>(
  dtype: D,
  bytes: Uint8Array,
): SafetensorsViewTypes[D] {
  const width = SAFETENSORS_DTYPE_BYTES[dtype];
  if (bytes.length % width !== 0) {
    throw new RangeError(
      `Cannot view ${dtype} data: ${bytes.length} bytes is not a multiple of ${width}`,
    );
  }
  let src = bytes;
  if (!HOST_IS_LITTLE_ENDIAN) src = swapBytes(bytes, width);
  else if (bytes.byteOffset % width !== 0) src = bytes.slice();
  const Ctor = _CTORS[dtype];
  return new Ctor(src.buffer, src.byteOffset, src.length / width) as SafetensorsViewTypes[D];
}
