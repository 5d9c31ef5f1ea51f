/**
 * The SM count an attention record claims, checked against its GPU before it steers FA2's split
 * heuristic (`smCountMismatch`).
 *
 * @module
 */
import { type GpuProfile, smCountMismatch } from "../hardware/mod.ts";
import { _Stop } from "./_stop.ts";

/**
 * Checks a claimed `multiProcessorCount`.
 *
 * @param profile the record's GPU profile
 * @param sms the claimed count
 * @throws {_Stop} FAIL for a count above the chip's; NOT_VERIFIED for one below it or a profile
 *   with no known count
 */
export function _checkClaimedSmCount(profile: GpuProfile, sms: number): void {
  const why = smCountMismatch(profile.id, sms);
  if (why === null) return;
  throw why.kind === "contradiction"
    ? new _Stop("FAIL", `record contradicts its GPU: ${why.reason}`)
    : new _Stop("NOT_VERIFIED", why.reason);
}
