/**
 * Recycled shared memory for the operands and results of pool jobs. A pool hands every launch's
 * copies (operands not already shared, accumulators, FA2 outputs, the chunk counter) to its
 * threads on SharedArrayBuffers; a fresh buffer per launch is freed only once every thread that
 * saw it has collected it, and idle worker isolates collect late, so a long replay (thousands of
 * launches) used to hold gigabytes of dead copies. A pool takes its buffers from an arena for the
 * length of one launch (`lease`) and gives them back when every thread is done; the next launch
 * of a similar size reuses them.
 *
 * Sizes are rounded up to classes (powers of two up to 64 KiB, then eighths of a power of two: at
 * most 12.5% over), so launches whose shapes grow by a row reuse the same buffers. Idle buffers
 * are kept up to the largest lease seen (at least {@link ARENA_MIN_IDLE} bytes), the oldest given
 * up first: memory stays near twice the largest launch whatever the number of launches.
 *
 * @module
 */

/** Idle bytes an arena keeps at least (64 MiB). */
export const ARENA_MIN_IDLE = 64 * 2 ** 20;

/** One launch's buffers. */
export interface ArenaLease {
  /**
   * A zero-filled buffer of at least `bytes` bytes (its first `bytes` are zero; view exactly
   * what was asked for). Held until `end()`.
   * @throws {RangeError} when `bytes` is not a non-negative safe integer, or after `end()`
   */
  alloc(bytes: number): SharedArrayBuffer;
  /** Gives every buffer of the lease back; no thread may touch them afterwards. Idempotent. */
  end(): void;
}

/** A recycling arena of SharedArrayBuffers shared by the launches of one pool. */
export interface JobArena {
  /** Starts a launch's lease. */
  lease(): ArenaLease;
  /** Bytes held by leases not yet ended. */
  readonly leasedBytes: number;
  /** Bytes kept idle for reuse. */
  readonly idleBytes: number;
}

/**
 * The size class of a request: the smallest power of two >= bytes up to 64 KiB, above that the
 * next multiple of an eighth of the power of two below it.
 *
 * @param bytes requested bytes (a non-negative safe integer)
 * @returns the class size, >= bytes and at most 12.5% above it past 64 KiB
 * @example
 * ```ts
 * import { arenaClass } from "./job_arena.ts";
 * if (arenaClass(100) !== 128 || arenaClass(65536) !== 65536) throw new Error();
 * if (arenaClass(100_000) !== 106_496) throw new Error(); // 13 x 8 KiB
 * ```
 */
export function arenaClass(bytes: number): number {
  if (bytes <= 64) return 64;
  const top = 2 ** Math.floor(Math.log2(bytes));
  if (bytes <= 65536) return top === bytes ? bytes : 2 * top;
  const step = top / 8;
  return Math.ceil(bytes / step) * step;
}

/**
 * Creates an arena.
 *
 * @param options `minIdle`: idle bytes kept at least (default {@link ARENA_MIN_IDLE})
 * @returns the arena
 * @example
 * ```ts
 * import { jobArena } from "./job_arena.ts";
 * const arena = jobArena();
 * const first = arena.lease();
 * const a = first.alloc(1000);
 * new Uint8Array(a).fill(7);
 * first.end();
 * const second = arena.lease();
 * const b = second.alloc(1000);
 * if (b !== a || new Uint8Array(b, 0, 1000).some((x) => x !== 0)) throw new Error();
 * second.end();
 * ```
 */
export function jobArena(options: { readonly minIdle?: number } = {}): JobArena {
  const minIdle = options.minIdle ?? ARENA_MIN_IDLE;
  // Idle buffers by class, and all of them oldest first (for giving up the oldest).
  const free = new Map<number, SharedArrayBuffer[]>();
  const order: SharedArrayBuffer[] = [];
  let idle = 0;
  let leased = 0;
  let largest = 0;
  const take = (size: number): SharedArrayBuffer | undefined => {
    const buffer = free.get(size)?.pop();
    if (buffer === undefined) return undefined;
    order.splice(order.indexOf(buffer), 1);
    idle -= size;
    return buffer;
  };
  const keep = (buffers: SharedArrayBuffer[]) => {
    for (const buffer of buffers) {
      const list = free.get(buffer.byteLength);
      if (list === undefined) free.set(buffer.byteLength, [buffer]);
      else list.push(buffer);
      order.push(buffer);
      idle += buffer.byteLength;
    }
    const limit = Math.max(minIdle, largest);
    while (idle > limit) {
      const old = order.shift()!;
      const list = free.get(old.byteLength)!;
      list.splice(list.indexOf(old), 1);
      idle -= old.byteLength;
    }
  };
  return {
    lease() {
      const held: SharedArrayBuffer[] = [];
      let bytesHeld = 0;
      let ended = false;
      return {
        alloc(bytes) {
          if (ended) throw new RangeError("Cannot allocate: the lease has ended");
          if (!Number.isSafeInteger(bytes) || bytes < 0) {
            throw new RangeError(`Cannot allocate ${bytes} bytes`);
          }
          const size = arenaClass(bytes);
          const reused = take(size);
          if (reused !== undefined) new Uint8Array(reused, 0, bytes).fill(0);
          const buffer = reused ?? new SharedArrayBuffer(size);
          held.push(buffer);
          bytesHeld += size;
          leased += size;
          largest = Math.max(largest, bytesHeld);
          return buffer;
        },
        end() {
          if (ended) return;
          ended = true;
          leased -= bytesHeld;
          keep(held);
        },
      };
    },
    get leasedBytes() {
      return leased;
    },
    get idleBytes() {
      return idle;
    },
  };
}
