/**
 * `decodeSfuTables`: the only way from table-file bytes to {@link SfuTables}.
 *
 * The asset loader checks the file's digest before calling this; the decoder still refuses any
 * byte string that is not exactly a version-1 table file, so a wrong file never reaches a model.
 *
 * @module
 */
import { AssetError, type SfuTableCode } from "../../errors.ts";
import {
  SFU_TABLE_DIR_ENTRY_BYTES,
  SFU_TABLE_FORMAT_VERSION,
  SFU_TABLE_HEADER_BYTES,
  SFU_TABLE_MAGIC,
  SFU_TABLE_NAME_BYTES,
  SFU_TABLE_ORDER,
  SFU_TABLE_ROWS,
  sfuTableByteLength,
  type SfuTableName,
  type SfuTables,
} from "./sfu_tables.ts";

/**
 * Decodes a version-1 SFU table file into typed arrays (copies; the input is not retained).
 *
 * @param bytes the whole file
 * @returns frozen object of five `Int32Array`s (treat them as read-only)
 * @throws {TypeError} when `bytes` is not a `Uint8Array`
 * @throws {AssetError} `SFU_TABLE_TRUNCATED` (shorter than the header), `SFU_TABLE_MAGIC`,
 *   `SFU_TABLE_VERSION`, `SFU_TABLE_LAYOUT` (table count, reserved field, names or row counts
 *   differ from the fixed layout) or `SFU_TABLE_LENGTH` (total length wrong)
 * @example
 * ```ts
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * import { AssetError } from "../../errors.ts";
 * try {
 *   decodeSfuTables(new Uint8Array(16));
 *   throw new Error("accepted");
 * } catch (e) {
 *   if (!(e instanceof AssetError) || e.code !== "SFU_TABLE_MAGIC") throw e;
 * }
 * ```
 */
export function decodeSfuTables(bytes: Uint8Array): SfuTables {
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`Cannot decode SFU tables: expected a Uint8Array, got ${typeof bytes}`);
  }
  if (bytes.length < SFU_TABLE_HEADER_BYTES) {
    _fail("SFU_TABLE_TRUNCATED", `${bytes.length} bytes is shorter than the 16-byte header`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (SFU_TABLE_MAGIC.some((b, i) => bytes[i] !== b)) {
    _fail("SFU_TABLE_MAGIC", "magic is not 'BSFU'");
  }
  const version = view.getUint32(4, true);
  if (version !== SFU_TABLE_FORMAT_VERSION) {
    _fail("SFU_TABLE_VERSION", `format version ${version}, expected ${SFU_TABLE_FORMAT_VERSION}`);
  }
  const count = view.getUint32(8, true);
  if (count !== SFU_TABLE_ORDER.length || view.getUint32(12, true) !== 0) {
    _fail("SFU_TABLE_LAYOUT", `table count ${count} or reserved field differs from the layout`);
  }
  if (bytes.length !== sfuTableByteLength()) {
    _fail("SFU_TABLE_LENGTH", `${bytes.length} bytes, expected ${sfuTableByteLength()}`);
  }
  const out = {} as Record<SfuTableName, Int32Array>;
  let dir = SFU_TABLE_HEADER_BYTES;
  let data = dir + SFU_TABLE_ORDER.length * SFU_TABLE_DIR_ENTRY_BYTES;
  for (const name of SFU_TABLE_ORDER) {
    const rows = SFU_TABLE_ROWS[name];
    const found = _readName(bytes, dir);
    const foundRows = view.getUint32(dir + SFU_TABLE_NAME_BYTES, true);
    if (found !== name || foundRows !== rows) {
      _fail("SFU_TABLE_LAYOUT", `entry '${found}' × ${foundRows}, expected '${name}' × ${rows}`);
    }
    const values = new Int32Array(rows * 3);
    for (let i = 0; i < values.length; i++, data += 4) values[i] = view.getInt32(data, true);
    out[name] = values;
    dir += SFU_TABLE_DIR_ENTRY_BYTES;
  }
  return Object.freeze(out);
}

function _readName(bytes: Uint8Array, at: number): string {
  let s = "";
  for (let i = 0; i < SFU_TABLE_NAME_BYTES; i++) {
    const c = bytes[at + i] ?? 0;
    if (c === 0) {
      // Padding must be all NUL, so a name has exactly one encoding.
      for (let j = i; j < SFU_TABLE_NAME_BYTES; j++) if (bytes[at + j] !== 0) return `${s}?`;
      break;
    }
    s += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : "?";
  }
  return s;
}

function _fail(code: SfuTableCode, why: string): never {
  throw new AssetError(code, `Cannot decode SFU tables: ${why}`);
}
