/**
 * The GEMM engine from its hash-checked kernel module.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { createGemmEngine, type GemmEngine } from "../engine/mod.ts";

/** Repository path of the compiled engine. */
export const GEMM_ENGINE_ASSET = "tables/wasm/gemm_engine.wasm";

/**
 * Compiles the GEMM kernel read through the asset store (its digest checked and recorded among
 * the assets used).
 *
 * @param store asset store
 * @returns the engine
 * @throws {AssetError} when the module is missing or tampered with
 * @example
 * ```ts ignore
 * const w = createGemmWalker(await loadGemmEngine(store), { threads: 2 });
 * ```
 */
export async function loadGemmEngine(store: AssetStore): Promise<GemmEngine> {
  return createGemmEngine(await store.read(GEMM_ENGINE_ASSET));
}
