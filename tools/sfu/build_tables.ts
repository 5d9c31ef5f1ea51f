/**
 * Builds `tables/sfu/tesla_sfu_v1.bin` from the shared envytools transcription
 * (`../shared/sfu/tesla_sfu_tables.json`, MIT): validates every row, then writes the version-1
 * layout of `src/hardware/sfu/sfu_tables.ts`. Deterministic: the same JSON always gives the same
 * bytes, so the committed file can be checked against a rebuild.
 *
 * Usage: `deno run --allow-read --allow-write tools/sfu/build_tables.ts [input.json] [output.bin]`
 * (defaults: `../shared/sfu/tesla_sfu_tables.json` and `tables/sfu/tesla_sfu_v1.bin`, both
 * relative to the repository root).
 *
 * @module
 */
import { encodeSfuTables } from "../../src/hardware/sfu/encode_sfu_tables.ts";
import {
  SFU_TABLE_ORDER,
  SFU_TABLE_ROWS,
  type SfuTableName,
  type SfuTables,
} from "../../src/hardware/sfu/sfu_tables.ts";

/** Default input, relative to the repository root. */
export const DEFAULT_SFU_JSON = "../shared/sfu/tesla_sfu_tables.json";

/** Default output, relative to the repository root. */
export const DEFAULT_SFU_BIN = "tables/sfu/tesla_sfu_v1.bin";

/**
 * Turns the shared JSON text into the binary table file.
 *
 * @param jsonText contents of `tesla_sfu_tables.json` (`{tables: {rcp: [[A,B,C], ...], ...}}`)
 * @returns the version-1 file bytes
 * @throws {SyntaxError} when the text is not JSON
 * @throws {TypeError} when a table is missing or a row is not three int32 integers
 * @throws {RangeError} when a table has the wrong number of rows
 * @example
 * ```ts
 * import { buildSfuTableBytes } from "./build_tables.ts";
 * try {
 *   buildSfuTableBytes('{"tables": {}}');
 *   throw new Error("accepted");
 * } catch (e) {
 *   if (!(e instanceof TypeError)) throw e;
 * }
 * ```
 */
export function buildSfuTableBytes(jsonText: string): Uint8Array {
  const doc = JSON.parse(jsonText) as { tables?: Record<string, unknown> };
  const src = doc?.tables;
  if (typeof src !== "object" || src === null) {
    throw new TypeError("Cannot build SFU tables: JSON has no 'tables' object");
  }
  const out = {} as Record<SfuTableName, Int32Array>;
  for (const name of SFU_TABLE_ORDER) {
    const rows = src[name];
    if (!Array.isArray(rows)) {
      throw new TypeError(`Cannot build SFU tables: 'tables.${name}' is not an array`);
    }
    if (rows.length !== SFU_TABLE_ROWS[name]) {
      throw new RangeError(
        `Cannot build SFU tables: 'tables.${name}' has ${rows.length} rows, expected ${
          SFU_TABLE_ROWS[name]
        }`,
      );
    }
    const values = new Int32Array(rows.length * 3);
    rows.forEach((row: unknown, i: number) => {
      if (!Array.isArray(row) || row.length !== 3 || !row.every(_isInt32)) {
        throw new TypeError(`Cannot build SFU tables: 'tables.${name}[${i}]' is not 3 int32s`);
      }
      values.set(row as number[], i * 3);
    });
    out[name] = values;
  }
  return encodeSfuTables(out as SfuTables);
}

function _isInt32(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) >= -(2 ** 31) && (v as number) < 2 ** 31;
}

if (import.meta.main) {
  const root = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");
  const input = Deno.args[0] ?? `${root}/${DEFAULT_SFU_JSON}`;
  const output = Deno.args[1] ?? `${root}/${DEFAULT_SFU_BIN}`;
  const bytes = buildSfuTableBytes(await Deno.readTextFile(input));
  await Deno.writeFile(output, bytes);
  console.log(`wrote ${output} (${bytes.length} bytes) from ${input}`);
}
