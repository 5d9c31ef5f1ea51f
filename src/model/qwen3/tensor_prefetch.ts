/**
 * Reads a checkpoint's tensors ahead of their use: a forward asks for the next layer's weights
 * while it computes this one, so the reads (asynchronous I/O) overlap the arithmetic instead of
 * stalling it between layers. Each tensor is read at most once per `ahead`, and forgotten when
 * taken, so at most the tensors asked ahead and not yet taken stay in memory.
 *
 * @module
 */

/** Tensor reads started ahead of use. */
export interface TensorPrefetch {
  /** Starts reading each named tensor not already started (in order). */
  ahead(names: readonly string[]): void;
  /**
   * The named tensor: the read started ahead, or one started now; forgotten once taken.
   *
   * @throws whatever the read rejects with (a read started ahead and never taken rejects nothing)
   */
  take(name: string): Promise<Uint16Array>;
}

/**
 * Wraps a tensor reader.
 *
 * @param read reads one tensor by name (e.g. `Qwen3Checkpoint.tensor`)
 * @returns the prefetcher
 * @example
 * ```ts
 * import { tensorPrefetch } from "./tensor_prefetch.ts";
 * const reads: string[] = [];
 * const p = tensorPrefetch((n) => (reads.push(n), Promise.resolve(new Uint16Array(1))));
 * p.ahead(["a", "b"]);
 * await p.take("a");
 * await p.take("a"); // taken before: read again
 * if (reads.join() !== "a,b,a") throw new Error();
 * ```
 */
export function tensorPrefetch(read: (name: string) => Promise<Uint16Array>): TensorPrefetch {
  const started = new Map<string, Promise<Uint16Array>>();
  return {
    ahead(names) {
      for (const name of names) {
        if (started.has(name)) continue;
        const p = read(name);
        p.catch(() => {}); // reported when taken; a read never taken must not go unhandled
        started.set(name, p);
      }
    },
    take(name) {
      const p = started.get(name);
      started.delete(name);
      return p ?? read(name);
    },
  };
}
