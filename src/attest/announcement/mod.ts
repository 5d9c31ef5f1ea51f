/**
 * Audit announcements: the inspector commits to the checkpoint, k and a future drand round
 * before the round exists; the audit id is derived from them.
 *
 * @example
 * ```ts
 * import { announcedAuditId, announcementStatement, parseAnnouncement } from "./mod.ts";
 * const bodySha256 = "ab".repeat(32);
 * const chainHash = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971";
 * const a = {
 *   auditId: announcedAuditId({ bodySha256, chainHash, round: 123 }),
 *   checkpoint: { origin: "o", treeSize: 1, rootHash: "00".repeat(32), bodySha256 },
 *   k: 10,
 *   beacon: { chainHash, round: 123, roundTime: "2023-08-23T15:15:33Z" },
 *   announcedAt: "2023-08-23T15:15:10Z",
 * };
 * if (parseAnnouncement(announcementStatement(a)).auditId !== a.auditId) throw new Error();
 * ```
 * @module
 */
export {
  ANNOUNCED_ID_PREFIX,
  announcedAuditId,
  type Announcement,
  ANNOUNCEMENT_PREDICATE_TYPE,
  announcementStatement,
  parseAnnouncement,
} from "./announcement.ts";
export { type AnnouncedAudit, checkAnnouncement } from "./check_announcement.ts";
export { datedBeforeCheckpoint } from "./dated_before_checkpoint.ts";
