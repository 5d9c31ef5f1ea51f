/**
 * The NCCL release the ring and tree replays follow, and whether a record's stated NCCL release is
 * it. The replay splits a message into chunks as NCCL v2.27.3 does (spec `parallel_and_vllm.md`
 * §A2.3: the tail loop's `chunkCount = alignUp(divUp(rem, n), 16 / sizeof(T))`); other releases
 * split it otherwise (v2.18.3's `runRing` rounds each chunk up to `(nthreads - 32) * 8 /
 * sizeof(T)` elements), so which ranks' partials an element's ring fold starts from, and its BF16
 * sum, differ. A record stating another release describes a run the replay does not model: not a
 * contradiction (the record may well be true), so NOT_VERIFIED, and before any recomputation (a
 * mismatch would say nothing of that run).
 *
 * @module
 */
import { statedReleases } from "./stack_components.ts";

/** The NCCL release series (major, minor) whose chunking the replay follows. */
export const NCCL_REPLAY_RELEASE: readonly [2, 27] = Object.freeze([2, 27] as const);

/**
 * Why a record's stated NCCL release is not the one the replay follows, or null. Besides dotted
 * releases (`2.27.3`, `2.27.3-1+cuda12.8`, `v2.27.3`), the forms PyTorch and NCCL print are read:
 * the tuple `torch.cuda.nccl.version()` returns (`(2, 27, 3)`, with or without a suffix) and the
 * integer `NCCL_VERSION_CODE` (`22703`: major * 10000 + minor * 100 + patch, NCCL 2.9 on). A
 * value naming no major and minor release is said to be unreadable, not another release.
 *
 * @param claimed the record's `software.components` (a component named `nccl`, `NCCL version`,
 *   ...; `NCCL_VERSION` is a setting, not read here)
 * @returns the reason naming the first stated release other than 2.27.x, or null when each stated
 *   one is 2.27.x or none is stated
 * @example
 * ```ts
 * import { ncclReleaseGap } from "./nccl_release.ts";
 * if (ncclReleaseGap({ nccl: "2.27.3-1+cuda12.8" }) !== null) throw new Error();
 * if (ncclReleaseGap({ nccl: "(2, 27, 3)" }) !== null) throw new Error(); // torch's tuple
 * if (ncclReleaseGap({ nccl: "22703" }) !== null) throw new Error(); // NCCL_VERSION_CODE
 * if (ncclReleaseGap({ nccl: "2.18.3" }) === null) throw new Error();
 * if (ncclReleaseGap({ pytorch: "2.8.0" }) !== null) throw new Error(); // none stated
 * ```
 */
export function ncclReleaseGap(claimed: Readonly<Record<string, string>>): string | null {
  const [major, minor] = NCCL_REPLAY_RELEASE;
  const stated = statedReleases(claimed, "nccl");
  const unreadable = stated.find((s) => s.release.length < 2);
  if (unreadable !== undefined) {
    return `the NCCL replay follows release ${major}.${minor}'s chunking; the stated ` +
      `${unreadable.component} names no major and minor release (state it as ${major}.${minor}.x)`;
  }
  const other = stated.find((s) => s.release[0] !== major || s.release[1] !== minor);
  return other === undefined
    ? null
    : `the NCCL replay follows release ${major}.${minor}'s chunking; the stated ` +
      `${other.component} is not modelled`;
}
