/**
 * Chooses the K-walk implementation for recomputation: the hash-checked WebAssembly engine on a
 * worker pool when it supports the datapath, else the plain reference (same bits, slower).
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { createGemmEngine, createGemmPool, kWalkReference } from "../hardware/mod.ts";
import { type KWalker, referenceKWalker, type SyncKWalk } from "../kernels/mod.ts";

/** Repository path of the compiled engine. */
export const GEMM_ENGINE_ASSET = "tables/wasm/gemm_engine.wasm";

/** A walker plus what it needs to release. */
export interface GemmWalker {
  /** The K-walk function. */
  readonly walker: KWalker;
  /** The same engine, synchronous, on the calling thread (attention core tiles). */
  readonly tileWalk: SyncKWalk;
  /** Which engine runs (`wasm` or `reference`). */
  readonly engine: string;
  /** Worker count. */
  readonly threads: number;
  /** Releases the workers. */
  close(): void;
}

/**
 * Creates the walker: loads the engine through the asset store (digest-checked), starts the
 * pool, and routes unsupported datapaths to the reference.
 *
 * @param store asset store
 * @param options `threads`: worker count (default: all cores); `engine: "reference"` forces the
 *   plain path
 * @returns the walker
 * @throws {AssetError} when the engine module is missing or tampered with
 * @example
 * ```ts ignore
 * const w = await createGemmWalker(await openAssetStore(), { threads: 2 });
 * w.close();
 * ```
 */
export async function createGemmWalker(
  store: AssetStore,
  options: { threads?: number; engine?: "wasm" | "reference" } = {},
): Promise<GemmWalker> {
  if (options.engine === "reference") {
    return {
      walker: referenceKWalker,
      tileWalk: kWalkReference,
      engine: "reference",
      threads: 1,
      close: () => {},
    };
  }
  const engine = createGemmEngine(await store.read(GEMM_ENGINE_ASSET));
  const threads = Math.max(1, options.threads ?? navigator.hardwareConcurrency ?? 1);
  const pool = threads > 1 ? createGemmPool(engine, { workers: threads }) : null;
  const walker: KWalker = (dp, job) => {
    if (!engine.supports(dp)) return referenceKWalker(dp, job);
    if (pool !== null) return pool.kWalk(dp, job);
    try {
      return Promise.resolve(engine.kWalk(dp, job));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  return {
    walker,
    tileWalk: engine.kWalkAuto,
    engine: "wasm",
    threads,
    close: () => pool?.close(),
  };
}
