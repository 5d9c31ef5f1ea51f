/**
 * Checks the inputs of the safetensors writer and lays the file out: header text, order of the
 * tensors in the buffer, and their offsets.
 *
 * Layout choices, following the reference implementation (huggingface/safetensors,
 * `serialize`): tensors are placed by decreasing element size, then by name (UTF-16 code unit
 * order), so that every tensor starts at a multiple of its element size within the buffer; the
 * header is padded with spaces to a multiple of 8 bytes, so the buffer itself starts 8-aligned
 * and every element is naturally aligned in the file. Header keys appear in that same order,
 * after `__metadata__` (written only when metadata is given, its keys sorted). The output is
 * therefore a pure function of the inputs, independent of their order.
 *
 * @module
 */
import { HOST_IS_LITTLE_ENDIAN } from "./little_endian.ts";
import { METADATA_KEY } from "./parse_safetensors_header.ts";
import { checkWriterInput, type SafetensorsTensorInput } from "./check_writer_input.ts";

/** Options of the safetensors writer. */
export interface EncodeSafetensorsOptions {
  /** String metadata stored under `__metadata__`; omitted from the header when absent. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** One tensor's data in the laid-out file. */
export interface SafetensorsPart {
  /** The data as given (host byte order for typed arrays other than `Uint8Array`). */
  readonly bytes: Uint8Array;
  /** Element size to byte-swap when written, or 1 when the bytes are already little-endian. */
  readonly swapWidth: 1 | 2 | 4 | 8;
}

/** A laid-out safetensors file (frozen): everything needed to write it out in order. */
export interface SafetensorsLayout {
  /** The 8-byte length prefix followed by the padded header. */
  readonly head: Uint8Array;
  /** Tensor data in buffer order. */
  readonly parts: readonly SafetensorsPart[];
  /** Total file size in bytes. */
  readonly byteLength: number;
}

/**
 * Validates writer inputs and computes the file layout.
 *
 * @param tensors tensors to store, in any order
 * @param options see {@link EncodeSafetensorsOptions}
 * @returns the layout
 * @throws {TypeError} for inputs of the wrong type (see `checkWriterInput`)
 * @throws {RangeError} for out-of-range inputs, or a total size above 2^53 - 1
 * @example
 * ```ts
 * import { planSafetensorsLayout } from "./plan_safetensors_layout.ts";
 * const plan = planSafetensorsLayout([{ name: "x", dtype: "U8", shape: [], data: new Uint8Array([7]) }]);
 * if (plan.head.length % 8 !== 0 || plan.byteLength !== plan.head.length + 1) throw new Error();
 * ```
 */
export function planSafetensorsLayout(
  tensors: readonly SafetensorsTensorInput[],
  options: EncodeSafetensorsOptions = {},
): SafetensorsLayout {
  const checked = checkWriterInput(tensors, options.metadata);
  const fields: string[] = [];
  if (checked.metadata !== undefined) {
    const pairs = checked.metadata.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    fields.push(`${JSON.stringify(METADATA_KEY)}:{${pairs.join(",")}}`);
  }
  const parts: SafetensorsPart[] = [];
  let offset = 0;
  for (const t of checked.tensors) {
    const end = offset + t.bytes.length;
    fields.push(
      `${JSON.stringify(t.name)}:{"dtype":${JSON.stringify(t.dtype)},` +
        `"shape":[${t.shape.join(",")}],"data_offsets":[${offset},${end}]}`,
    );
    const swapWidth = HOST_IS_LITTLE_ENDIAN || !t.hostOrder ? 1 : t.width;
    parts.push(Object.freeze({ bytes: t.bytes, swapWidth }));
    offset = end;
  }
  const text = new TextEncoder().encode(`{${fields.join(",")}}`);
  const n = Math.ceil(text.length / 8) * 8;
  const head = new Uint8Array(8 + n).fill(0x20, 8 + text.length); // pad with spaces
  new DataView(head.buffer).setBigUint64(0, BigInt(n), true);
  head.set(text, 8);
  const byteLength = head.length + offset;
  if (!Number.isSafeInteger(byteLength)) {
    throw new RangeError(`Cannot encode safetensors: total size ${byteLength} exceeds 2^53 - 1`);
  }
  return Object.freeze({ head, parts: Object.freeze(parts), byteLength });
}
