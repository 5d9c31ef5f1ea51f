/**
 * The SM count an attention record claims, checked against its GPU before it steers FA2's split
 * heuristic (`smCountMismatch`).
 *
 * @module
 */
import { type GpuProfile, smCountMismatch } from "../hardware/mod.ts";
import { _Stop } from "./_stop.ts";

/**
 * What a claimed `multiProcessorCount` says against its record.
 *
 * @param profile the record's GPU profile
 * @param sms the claimed count
 * @returns FAIL for a count above the chip's; NOT_VERIFIED for one below it or a profile with no
 *   known count; null for the chip's own count
 */
export function _claimedSmCountFinding(
  profile: Pick<GpuProfile, "id">,
  sms: number,
): { readonly status: "FAIL" | "NOT_VERIFIED"; readonly why: string } | null {
  const found = smCountMismatch(profile.id, sms);
  if (found === null) return null;
  return found.kind === "contradiction"
    ? { status: "FAIL", why: `record contradicts its GPU: ${found.reason}` }
    : { status: "NOT_VERIFIED", why: found.reason };
}

/**
 * Checks a claimed `multiProcessorCount` (`_claimedSmCountFinding`).
 *
 * @param profile the record's GPU profile
 * @param sms the claimed count
 * @throws {_Stop} FAIL for a count above the chip's; NOT_VERIFIED for one below it or a profile
 *   with no known count
 */
export function _checkClaimedSmCount(profile: GpuProfile, sms: number): void {
  const found = _claimedSmCountFinding(profile, sms);
  if (found !== null) throw new _Stop(found.status, found.why);
}
