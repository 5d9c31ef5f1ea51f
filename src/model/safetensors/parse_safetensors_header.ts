/**
 * Parses and validates the JSON header of a safetensors file, given its bytes.
 *
 * Layout (huggingface/safetensors, "Format"): an 8-byte little-endian u64 `N`, then `N` bytes of
 * UTF-8 JSON, then the data buffer. The header is an object mapping tensor names to
 * `{"dtype", "shape", "data_offsets": [begin, end]}` (offsets relative to the buffer start), plus
 * an optional `"__metadata__"` object of string values. This module checks the JSON part; the
 * length prefix is read by `openSafetensors`.
 *
 * Strictness beyond `JSON.parse`: the text must start with `{` (as the reference implementation
 * requires; trailing spaces, which writers use as padding, are allowed), is parsed by
 * `parseStrictJson` (no repeated key in any object, no lone surrogate, no carriage return), and
 * entries may hold no fields other than the three above. Numbers are read as `JSON.parse` reads
 * them, so `2.0` is accepted as the integer 2; integers above 2^53 - 1 are refused by the entry
 * checks rather than rounded.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import { checkTiling } from "./check_tiling.ts";
import { parseStrictJson, StrictJsonError } from "../../json_strict.ts";
import { parseTensorEntry, type SafetensorsEntry } from "./parse_tensor_entry.ts";

/** The validated header of a safetensors file (frozen). */
export interface SafetensorsHeader {
  /** Tensors in buffer order (by begin offset, then end, then name). */
  readonly tensors: readonly SafetensorsEntry[];
  /** The `__metadata__` map; empty when the file has none. */
  readonly metadata: Readonly<Record<string, string>>;
  /** `N`, the header length in bytes (padding included). */
  readonly headerByteLength: number;
  /** Absolute offset of the data buffer: `8 + N`. */
  readonly dataStart: number;
  /** Size of the data buffer in bytes. */
  readonly dataByteLength: number;
}

/** The reserved header key for free-form string metadata. */
export const METADATA_KEY = "__metadata__";

const _UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Validates a header and the placement of every tensor in the data buffer.
 *
 * @param headerBytes the `N` header bytes (without the 8-byte length prefix)
 * @param options `bufferBytes`: size of the data buffer that follows the header
 * @returns the frozen header
 * @throws {InputError} `SAFETENSORS_HEADER_UTF8`, `SAFETENSORS_HEADER_START`,
 *   `SAFETENSORS_HEADER_JSON`, `SAFETENSORS_HEADER_NOT_OBJECT`, `SAFETENSORS_DUPLICATE_KEY`,
 *   `SAFETENSORS_METADATA` (not an object of strings), any code of `parseTensorEntry` and
 *   `checkTiling`
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
  options: { readonly bufferBytes: number },
): SafetensorsHeader {
  const root = _parseJson(headerBytes);
  const dataStart = 8 + headerBytes.length;
  let metadata: Readonly<Record<string, string>> = Object.freeze({});
  const entries: SafetensorsEntry[] = [];
  for (const [name, value] of Object.entries(root)) {
    if (name === METADATA_KEY) metadata = _metadata(value);
    else entries.push(parseTensorEntry(name, value, dataStart));
  }
  return Object.freeze({
    tensors: checkTiling(entries, options.bufferBytes),
    metadata,
    headerByteLength: headerBytes.length,
    dataStart,
    dataByteLength: options.bufferBytes,
  });
}

function _parseJson(headerBytes: Uint8Array): Record<string, unknown> {
  let text: string;
  try {
    text = _UTF8.decode(headerBytes);
  } catch (cause) {
    _fail("SAFETENSORS_HEADER_UTF8", "header is not valid UTF-8", cause);
  }
  let root: unknown;
  try {
    root = parseStrictJson(text, { fractions: true });
  } catch (cause) {
    if (!(cause instanceof StrictJsonError)) throw cause;
    const why = `${cause.reason} at '${cause.path}'`;
    if (cause.reason.startsWith("duplicate key")) _fail("SAFETENSORS_DUPLICATE_KEY", why);
    _fail("SAFETENSORS_HEADER_JSON", `header is not strict JSON (${why})`, cause);
  }
  if (typeof root !== "object" || root === null || Array.isArray(root)) {
    _fail("SAFETENSORS_HEADER_NOT_OBJECT", `header is JSON ${_kind(root)}, not an object`);
  }
  if (!text.startsWith("{")) {
    _fail("SAFETENSORS_HEADER_START", `header starts with ${JSON.stringify(text.slice(0, 1))}`);
  }
  return root as Record<string, unknown>;
}

function _metadata(value: unknown): Readonly<Record<string, string>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    _fail("SAFETENSORS_METADATA", `'${METADATA_KEY}' is not an object`);
  }
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== "string") {
      _fail("SAFETENSORS_METADATA", `'${METADATA_KEY}.${key}' is ${typeof v}, expected a string`);
    }
  }
  return Object.freeze(Object.fromEntries(Object.entries(value))) as Record<string, string>;
}

function _kind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
}

function _fail(code: string, why: string, cause?: unknown): never {
  throw new InputError(code, `Cannot read safetensors header: ${why}`, { cause });
}
