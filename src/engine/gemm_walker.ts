/**
 * Chooses the K-walk implementation for recomputation: the WebAssembly engine on a worker pool
 * when it supports the datapath, else the plain reference (same bits, slower); and the attention
 * core's runner on the same engine and threads.
 *
 * @module
 */
import {
  type AttentionInputs,
  type Fa2BatchLaunch,
  type Fa2Forward,
  flashAttentionBatch,
  flashAttentionForward,
  type FlashAttentionOptions,
  type KWalker,
  referenceKWalker,
} from "../kernels/mod.ts";
import { createFa2Pool, type Fa2Pool } from "./fa2_pool.ts";
import type { GemmEngine } from "./gemm_engine.ts";
import { createGemmPool } from "./gemm_pool.ts";

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
 * Creates the walker: starts the pool on the engine and routes unsupported datapaths to the
 * reference.
 *
 * @param engine the GEMM engine (e.g. `loadGemmEngine(store)` from `src/resolve`, which checks
 *   the module's digest), or `"reference"` for the plain path on the calling thread
 * @param options `threads`: computing threads (default: all cores); `callerWalks`: whether the
 *   calling thread is one of them (default true; false starts `threads` GEMM and attention
 *   workers and leaves the calling thread free to run the operators between GEMMs while they
 *   walk, for callers that post independent GEMMs before awaiting them, and to answer signals)
 * @returns the walker
 * @throws {RangeError} when `threads` is not an integer in 1..{@link MAX_WORKERS}
 * @example
 * ```ts
 * import { createGemmWalker } from "./gemm_walker.ts";
 * const w = createGemmWalker("reference");
 * if (w.engine !== "reference" || w.threads !== 1) throw new Error();
 * w.close();
 * ```
 */
export function createGemmWalker(
  engine: GemmEngine | "reference",
  options: { threads?: number; callerWalks?: boolean } = {},
): GemmWalker {
  if (engine === "reference") {
    return {
      walker: referenceKWalker,
      attention: Object.assign(
        (inputs: AttentionInputs, o: FlashAttentionOptions) => flashAttentionForward(inputs, o),
        { batch: flashAttentionBatch },
      ),
      engine: "reference",
      threads: 1,
      close: () => {},
    };
  }
  const threads = options.threads ?? Math.max(1, navigator.hardwareConcurrency ?? 1);
  if (!Number.isSafeInteger(threads) || threads < 1 || threads > MAX_WORKERS) {
    throw new RangeError(
      `Cannot start workers: threads ${threads} is not an integer in 1..${MAX_WORKERS}`,
    );
  }
  const callerWalks = options.callerWalks ?? true;
  const pool = threads > 1 || !callerWalks
    ? createGemmPool(engine, { workers: threads, callerWalks })
    : null;
  let fa2: Fa2Pool | undefined; // started on first use: GEMM-only audits never need it
  // The calling thread computes attention only where it walks GEMMs too: the commands keep it
  // free (callerWalks false), so that a signal is answered during a launch of hours.
  const fa2Pool =
    () => (fa2 ??= createFa2Pool(engine, { workers: threads, callerComputes: callerWalks }));
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
    attention: Object.assign(
      (inputs: AttentionInputs, o: FlashAttentionOptions) => fa2Pool().forward(inputs, o),
      { batch: (launches: readonly Fa2BatchLaunch[]) => fa2Pool().forwardBatch(launches) },
    ),
    engine: "wasm",
    threads,
    close: () => {
      pool?.close();
      fa2?.close();
    },
  };
}
