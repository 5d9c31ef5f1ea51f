/**
 * `encodeSfuTables`: writes the version-1 binary layout described in `sfu_tables.ts`.
 *
 * @module
 */
import {
  SFU_TABLE_DIR_ENTRY_BYTES,
  SFU_TABLE_FORMAT_VERSION,
  SFU_TABLE_HEADER_BYTES,
  SFU_TABLE_MAGIC,
  SFU_TABLE_NAME_BYTES,
  SFU_TABLE_ORDER,
  SFU_TABLE_ROWS,
  sfuTableByteLength,
  type SfuTables,
} from "./sfu_tables.ts";

/**
 * Serialises the five ROM tables into the version-1 binary layout (deterministic: the same tables
 * always give the same bytes).
 *
 * @param tables the tables; each must hold exactly `3 × rows` int32 values
 * @returns the file bytes (5,452 bytes)
 * @throws {RangeError} when a table has the wrong length
 * @example
 * ```ts
 * import { encodeSfuTables } from "./encode_sfu_tables.ts";
 * import { decodeSfuTables } from "./decode_sfu_tables.ts";
 * const t = {
 *   rcp: new Int32Array(384), rsqrt: new Int32Array(384), ex2: new Int32Array(192),
 *   lg2: new Int32Array(192), sin: new Int32Array(192),
 * };
 * t.ex2[0] = -5;
 * const bytes = encodeSfuTables(t);
 * if (bytes.length !== 5452 || decodeSfuTables(bytes).ex2[0] !== -5) throw new Error();
 * ```
 */
export function encodeSfuTables(tables: SfuTables): Uint8Array {
  const bytes = new Uint8Array(sfuTableByteLength());
  const view = new DataView(bytes.buffer);
  bytes.set(SFU_TABLE_MAGIC, 0);
  view.setUint32(4, SFU_TABLE_FORMAT_VERSION, true);
  view.setUint32(8, SFU_TABLE_ORDER.length, true);
  view.setUint32(12, 0, true);
  let dir = SFU_TABLE_HEADER_BYTES;
  let data = dir + SFU_TABLE_ORDER.length * SFU_TABLE_DIR_ENTRY_BYTES;
  for (const name of SFU_TABLE_ORDER) {
    const rows = SFU_TABLE_ROWS[name];
    const values = tables[name];
    if (!(values instanceof Int32Array) || values.length !== rows * 3) {
      throw new RangeError(
        `Cannot encode SFU tables: table '${name}' needs ${rows * 3} int32 values, got ${
          values instanceof Int32Array ? values.length : typeof values
        }`,
      );
    }
    for (let i = 0; i < name.length && i < SFU_TABLE_NAME_BYTES; i++) {
      bytes[dir + i] = name.charCodeAt(i);
    }
    view.setUint32(dir + SFU_TABLE_NAME_BYTES, rows, true);
    dir += SFU_TABLE_DIR_ENTRY_BYTES;
    for (const v of values) {
      view.setInt32(data, v, true);
      data += 4;
    }
  }
  return bytes;
}
