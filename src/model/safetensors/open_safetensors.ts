/**
 * Opens a safetensors file through a {@link ByteSource}: reads and validates the header at once,
 * and each tensor's bytes only when asked for.
 *
 * Opening costs two reads (the 8-byte length prefix, then the header); a model of many GiB is
 * never read whole. The length prefix is limited (100 MB by default, the limit of the reference
 * implementation) before any allocation, so a hostile prefix cannot make the reader allocate
 * gigabytes for a header.
 *
 * @module
 */
import { InputError, type SafetensorsCode } from "../../errors.ts";
import { type ByteSource, readExactly } from "./byte_source.ts";
import {
  DEFAULT_MAX_TENSORS,
  parseSafetensorsHeader,
  type SafetensorsHeader,
} from "./parse_safetensors_header.ts";
import type { SafetensorsEntry } from "./parse_tensor_entry.ts";
import { type SafetensorsView, viewTensorBytes } from "./view_tensor_bytes.ts";

/** Default largest accepted header, in bytes (the reference implementation's `MAX_HEADER_SIZE`). */
export const DEFAULT_MAX_HEADER_BYTES = 100_000_000;

/**
 * Header bytes allowed per tensor when `maxTensors` bounds a header: a checkpoint's entry is about
 * 130 bytes (`"model.layers.93.mlp.experts.127.down_proj.weight":{"dtype":"BF16",...}`).
 */
export const HEADER_BYTES_PER_TENSOR = 1024;

/**
 * Header bytes allowed besides the tensors' entries when `maxTensors` bounds a header: the
 * metadata's 1 MiB of text (up to 6 bytes a character, escaped) and the writer's padding.
 */
export const HEADER_BYTES_BESIDES_TENSORS = 8 << 20;

/** Options of {@link openSafetensors}. */
export interface OpenSafetensorsOptions {
  /** Largest accepted header length `N` in bytes; default {@link DEFAULT_MAX_HEADER_BYTES}. */
  readonly maxHeaderBytes?: number;
  /**
   * Most tensors the file may describe: bounds the header's length
   * ({@link HEADER_BYTES_BESIDES_TENSORS} and {@link HEADER_BYTES_PER_TENSOR} per tensor, below
   * `maxHeaderBytes`) and the JSON values its parse reads (`headerValueLimit`), so a caller that
   * knows what the file may honestly hold (a checkpoint's config, `gemm`'s two operands) keeps a
   * hostile header cheap. Default {@link DEFAULT_MAX_TENSORS} (131,072: the largest checkpoint of a
   * family bitaudit models, about 37,000 tensors, fits in one file with room to spare);
   * `Infinity` lifts the bound, for trusted bytes only.
   */
  readonly maxTensors?: number;
  /**
   * `"refuse"` (default) or `"keep"` a header's departure from the format that its reference
   * reader reads all the same (`parseSafetensorsHeader`; kept, `header.offFormat` names it).
   */
  readonly offFormat?: "refuse" | "keep";
}

/** An opened safetensors file (frozen). Tensor data is read on demand. */
export interface SafetensorsFile {
  /** The validated header, tensors in buffer order. */
  readonly header: SafetensorsHeader;
  /** Same as `header.metadata`. */
  readonly metadata: Readonly<Record<string, string>>;
  /** Tells whether the file holds a tensor of that name. */
  has(name: string): boolean;
  /** The entry of a tensor; throws `InputError` `SAFETENSORS_MISSING_TENSOR` if absent. */
  entry(name: string): SafetensorsEntry;
  /** Reads a tensor's raw little-endian bytes (may share memory with the source: do not write). */
  tensor(name: string): Promise<Uint8Array>;
  /** Reads a tensor as a typed array of stored values (bit patterns for float dtypes). */
  tensorView(name: string): Promise<SafetensorsView>;
}

/**
 * Reads and validates the header of a safetensors file.
 *
 * @param source random-access bytes of the whole file
 * @param options see {@link OpenSafetensorsOptions}
 * @returns the opened file
 * @throws {TypeError} when `source` is not a ByteSource
 * @throws {RangeError} when `maxHeaderBytes` is not a safe non-negative integer, or `maxTensors`
 *   not a non-negative integer or Infinity
 * @throws {InputError} `SAFETENSORS_TOO_SHORT` (under 8 bytes), `SAFETENSORS_HEADER_TOO_LARGE`
 *   (length prefix above the limit), `SAFETENSORS_HEADER_TRUNCATED` (prefix longer than the rest
 *   of the file), `BYTE_SOURCE_SHORT_READ`, and every code of `parseSafetensorsHeader`
 * @example
 * ```ts
 * import { bytesByteSource } from "./bytes_byte_source.ts";
 * import { encodeSafetensors } from "./encode_safetensors.ts";
 * import { openSafetensors } from "./open_safetensors.ts";
 * const file = encodeSafetensors([
 *   { name: "w", dtype: "BF16", shape: [2], data: new Uint16Array([0x3f80, 0xc000]) },
 * ]);
 * const st = await openSafetensors(bytesByteSource(file));
 * const w = await st.tensorView("w");
 * if (!(w instanceof Uint16Array) || w[1] !== 0xc000) throw new Error();
 * ```
 */
export async function openSafetensors(
  source: ByteSource,
  options: OpenSafetensorsOptions = {},
): Promise<SafetensorsFile> {
  const { maxHeaderBytes, maxTensors } = _checkArgs(source, options);
  const forTensors = HEADER_BYTES_BESIDES_TENSORS + HEADER_BYTES_PER_TENSOR * maxTensors;
  if (source.size < 8) {
    _fail("SAFETENSORS_TOO_SHORT", `the file has ${source.size} bytes, fewer than 8`);
  }
  const prefix = await readExactly(source, { offset: 0, length: 8, what: "safetensors prefix" });
  const n = new DataView(prefix.buffer, prefix.byteOffset, 8).getBigUint64(0, true);
  if (n > BigInt(maxHeaderBytes)) {
    _fail("SAFETENSORS_HEADER_TOO_LARGE", `header length ${n} exceeds the ${maxHeaderBytes} limit`);
  }
  if (Number(n) > forTensors) {
    _fail(
      "SAFETENSORS_HEADER_TOO_LARGE",
      `header length ${n} exceeds the ${forTensors} bytes a file of at most ${maxTensors} ` +
        `tensors may take (${HEADER_BYTES_PER_TENSOR} a tensor and ${HEADER_BYTES_BESIDES_TENSORS} ` +
        "for metadata and padding; bitaudit reads no metadata)",
    );
  }
  if (n > BigInt(source.size - 8)) {
    _fail(
      "SAFETENSORS_HEADER_TRUNCATED",
      `header length ${n} exceeds the ${source.size - 8} bytes after the prefix`,
    );
  }
  const headerBytes = await readExactly(source, {
    offset: 8,
    length: Number(n),
    what: "safetensors header",
  });
  const header = parseSafetensorsHeader(headerBytes, {
    bufferBytes: source.size - 8 - Number(n),
    maxTensors,
    ...(options.offFormat === undefined ? {} : { offFormat: options.offFormat }),
  });
  return _file(source, header);
}

function _file(source: ByteSource, header: SafetensorsHeader): SafetensorsFile {
  const byName = new Map(header.tensors.map((e) => [e.name, e]));
  const entry = (name: string): SafetensorsEntry => {
    const e = byName.get(name);
    if (e === undefined) {
      _fail("SAFETENSORS_MISSING_TENSOR", `no tensor named ${JSON.stringify(name)}`);
    }
    return e;
  };
  const tensor = async (name: string): Promise<Uint8Array> => {
    const e = entry(name);
    if (e.byteLength === 0) return new Uint8Array(0);
    return await readExactly(source, {
      offset: e.byteOffset,
      length: e.byteLength,
      what: `safetensors tensor ${JSON.stringify(name)}`,
    });
  };
  return Object.freeze({
    header,
    metadata: header.metadata,
    has: (name: string) => byName.has(name),
    entry,
    tensor,
    tensorView: async (name: string) => viewTensorBytes(entry(name).dtype, await tensor(name)),
  });
}

/** The source checked, and the options' limits with their defaults. */
function _checkArgs(
  source: ByteSource,
  options: OpenSafetensorsOptions,
): { maxHeaderBytes: number; maxTensors: number } {
  if (
    typeof source !== "object" || source === null || typeof source.read !== "function" ||
    !Number.isSafeInteger(source.size) || source.size < 0
  ) {
    throw new TypeError(
      "Cannot open safetensors: source is not a ByteSource (size and read(offset, length))",
    );
  }
  const max = options.maxHeaderBytes ?? DEFAULT_MAX_HEADER_BYTES;
  if (!Number.isSafeInteger(max) || max < 0) {
    throw new RangeError(
      `Cannot open safetensors: maxHeaderBytes ${max} is not a safe non-negative integer`,
    );
  }
  const t = options.maxTensors ?? DEFAULT_MAX_TENSORS;
  if (!(Number.isSafeInteger(t) || t === Infinity) || t < 0) {
    throw new RangeError(`Cannot open safetensors: maxTensors ${t} is not a non-negative integer`);
  }
  return { maxHeaderBytes: max, maxTensors: t };
}

function _fail(code: SafetensorsCode, why: string): never {
  throw new InputError(code, `Cannot read safetensors: ${why}`);
}
