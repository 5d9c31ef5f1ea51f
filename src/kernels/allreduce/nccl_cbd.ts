/**
 * NCCL's "continuous byte distribution" of one collective over its channels, as the device code
 * reads it (NCCL v2.27.3-1 `src/include/device.h` `ncclDevWorkColl.cbd` and `ncclCollCbdPart`,
 * spec `parallel_and_vllm.md` §A2.3): which elements each channel owns and its chunk size.
 *
 * @module
 */

/** NCCL protocols; each moves data in grains of its own size. */
export type NcclProtocol = "simple" | "ll" | "ll128";

/**
 * Grain bytes per protocol, `ncclProtoGrainSize` (device.h): Simple 512; LL 16; LL128
 * `WARP_SIZE * NCCL_LL128_SHMEM_ELEMS_PER_THREAD / NCCL_LL128_LINEELEMS * NCCL_LL128_DATAELEMS *
 * 8` = 32 * 8 / 16 * 15 * 8 = 1920.
 */
export const NCCL_GRAIN_BYTES: Readonly<Record<NcclProtocol, number>> = Object.freeze({
  simple: 512,
  ll: 16,
  ll128: 1920,
});

/**
 * Chunk bytes of a Simple-protocol ring all-reduce with NCCL_BUFFSIZE unset: `calcCollChunking`
 * (enqueue.cc) takes `buffSizes[SIMPLE] / NCCL_STEPS * ALLREDUCE_CHUNKSTEPS` = 4 MiB / 8 * 4 =
 * 2 MiB, with no size-dependent reduction for ring/Simple. Other protocols, algorithms or buffer
 * sizes give other values: record them.
 */
export const NCCL_SIMPLE_RING_CHUNK_BYTES = 2 * 1024 * 1024;

/**
 * The cbd fields of `ncclDevWorkColl` (counts in elements, chunk sizes in protocol grains): the
 * first channel (`Lo`) and last (`Hi`) differ in size from the ones in the middle. With one
 * channel only `countLo`/`chunkGrainsLo` are read and the others must be 0.
 */
export interface NcclCbd {
  /** Elements of the first channel. */
  readonly countLo: number;
  /** Elements of each middle channel. */
  readonly countMid: number;
  /** Elements of the last channel. */
  readonly countHi: number;
  /** Chunk size of the first channel, in grains. */
  readonly chunkGrainsLo: number;
  /** Chunk size of the middle channels, in grains. */
  readonly chunkGrainsMid: number;
  /** Chunk size of the last channel, in grains. */
  readonly chunkGrainsHi: number;
}

/** One channel's share of the buffer, in BF16 elements. */
export interface NcclChannelPart {
  /** First element of the channel (`gridOffset`). */
  readonly offset: number;
  /** Elements of the channel (`channelCount`). */
  readonly count: number;
  /** Elements per chunk (`chunkCount`) before the tail loop's realignment. */
  readonly chunkCount: number;
}

/**
 * `ncclCollCbdPart` for BF16 (2-byte elements) on every channel `channelLo .. channelHi`.
 *
 * @param cbd the work descriptor's cbd fields
 * @param options `nChannels` (`channelHi - channelLo + 1`, at least 1) and the `protocol`
 * @returns one part per channel, in channel order
 * @throws {RangeError} when `nChannels` is not a positive integer
 * @example
 * ```ts
 * import { ncclChannelParts } from "./nccl_cbd.ts";
 * const cbd = { countLo: 100, countMid: 300, countHi: 50, chunkGrainsLo: 1, chunkGrainsMid: 2, chunkGrainsHi: 1 };
 * const parts = ncclChannelParts(cbd, { nChannels: 3, protocol: "simple" });
 * if (parts[2]!.offset !== 400 || parts[1]!.chunkCount !== 512) throw new Error();
 * ```
 */
export function ncclChannelParts(
  cbd: NcclCbd,
  options: { readonly nChannels: number; readonly protocol: NcclProtocol },
): NcclChannelPart[] {
  const n = options.nChannels;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Cannot partition channels: nChannels ${n} is not a positive integer`);
  }
  const eltPerGrain = NCCL_GRAIN_BYTES[options.protocol] / 2;
  const parts: NcclChannelPart[] = [];
  for (let c = 0; c < n; c++) {
    if (c === 0) {
      parts.push({ offset: 0, count: cbd.countLo, chunkCount: cbd.chunkGrainsLo * eltPerGrain });
    } else if (c === n - 1) {
      parts.push({
        offset: cbd.countLo + (n - 2) * cbd.countMid,
        count: cbd.countHi,
        chunkCount: cbd.chunkGrainsHi * eltPerGrain,
      });
    } else {
      parts.push({
        offset: cbd.countLo + (c - 1) * cbd.countMid,
        count: cbd.countMid,
        chunkCount: cbd.chunkGrainsMid * eltPerGrain,
      });
    }
  }
  return parts;
}

/**
 * The cbd of a one-channel all-reduce (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = 1): enqueue.cc
 * puts every cell on the only channel (`cellsLo = cells`, no middle or high channel) and then
 * trims the padding, so `countLo` is the element count; the chunk is `chunkBytes` cut down to
 * whole grains (`chunkSize / grainSize * grainSize`).
 *
 * @param count BF16 elements of the message
 * @param options `chunkBytes` (from `calcCollChunking`, e.g. {@link NCCL_SIMPLE_RING_CHUNK_BYTES})
 *   and the `protocol`
 * @returns the cbd fields
 * @throws {RangeError} when the count is negative or the chunk is smaller than one grain
 * @example
 * ```ts
 * import { NCCL_SIMPLE_RING_CHUNK_BYTES, ncclSingleChannelCbd } from "./nccl_cbd.ts";
 * const cbd = ncclSingleChannelCbd(4096, { chunkBytes: NCCL_SIMPLE_RING_CHUNK_BYTES, protocol: "simple" });
 * if (cbd.countLo !== 4096 || cbd.chunkGrainsLo !== 4096) throw new Error();
 * ```
 */
export function ncclSingleChannelCbd(
  count: number,
  options: { readonly chunkBytes: number; readonly protocol: NcclProtocol },
): NcclCbd {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new RangeError(`Cannot build cbd: count ${count} is not a non-negative integer`);
  }
  const grains = Math.floor(options.chunkBytes / NCCL_GRAIN_BYTES[options.protocol]);
  if (!(grains >= 1)) {
    throw new RangeError(
      `Cannot build cbd: chunkBytes ${options.chunkBytes} is less than one ` +
        `${options.protocol} grain (${NCCL_GRAIN_BYTES[options.protocol]} bytes)`,
    );
  }
  return Object.freeze({
    countLo: count,
    countMid: 0,
    countHi: 0,
    chunkGrainsLo: grains,
    chunkGrainsMid: 0,
    chunkGrainsHi: 0,
  });
}

/**
 * The channel parts of an NCCL plan over partials of `count` elements, checked to cover them
 * exactly (what the ring and the tree both need before folding).
 *
 * @param plan the plan's cbd, protocol and channel count
 * @param count elements of each partial
 * @returns one part per channel
 * @throws {RangeError} when the cbd does not cover `count` elements
 * @example
 * ```ts
 * import { ncclCoveringParts, ncclSingleChannelCbd } from "./nccl_cbd.ts";
 * const cbd = ncclSingleChannelCbd(10, { chunkBytes: 1024, protocol: "simple" });
 * if (ncclCoveringParts({ cbd, protocol: "simple", nChannels: 1 }, 10)[0]!.count !== 10) {
 *   throw new Error();
 * }
 * ```
 */
export function ncclCoveringParts(
  plan: { readonly cbd: NcclCbd; readonly protocol: NcclProtocol; readonly nChannels: number },
  count: number,
): NcclChannelPart[] {
  const parts = ncclChannelParts(plan.cbd, plan);
  const total = parts.reduce((s, p) => s + p.count, 0);
  if (total !== count) {
    throw new RangeError(`Cannot all-reduce: the cbd covers ${total} elements, not ${count}`);
  }
  return parts;
}
