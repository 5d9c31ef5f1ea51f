/**
 * The element types a safetensors file may declare, with their sizes in bytes.
 *
 * The names are the strings written in the `dtype` field of the header, as listed by the
 * reference implementation (huggingface/safetensors, `Dtype`). Every value is stored
 * little-endian in C (row-major) order; the 8-bit float formats follow the OCP 8-bit Floating
 * Point Specification v1.0 (`F8_E4M3` is the finite-only "E4M3FN" variant), and `BOOL` is one
 * byte per element.
 *
 * @module
 */

/** A dtype name as written in a safetensors header. */
export type SafetensorsDtype =
  | "BOOL"
  | "U8"
  | "I8"
  | "F8_E4M3"
  | "F8_E5M2"
  | "U16"
  | "I16"
  | "F16"
  | "BF16"
  | "U32"
  | "I32"
  | "F32"
  | "U64"
  | "I64"
  | "F64";

/** Bytes per element of every dtype, frozen (also the list of known dtypes). */
export const SAFETENSORS_DTYPE_BYTES: Readonly<Record<SafetensorsDtype, 1 | 2 | 4 | 8>> = Object
  .freeze({
    BOOL: 1,
    U8: 1,
    I8: 1,
    F8_E4M3: 1,
    F8_E5M2: 1,
    U16: 2,
    I16: 2,
    F16: 2,
    BF16: 2,
    U32: 4,
    I32: 4,
    F32: 4,
    U64: 8,
    I64: 8,
    F64: 8,
  });

/** Every known dtype name, in ascending element size. */
export const SAFETENSORS_DTYPES: readonly SafetensorsDtype[] = Object.freeze(
  Object.keys(SAFETENSORS_DTYPE_BYTES) as SafetensorsDtype[],
);

/**
 * Tells whether a value is a known safetensors dtype name (case-sensitive, as the format is).
 *
 * @param value anything, typically a parsed header field
 * @returns true for one of {@link SAFETENSORS_DTYPES}
 * @example
 * ```ts
 * import { isSafetensorsDtype } from "./safetensors_dtype.ts";
 * if (!isSafetensorsDtype("BF16") || isSafetensorsDtype("bf16")) throw new Error();
 * ```
 */
export function isSafetensorsDtype(value: unknown): value is SafetensorsDtype {
  return typeof value === "string" && Object.hasOwn(SAFETENSORS_DTYPE_BYTES, value);
}

/**
 * Gives the size of one element of a dtype.
 *
 * @param dtype a dtype name
 * @returns bytes per element: 1, 2, 4 or 8
 * @throws {RangeError} when the name is not a known dtype
 * @example
 * ```ts
 * import { dtypeByteSize } from "./safetensors_dtype.ts";
 * if (dtypeByteSize("BF16") !== 2 || dtypeByteSize("F8_E4M3") !== 1) throw new Error();
 * ```
 */
export function dtypeByteSize(dtype: string): 1 | 2 | 4 | 8 {
  if (!isSafetensorsDtype(dtype)) {
    throw new RangeError(
      `Cannot size dtype '${dtype}': expected one of ${SAFETENSORS_DTYPES.join(", ")}`,
    );
  }
  return SAFETENSORS_DTYPE_BYTES[dtype];
}
