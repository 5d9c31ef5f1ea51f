/**
 * Shared memory for the operands and results of pool jobs. A pool hands every launch's copies
 * (operands not already shared, accumulators, FA2 outputs, the chunk counter) to its threads on
 * shared memory. A SharedArrayBuffer is freed only once every thread that saw it has collected its
 * handle, and worker isolates allocate so little that they collect rarely: a fresh buffer per
 * launch, or a recycled one given up later, left gigabytes of dead copies behind a long replay
 * (a served request on a whole model grew by about 170 MB a layer). So an arena is one growable
 * SharedArrayBuffer for the life of its pool: a launch takes ranges of it (`lease`) and gives them
 * back when every thread is done; the threads only ever see that one buffer, and nothing they hold
 * becomes garbage.
 *
 * Ranges are rounded up to classes (powers of two up to 64 KiB, then eighths of a power of two: at
 * most 12.5% over) and start on 64-byte boundaries; a request takes the smallest free range that
 * holds it (freed neighbours merge), and the buffer grows (never shrinks) when none does. Memory
 * is therefore the high-water mark of what launches held at once, plus fragmentation.
 *
 * @module
 */
import { HostResourceError } from "../errors.ts";

/** Largest arena (bytes of address space reserved; pages are committed only as they are used). */
export const ARENA_MAX_BYTES = 2 ** 36;

/** Alignment of every range's start (a cache line; any typed array's element size divides it). */
const _ALIGN = 64;

/** Smallest growth of the buffer (bytes). */
const _MIN_GROWTH = 2 ** 20;

/** One launch's ranges. */
export interface ArenaLease {
  /**
   * A zero-filled view of exactly `bytes` bytes on the arena's SharedArrayBuffer (its byte offset
   * a multiple of 64). Held until `end()`.
   * @throws {RangeError} when `bytes` is not a non-negative safe integer, after `end()`, or when
   *   the arena cannot grow that far
   */
  alloc(bytes: number): Uint8Array;
  /** Gives every range of the lease back; no thread may touch them afterwards. Idempotent. */
  end(): void;
}

/** A growable shared buffer whose ranges the launches of one pool lease. */
export interface JobArena {
  /** Starts a launch's lease. */
  lease(): ArenaLease;
  /** Bytes held by leases not yet ended. */
  readonly leasedBytes: number;
  /** Bytes of the buffer (the high-water mark: it never shrinks). */
  readonly reservedBytes: number;
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
 * @param options `maxBytes`: the most the buffer may grow to (default {@link ARENA_MAX_BYTES});
 *   a host that cannot reserve that much address space gets the largest of 2^32 and 2^31 it can
 * @returns the arena
 * @throws {RangeError} when no growable SharedArrayBuffer can be made
 * @example
 * ```ts
 * import { jobArena } from "./job_arena.ts";
 * const arena = jobArena();
 * const first = arena.lease();
 * const a = first.alloc(1000);
 * a.fill(7);
 * first.end();
 * const second = arena.lease();
 * const b = second.alloc(1000);
 * if (b.byteOffset !== a.byteOffset || b.some((x) => x !== 0)) throw new Error();
 * second.end();
 * ```
 */
export function jobArena(options: { readonly maxBytes?: number } = {}): JobArena {
  const buffer = _growable(options.maxBytes ?? ARENA_MAX_BYTES);
  // Free ranges [start, end), sorted by start, never adjacent (merged on release).
  const free: { start: number; end: number }[] = [];
  let leased = 0;
  // Bytes below this offset may have been written; the buffer's growth past it is still zero.
  let touched = 0;
  const max = buffer.maxByteLength - (buffer.maxByteLength % _ALIGN);
  // Grows the buffer so that a free range at its end holds `need` bytes; returns that range.
  const grow = (need: number): number => {
    const last = free.at(-1);
    const tail = last !== undefined && last.end === buffer.byteLength ? last : undefined;
    const from = tail?.start ?? buffer.byteLength;
    if (from + need > max) {
      throw new RangeError(
        `Cannot allocate ${need} bytes of pool memory: the arena would exceed ${max} bytes`,
      );
    }
    const step = Math.max(_MIN_GROWTH, buffer.byteLength >> 2);
    const target = Math.max(from + need, Math.min(max, buffer.byteLength + step));
    buffer.grow(Math.ceil(target / _ALIGN) * _ALIGN);
    if (tail !== undefined) tail.end = buffer.byteLength;
    else free.push({ start: from, end: buffer.byteLength });
    return free.length - 1;
  };
  const take = (size: number): number => {
    let best = -1;
    for (let i = 0; i < free.length; i++) {
      const len = free[i]!.end - free[i]!.start;
      if (len >= size && (best < 0 || len < free[best]!.end - free[best]!.start)) best = i;
    }
    if (best < 0) best = grow(size);
    const r = free[best]!;
    const start = r.start;
    r.start += size;
    if (r.start === r.end) free.splice(best, 1);
    return start;
  };
  const give = (start: number, size: number) => {
    const end = start + size;
    let i = 0;
    while (i < free.length && free[i]!.start < start) i++;
    const before = free[i - 1];
    const after = free[i];
    if (before !== undefined && before.end === start) {
      before.end = end;
      if (after !== undefined && after.start === end) {
        before.end = after.end;
        free.splice(i, 1);
      }
    } else if (after !== undefined && after.start === end) after.start = start;
    else free.splice(i, 0, { start, end });
  };
  return {
    lease() {
      const held: [number, number][] = [];
      let ended = false;
      return {
        alloc(bytes) {
          if (ended) throw new RangeError("Cannot allocate: the lease has ended");
          if (!Number.isSafeInteger(bytes) || bytes < 0) {
            throw new RangeError(`Cannot allocate ${bytes} bytes`);
          }
          const size = arenaClass(bytes);
          const start = take(size);
          held.push([start, size]);
          leased += size;
          const view = new Uint8Array(buffer, start, bytes);
          view.fill(0, 0, Math.min(bytes, Math.max(0, touched - start)));
          touched = Math.max(touched, start + size);
          return view;
        },
        end() {
          if (ended) return;
          ended = true;
          for (const [start, size] of held) {
            give(start, size);
            leased -= size;
          }
        },
      };
    },
    get leasedBytes() {
      return leased;
    },
    get reservedBytes() {
      return buffer.byteLength;
    },
  };
}

/** A growable SharedArrayBuffer of at most `max` bytes (less where the host reserves less). */
function _growable(max: number): SharedArrayBuffer {
  for (const m of [max, Math.min(max, 2 ** 32), Math.min(max, 2 ** 31)]) {
    try {
      return new SharedArrayBuffer(0, { maxByteLength: m });
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
    }
  }
  throw new HostResourceError(
    "Cannot create a pool arena: no growable SharedArrayBuffer available",
  );
}

/**
 * An Int32Array over a leased range (e.g. a launch's shared chunk counter).
 *
 * @param room the range (`ArenaLease.alloc`), at least 4 x length bytes, offset a multiple of 4
 * @param length elements
 * @returns the view
 * @example
 * ```ts
 * import { int32View, jobArena } from "./job_arena.ts";
 * const lease = jobArena().lease();
 * const counter = int32View(lease.alloc(4), 1);
 * if (Atomics.add(counter, 0, 1) !== 0) throw new Error();
 * lease.end();
 * ```
 */
export function int32View(room: Uint8Array, length: number): Int32Array {
  return new Int32Array(room.buffer, room.byteOffset, length);
}
