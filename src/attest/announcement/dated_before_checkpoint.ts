/**
 * The order of an announcement and the checkpoint it names: an announcement cannot name a
 * checkpoint signed after it. The two times come from different clocks (the prover's stated
 * signing time; the inspector's stated time or a time-stamp authority's), so the rule allows the
 * clock skew every other time comparison of a check allows.
 *
 * @module
 */
import { MAX_CLOCK_SKEW_MS } from "../signing_time.ts";

/**
 * Whether an announcement is dated before the checkpoint it names by more than the clock skew.
 *
 * @param announcedAt the announcement's time (ms): its RFC 3161 token's when it has one, else its
 *   stated time
 * @param checkpointSignedAt the checkpoint's signing time (ms)
 * @returns true when no checker accepts the pair
 * @example
 * ```ts
 * import { datedBeforeCheckpoint } from "./dated_before_checkpoint.ts";
 * const t = Date.parse("2023-08-23T15:00:00Z");
 * if (datedBeforeCheckpoint(t - 40_000, t)) throw new Error("40 s of skew is allowed");
 * if (!datedBeforeCheckpoint(t - 3_600_000, t)) throw new Error();
 * ```
 */
export function datedBeforeCheckpoint(announcedAt: number, checkpointSignedAt: number): boolean {
  return announcedAt + MAX_CLOCK_SKEW_MS < checkpointSignedAt;
}
