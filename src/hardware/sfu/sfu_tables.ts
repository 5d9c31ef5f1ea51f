/**
 * The decoded SFU lookup-table ROM and the binary layout it travels in (`tables/sfu/*.bin`).
 *
 * Layout, version 1, all integers little-endian:
 *
 * | offset | size | field |
 * |---|---|---|
 * | 0 | 4 | magic, ASCII `"BSFU"` |
 * | 4 | 4 | u32 format version (= 1) |
 * | 8 | 4 | u32 table count (= 5) |
 * | 12 | 4 | u32 reserved (= 0) |
 * | 16 | 12 per table | directory: 8-byte NUL-padded ASCII name, u32 row count |
 * | 76 | 12 per row | rows in directory order: int32 A, int32 B, int32 C |
 *
 * The directory order and row counts are fixed: `rcp` 128, `rsqrt` 128, `ex2` 64, `lg2` 64,
 * `sin` 64 rows (448 rows, 5,452 bytes in all). The values are the ROM's signed 32-bit integers as
 * envytools transcribed them (nvhw/sfu_tab.c, MIT).
 *
 * @module
 */

/** The five ROM tables, each a flat `Int32Array` of `[A, B, C]` rows (row `i` at `3i..3i+2`). */
export interface SfuTables {
  /** MUFU.RCP, 128 rows indexed by mantissa bits 22..16. */
  readonly rcp: Int32Array;
  /** MUFU.RSQ, 128 rows indexed by exponent parity ‖ mantissa bits 22..17. */
  readonly rsqrt: Int32Array;
  /** MUFU.EX2, 64 rows indexed by fraction bits 22..17. */
  readonly ex2: Int32Array;
  /** MUFU.LG2, 64 rows indexed by fraction bits 22..17. */
  readonly lg2: Int32Array;
  /** MUFU.SIN/COS, 64 rows (carried for completeness; no model uses it yet). */
  readonly sin: Int32Array;
}

/** Name of one table in {@link SfuTables}. */
export type SfuTableName = keyof SfuTables;

/** The four magic bytes, ASCII `"BSFU"`. */
export const SFU_TABLE_MAGIC: readonly number[] = Object.freeze([0x42, 0x53, 0x46, 0x55]);

/** The only binary format version this code reads and writes. */
export const SFU_TABLE_FORMAT_VERSION = 1;

/** Header size in bytes (magic, version, table count, reserved). */
export const SFU_TABLE_HEADER_BYTES = 16;

/** Bytes per directory entry (8-byte name + u32 row count). */
export const SFU_TABLE_DIR_ENTRY_BYTES = 12;

/** Bytes per table name in the directory. */
export const SFU_TABLE_NAME_BYTES = 8;

/** Directory order and row count of every table; the layout is fixed by this list. */
export const SFU_TABLE_ROWS: Readonly<Record<SfuTableName, number>> = Object.freeze({
  rcp: 128,
  rsqrt: 128,
  ex2: 64,
  lg2: 64,
  sin: 64,
});

/** Table names in directory order. */
export const SFU_TABLE_ORDER: readonly SfuTableName[] = Object.freeze(
  Object.keys(SFU_TABLE_ROWS) as SfuTableName[],
);

/**
 * Total byte length of a version-1 table file.
 *
 * @returns 5,452
 * @example
 * ```ts
 * import { sfuTableByteLength } from "./sfu_tables.ts";
 * if (sfuTableByteLength() !== 5452) throw new Error();
 * ```
 */
export function sfuTableByteLength(): number {
  let rows = 0;
  for (const name of SFU_TABLE_ORDER) rows += SFU_TABLE_ROWS[name];
  return SFU_TABLE_HEADER_BYTES + SFU_TABLE_ORDER.length * SFU_TABLE_DIR_ENTRY_BYTES + rows * 12;
}
