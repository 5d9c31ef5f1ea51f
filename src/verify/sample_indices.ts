/**
 * Deterministic audit sample: k distinct record indices from a seed, reproducible by anyone.
 *
 * Algorithm `bitaudit/sha256-counter-sample/v1`:
 *
 * 1. Stream. Block i (i = 0, 1, 2, …) is `SHA-256(seed || u64be(i))`, 32 bytes. The stream is the
 *    concatenation block 0 || block 1 || …; it is read as consecutive 64-bit unsigned big-endian
 *    words (four per block, in byte order), each word used once.
 * 2. Uniform integer below m (1 ≤ m ≤ 2^53 − 1). Let `limit = 2^64 − (2^64 mod m)`, the largest
 *    multiple of m not above 2^64. Take the next word w; if `w >= limit` discard it and take the
 *    next; otherwise the result is `w mod m`. (No modulo bias; for m = 1 no word is consumed.)
 * 3. Partial Fisher–Yates without replacement over the virtual array a[x] = x, x in [0, N):
 *    for j = 0, 1, …, k − 1: r = j + uniform(N − j); swap a[j] and a[r]; the j-th selected index
 *    is the new a[j]. Only swapped positions are stored (a sparse map), so N may be up to 2^53 − 1.
 *
 * The result lists the indices in selection order (the order above, so a prefix of a larger
 * sample with the same seed and N is the smaller sample) and sorted ascending.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** Identifier of the algorithm above, for audit records. */
export const SAMPLE_ALGORITHM = "bitaudit/sha256-counter-sample/v1";

/** Population and sample size of {@link sampleIndices}. */
export interface SampleSize {
  /** N: number of records to draw from, a safe integer ≥ 0. */
  readonly population: number;
  /** k: number of distinct indices to draw, 0 ≤ k ≤ N. */
  readonly k: number;
}

/** The drawn indices. */
export interface Sample {
  /** Indices in selection order. */
  readonly selected: readonly number[];
  /** The same indices, ascending. */
  readonly sorted: readonly number[];
}

/**
 * Draws k distinct indices in [0, N) from the SHA-256 counter stream of `seed`.
 *
 * @param seed seed bytes (bitaudit: the 32-byte output of `deriveSeed`), at least 1 byte
 * @param size population N and sample size k
 * @returns the indices in selection order and sorted
 * @throws {RangeError} when N is not a safe non-negative integer, k < 0, k > N, k not an
 *   integer, or the seed is empty
 * @example
 * ```ts
 * import { sampleIndices } from "./sample_indices.ts";
 * const { selected, sorted } = sampleIndices(new Uint8Array(32), { population: 1000, k: 5 });
 * if (new Set(selected).size !== 5 || sorted.some((x, i) => i > 0 && x <= sorted[i - 1]!)) {
 *   throw new Error();
 * }
 * ```
 */
export function sampleIndices(seed: Uint8Array, size: SampleSize): Sample {
  const { population: n, k } = size;
  if (!(seed instanceof Uint8Array) || seed.length === 0) {
    throw new RangeError("Cannot sample: seed must be a non-empty Uint8Array");
  }
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Cannot sample: population ${n} is not a safe non-negative integer`);
  }
  if (!Number.isSafeInteger(k) || k < 0 || k > n) {
    throw new RangeError(`Cannot sample: k ${k} is not an integer in [0, ${n}]`);
  }
  const next = counterStream(seed);
  const swapped = new Map<number, number>();
  const selected: number[] = [];
  for (let j = 0; j < k; j++) {
    const r = j + uniformBelow(next, n - j);
    const atR = swapped.get(r) ?? r;
    swapped.set(r, swapped.get(j) ?? j);
    swapped.delete(j); // position j is never read again
    selected.push(atR);
  }
  return { selected, sorted: [...selected].sort((a, b) => a - b) };
}

/**
 * Returns a reader of the SHA-256 counter stream of `seed` as 64-bit big-endian words.
 *
 * @param seed seed bytes
 * @returns a function giving the next word on each call
 * @example
 * ```ts
 * import { counterStream } from "./sample_indices.ts";
 * const next = counterStream(new Uint8Array([1]));
 * if (typeof next() !== "bigint") throw new Error();
 * ```
 */
export function counterStream(seed: Uint8Array): () => bigint {
  const input = new Uint8Array(seed.length + 8);
  input.set(seed);
  const counter = new DataView(input.buffer, seed.length, 8);
  let block = 0n;
  let view = new DataView(new ArrayBuffer(32));
  let word = 4; // words left unread in the current block: 4 means "hash the next block first"
  return () => {
    if (word === 4) {
      counter.setBigUint64(0, block++);
      const h = sha256(input);
      view = new DataView(h.buffer, h.byteOffset, 32);
      word = 0;
    }
    return view.getBigUint64(8 * word++);
  };
}

/**
 * Uniform integer in [0, m) by rejection sampling on 64-bit words (no modulo bias).
 *
 * @param next word source (see {@link counterStream})
 * @param m bound, 1 ≤ m ≤ 2^53 − 1
 * @returns the integer
 * @throws {RangeError} when m is out of range
 * @example
 * ```ts
 * import { counterStream, uniformBelow } from "./sample_indices.ts";
 * const x = uniformBelow(counterStream(new Uint8Array([7])), 10);
 * if (x < 0 || x >= 10) throw new Error();
 * ```
 */
export function uniformBelow(next: () => bigint, m: number): number {
  if (!Number.isSafeInteger(m) || m < 1) {
    throw new RangeError(`Cannot draw below ${m}: expected a safe integer >= 1`);
  }
  if (m === 1) return 0;
  const bm = BigInt(m);
  const limit = (1n << 64n) - ((1n << 64n) % bm);
  for (;;) {
    const w = next();
    if (w < limit) return Number(w % bm);
  }
}
