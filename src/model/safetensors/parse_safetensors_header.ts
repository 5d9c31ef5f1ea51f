/**
 * Parses and validates the JSON header of a safetensors file, given its bytes.
 *
 * Layout (huggingface/safetensors, "Format"): an 8-byte little-endian u64 `N`, then `N` bytes of
 * UTF-8 JSON, then the data buffer. The header is an object mapping tensor names to
 * `{"dtype", "shape", "data_offsets": [begin, end]}` (offsets relative to the buffer start), plus
 * an optional `"__metadata__"` object of string values. This module checks the JSON part; the
 * length prefix is read by `openSafetensors`.
 *
 * Strictness beyond `JSON.parse`: the text is parsed by `parseStrictJson` (no repeated key in any
 * object, no lone surrogate), and numbers are held to the plain integers the reference reader
 * takes. Three departures from the format that its reference reader (serde_json into the
 * safetensors crate's structs) reads all the same are told apart rather than taken as a broken
 * file: a text that does not start with `{` (leading whitespace), a carriage return between
 * tokens (the format's padding is spaces; serde_json skips any JSON whitespace), and a tensor
 * entry field the format does not define (the crate's `TensorInfo` ignores unknown fields). They
 * are checked after everything else, so a file broken otherwise gets that refusal, and are
 * refused as `SAFETENSORS_OFF_FORMAT` unless the caller keeps them (`offFormat: "keep"`: the
 * header's {@link SafetensorsHeader.offFormat} then names the first; the entry's other fields are
 * read as ever). Numbers are read as `JSON.parse` reads
 * them, so `2.0` is accepted as the integer 2; integers above 2^53 - 1 are refused by the entry
 * checks rather than rounded.
 *
 * The JSON is bounded by its value count as well as its length, so a header within the 100 MB
 * length limit cannot make the parse build millions of values: the parse stops at
 * {@link headerValueLimit} of `maxTensors`, which a caller that knows how many tensors the file
 * may honestly hold (a checkpoint's config does, `gemm` reads two) passes, and which is otherwise
 * {@link DEFAULT_MAX_TENSORS}. The bound is met as the values are read, so a flood of them (in a
 * field the format does not define, say) is refused before it is built. Of `__metadata__` only its presence and its
 * `format` entry are read (HF Transformers refuses or converts files by it), so it is held to {@link MAX_METADATA_ENTRIES} entries and {@link MAX_METADATA_CHARS} characters (writers
 * put a few short strings there, e.g. `{"format":"pt"}`).
 *
 * @module
 */
import { InputError, type SafetensorsCode } from "../../errors.ts";
import { quoteShort } from "../../escape_text.ts";
import { checkTiling } from "./check_tiling.ts";
import { parseStrictJson, StrictJsonError } from "../../json_strict.ts";
import {
  parseTensorEntry,
  type SafetensorsEntry,
  TENSOR_ENTRY_FIELDS,
} from "./parse_tensor_entry.ts";

/** The validated header of a safetensors file (frozen). */
export interface SafetensorsHeader {
  /** Tensors in buffer order (by begin offset, then end, then name). */
  readonly tensors: readonly SafetensorsEntry[];
  /** The `__metadata__` map; empty when the file has none. */
  readonly metadata: Readonly<Record<string, string>>;
  /**
   * Whether the header holds a `__metadata__` object (even an empty one): absent or `null`, the
   * reference reader gives none (`Option` empty), which loaders tell apart from `{}`.
   */
  readonly hasMetadata: boolean;
  /** `N`, the header length in bytes (padding included). */
  readonly headerByteLength: number;
  /** Absolute offset of the data buffer: `8 + N`. */
  readonly dataStart: number;
  /** Size of the data buffer in bytes. */
  readonly dataByteLength: number;
  /**
   * The first departure from the format that the reference reader reads all the same (a text
   * opening with whitespace, a carriage return between tokens, a tensor entry field the format
   * does not define), one line; null when there is none. Only a parse with `offFormat: "keep"`
   * returns a non-null one.
   */
  readonly offFormat: string | null;
}

/** The reserved header key for free-form string metadata. */
export const METADATA_KEY = "__metadata__";

/**
 * Most `__metadata__` entries a header may hold: bitaudit reads no metadata, and published
 * checkpoints carry one or a few (`{"format":"pt"}`, `{"format":"mlx"}`).
 */
export const MAX_METADATA_ENTRIES = 1024;

/** Most characters of `__metadata__`, its keys and values together (1 MiB of text). */
export const MAX_METADATA_CHARS = 1 << 20;

/**
 * Default of `maxTensors` (2^17 = 131,072 tensors), for a caller that knows nothing of the file:
 * the largest checkpoint of a family bitaudit models, Qwen3-235B-A22B (94 layers of 128 experts:
 * 37,039 tensors, as the checkpoint loader counts them from its config), fits in one file 3.5
 * times over, and the {@link headerValueLimit} it gives (2,098,178 values) keeps a hostile
 * header's parse to a fraction of a second and a few hundred MiB.
 */
export const DEFAULT_MAX_TENSORS = 1 << 17;

/**
 * JSON values one tensor entry is allowed in the value limit: its object, `dtype`, the `shape`
 * array, the `data_offsets` array and its two offsets take 6, and up to 10 dimensions the rest
 * (the entries of a decoder checkpoint have at most 2).
 */
export const HEADER_VALUES_PER_TENSOR = 16;

/**
 * The most JSON values the header of a file of at most `maxTensors` tensors may hold: the root
 * object, the `__metadata__` object and one value per entry of it, and
 * {@link HEADER_VALUES_PER_TENSOR} per tensor.
 *
 * @param maxTensors most tensors the file may describe (a safe non-negative integer, or Infinity)
 * @returns the value limit passed to the JSON parser
 * @example
 * ```ts
 * import { headerValueLimit } from "./parse_safetensors_header.ts";
 * if (headerValueLimit(2) !== 2 + 1024 + 32) throw new Error();
 * ```
 */
export function headerValueLimit(maxTensors: number): number {
  return 2 + MAX_METADATA_ENTRIES + HEADER_VALUES_PER_TENSOR * maxTensors;
}

const _UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Validates a header and the placement of every tensor in the data buffer.
 *
 * @param headerBytes the `N` header bytes (without the 8-byte length prefix)
 * @param options `bufferBytes`: size of the data buffer that follows the header; `maxTensors`:
 *   most tensors the file may describe (default {@link DEFAULT_MAX_TENSORS}; `Infinity` lifts the
 *   bound, for trusted bytes only), which bounds the JSON values the parse reads
 *   ({@link headerValueLimit}); `offFormat`: `"refuse"` (default)
 *   or `"keep"` a departure the reference reader reads all the same (see the module)
 * @returns the frozen header
 * @throws {RangeError} when `maxTensors` is not a non-negative integer or Infinity
 * @throws {InputError} `SAFETENSORS_HEADER_UTF8`, `SAFETENSORS_HEADER_JSON`, `SAFETENSORS_HEADER_NOT_OBJECT`, `SAFETENSORS_DUPLICATE_KEY`,
 *   `SAFETENSORS_HEADER_TOO_LARGE` (more JSON values than `maxTensors` tensors and the metadata
 *   allowance take), `SAFETENSORS_METADATA` (not an object of strings, or over
 *   {@link MAX_METADATA_ENTRIES} entries or {@link MAX_METADATA_CHARS} characters), any code of
 *   `parseTensorEntry` and `checkTiling`, then `SAFETENSORS_OFF_FORMAT` (a departure
 *   the reference reader reads, unless kept)
 * @example
 * ```ts
 * import { parseSafetensorsHeader } from "./parse_safetensors_header.ts";
 * const text = '{"b":{"dtype":"I8","shape":[2],"data_offsets":[0,2]},"__metadata__":{"k":"v"}}';
 * const h = parseSafetensorsHeader(new TextEncoder().encode(text), { bufferBytes: 2 });
 * if (h.tensors[0]?.name !== "b" || h.metadata.k !== "v" || h.dataStart !== 8 + text.length) {
 *   throw new Error();
 * }
 * ```
 */
export function parseSafetensorsHeader(
  headerBytes: Uint8Array,
  options: {
    readonly bufferBytes: number;
    readonly maxTensors?: number;
    readonly offFormat?: "refuse" | "keep";
  },
): SafetensorsHeader {
  const maxTensors = options.maxTensors ?? DEFAULT_MAX_TENSORS;
  if (!(Number.isSafeInteger(maxTensors) || maxTensors === Infinity) || maxTensors < 0) {
    throw new RangeError(
      `Cannot read safetensors header: maxTensors ${maxTensors} is not a non-negative integer`,
    );
  }
  const { root, offFormat: textOff } = _parseJson(headerBytes, maxTensors);
  let offFormat = textOff;
  const dataStart = 8 + headerBytes.length;
  let metadata: Readonly<Record<string, string>> = Object.freeze({});
  let hasMetadata = false;
  const entries: SafetensorsEntry[] = [];
  for (const [name, value] of Object.entries(root)) {
    if (name !== METADATA_KEY) {
      offFormat ??= _extraField(name, value);
      entries.push(parseTensorEntry(name, value, dataStart));
    } else if (value !== null) {
      // `null` is the reference reader's `None` (its field is an Option): no metadata.
      metadata = _metadata(value);
      hasMetadata = true;
    }
  }
  const tensors = checkTiling(entries, options.bufferBytes);
  _integerForms(headerBytes, maxTensors);
  if (offFormat !== null && options.offFormat !== "keep") {
    _fail(
      "SAFETENSORS_OFF_FORMAT",
      `${offFormat}: the format does not allow it (its reference reader reads it all the same)`,
    );
  }
  return Object.freeze({
    tensors,
    metadata,
    hasMetadata,
    headerByteLength: headerBytes.length,
    dataStart,
    dataByteLength: options.bufferBytes,
    offFormat,
  });
}

/**
 * The first field of a tensor entry the format does not define (the reference reader's
 * `TensorInfo` and `parseTensorEntry` ignore it), as a departure; anything but an object is left
 * to `parseTensorEntry`.
 */
function _extraField(name: string, value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const extra = Object.keys(value).find((k) => !TENSOR_ENTRY_FIELDS.includes(k));
  // Both names are the file's text: quoted short and printable, as a reason may carry them.
  return extra === undefined
    ? null
    : `tensor ${quoteShort(name, 80)} has a field ${quoteShort(extra, 40)} the format does ` +
      "not define";
}

/**
 * Every number of a header that passed the value checks, written as a plain integer: the
 * reference reader takes shapes and offsets as unsigned integers and refuses `256.0`, `2.56e2`
 * and `-0`, so a file holding one cannot be what a stack loaded. (The first parse reads such
 * forms as their values, so that a fractional or negative value gets its field's code.)
 */
function _integerForms(headerBytes: Uint8Array, maxTensors: number): void {
  try {
    parseStrictJson(_UTF8.decode(headerBytes), {
      maxValues: headerValueLimit(maxTensors),
      carriageReturns: true,
      // Plain integers where the reader takes integers; a field it ignores may hold any number.
      fractions: (path) =>
        !(path.length === 3 && path[0] !== METADATA_KEY &&
          (path[1] === "shape" || path[1] === "data_offsets")),
    });
  } catch (cause) {
    if (!(cause instanceof StrictJsonError)) throw cause;
    const code = /\.shape\[/.test(cause.path)
      ? "SAFETENSORS_SHAPE"
      : /\.data_offsets\[/.test(cause.path)
      ? "SAFETENSORS_OFFSETS"
      : "SAFETENSORS_HEADER_JSON";
    _fail(code, `${cause.reason} at '${cause.path}': the reference reader takes plain integers`);
  }
}

function _parseJson(
  headerBytes: Uint8Array,
  maxTensors: number,
): { root: Record<string, unknown>; offFormat: string | null } {
  let text: string;
  try {
    text = _UTF8.decode(headerBytes);
  } catch (cause) {
    _fail("SAFETENSORS_HEADER_UTF8", "header is not valid UTF-8", cause);
  }
  let root: unknown;
  const maxValues = headerValueLimit(maxTensors);
  try {
    root = parseStrictJson(text, { fractions: true, maxValues, carriageReturns: true });
  } catch (cause) {
    if (!(cause instanceof StrictJsonError)) throw cause;
    const why = `${cause.reason} at '${cause.path}'`;
    if (cause.reason.startsWith("duplicate key")) _fail("SAFETENSORS_DUPLICATE_KEY", why);
    if (cause.reason === `more than ${maxValues} values`) {
      _fail(
        "SAFETENSORS_HEADER_TOO_LARGE",
        `header holds more than ${maxValues} JSON values (stopped at character ${cause.offset}): ` +
          `${maxTensors} tensors of at most ${HEADER_VALUES_PER_TENSOR} values each and a ` +
          `'${METADATA_KEY}' of at most ${MAX_METADATA_ENTRIES} entries take no more (bitaudit ` +
          "reads no metadata)",
      );
    }
    _fail("SAFETENSORS_HEADER_JSON", `header is not strict JSON (${why})`, cause);
  }
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    _fail("SAFETENSORS_HEADER_NOT_OBJECT", `header is JSON ${_kind(root)}, not an object`);
  }
  // Outside strings (which hold no raw control character) a carriage return is whitespace.
  const offFormat = !text.startsWith("{")
    ? `header starts with ${JSON.stringify(text.slice(0, 1))}, not '{'`
    : text.includes("\r")
    ? "header holds a carriage return between its tokens"
    : null;
  return { root: root as Record<string, unknown>, offFormat };
}

function _metadata(value: unknown): Readonly<Record<string, string>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    _fail("SAFETENSORS_METADATA", `'${METADATA_KEY}' is not an object`);
  }
  const count = Object.keys(value).length;
  if (count > MAX_METADATA_ENTRIES) {
    _fail(
      "SAFETENSORS_METADATA",
      `'${METADATA_KEY}' has ${count} entries, above the ${MAX_METADATA_ENTRIES} ` +
        "accepted (bitaudit reads no metadata; writers put a few, such as 'format')",
    );
  }
  let chars = 0;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "string") {
      _fail("SAFETENSORS_METADATA", `'${METADATA_KEY}.${key}' is ${typeof v}, expected a string`);
    }
    chars += key.length + v.length;
  }
  if (chars > MAX_METADATA_CHARS) {
    _fail(
      "SAFETENSORS_METADATA",
      `'${METADATA_KEY}' holds ${chars} characters, above the ${MAX_METADATA_CHARS} accepted ` +
        "(bitaudit reads no metadata; writers put a few short strings there)",
    );
  }
  return Object.freeze(Object.fromEntries(Object.entries(value))) as Record<string, string>;
}

function _kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function _fail(code: SafetensorsCode, why: string, cause?: unknown): never {
  throw new InputError(code, `Cannot read safetensors header: ${why}`, { cause });
}
