/**
 * The SFU model a stack profile names, built from the hash-checked ROM table asset.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { createSfu, decodeSfuTables, type Sfu } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";

/** Path of the SFU ROM tables in the asset manifest. */
export const SFU_TABLES_ASSET = "tables/sfu/tesla_sfu_v1.bin";

/**
 * Builds the SFU of a stack: the table model (tables read through the asset store, so their
 * digest is checked and listed among the assets used) for `tesla-table`, the IEEE mode otherwise.
 * A stack that names no SFU gets the IEEE mode; block plans then refuse any SFU use with the
 * reason, so nothing silently depends on it.
 *
 * @param store hash-checked assets
 * @param stack the stack profile
 * @returns the SFU
 * @throws {AssetError} when the table asset is missing or tampered with
 * @example
 * ```ts ignore
 * const sfu = await loadSfuForStack(store, stack);
 * ```
 */
export async function loadSfuForStack(store: AssetStore, stack: StackProfile): Promise<Sfu> {
  if (stack.sfu?.mode !== "tesla-table") return createSfu({ mode: "ieee" });
  return createSfu({
    mode: "tesla-table",
    tables: decodeSfuTables(await store.read(SFU_TABLES_ASSET)),
  });
}
