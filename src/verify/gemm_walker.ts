/**
 * Chooses the K-walk implementation for recomputation: the hash-checked WebAssembly engine on a
 * worker pool when it supports the datapath, else the plain reference (same bits, slower); and
 * the attention core's runner on the same engine and threads.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import { createGemmEngine, createGemmPool } from "../hardware/mod.ts";
import {
  createFa2Pool,
  type Fa2Forward,
  type Fa2Pool,
  flashAttentionForward,
  type KWalker,
  referenceKWalker,
} from "../kernels/mod.ts";

/** Repository path of the compiled engine. */
export const GEMM_ENGINE_ASSET = "tables/wasm/gemm_engine.wasm";

/** Most worker threads a walker starts (each holds its own engine instance). */
export const MAX_WORKERS = 1024;

/** A walker plus what it needs to release. */
export interface GemmWalker {
  /** The K-walk function. */
  readonly walker: KWalker;
  /** The attention core on the same engine and threads (an `Fa2Pool`), or the plain forward. */
  readonly attention: Fa2Forward;
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
 * @throws {RangeError} when `threads` is not an integer in 1..{@link MAX_WORKERS}
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
      attention: flashAttentionForward,
      engine: "reference",
      threads: 1,
      close: () => {},
    };
  }
  const engine = createGemmEngine(await store.read(GEMM_ENGINE_ASSET));
  const threads = options.threads ?? Math.max(1, navigator.hardwareConcurrency ?? 1);
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > MAX_WORKERS) {
    throw new RangeError(
      `Cannot start workers: threads ${threads} is not an integer in 1..${MAX_WORKERS}`,
    );
  }
  const pool = threads > 1 ? createGemmPool(engine, { workers: threads }) : null;
  let fa2: Fa2Pool | undefined; // started on first use: GEMM-only audits never need it
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
    attention: (inputs, o) =>
      (fa2 ??= createFa2Pool(engine, { workers: threads })).forward(inputs, o),
    engine: "wasm",
    threads,
    close: () => {
      pool?.close();
      fa2?.close();
    },
  };
}
