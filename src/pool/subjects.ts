/**
 * Names on the NATS server: one work-queue stream for every audit's work orders (subject per
 * plan digest), one durable pull consumer shared by all workers, one results stream (subject per
 * plan digest). Only single filter subjects are used (nats-server 2.9 has no multi-filter).
 *
 * @module
 */

/** Work-queue stream of work orders. */
export const WORK_STREAM = "BITAUDIT_WORK";
/** Durable pull consumer all workers share. */
export const WORKERS_CONSUMER = "bitaudit-workers";
/** Stream of item results. */
export const RESULTS_STREAM = "BITAUDIT_RESULTS";

/**
 * Subject of a plan's work orders.
 *
 * @param planDigest SHA-256 of the plan's bytes (hex)
 * @returns the subject
 * @example
 * ```ts
 * import { workSubject } from "./subjects.ts";
 * if (workSubject("ab") !== "bitaudit.work.ab") throw new Error();
 * ```
 */
export function workSubject(planDigest: string): string {
  return `bitaudit.work.${planDigest}`;
}

/**
 * Subject of a plan's item results.
 *
 * @param planDigest SHA-256 of the plan's bytes (hex)
 * @returns the subject
 * @example
 * ```ts
 * import { resultSubject } from "./subjects.ts";
 * if (resultSubject("ab") !== "bitaudit.results.ab") throw new Error();
 * ```
 */
export function resultSubject(planDigest: string): string {
  return `bitaudit.results.${planDigest}`;
}
