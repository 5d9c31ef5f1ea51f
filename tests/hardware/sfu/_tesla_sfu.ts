/**
 * The table-model SFU built from the committed ROM asset, for tests (the model itself never reads
 * files). One instance per test module.
 *
 * @module
 */
import { createSfu, decodeSfuTables, type Sfu } from "../../../src/hardware/sfu/mod.ts";

/** The asset's path. */
export const TESLA_TABLE_URL = new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url);

let _sfu: Sfu | undefined;

/**
 * The `tesla-table` SFU over `tables/sfu/tesla_sfu_v1.bin`.
 *
 * @returns the SFU (the same object on every call)
 * @example
 * ```ts
 * import { teslaSfu } from "./_tesla_sfu.ts";
 * if (teslaSfu().mode !== "tesla-table") throw new Error();
 * ```
 */
export function teslaSfu(): Sfu {
  return _sfu ??= createSfu({
    mode: "tesla-table",
    tables: decodeSfuTables(Deno.readFileSync(TESLA_TABLE_URL)),
  });
}
