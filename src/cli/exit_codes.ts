/**
 * Process exit codes of the `bitaudit` CLI.
 *
 * @module
 */

/** Exit codes: 0 ok/PASS, 1 mismatch or FAIL, 2 usage or input error, 3 NOT_VERIFIED/inconclusive. */
export const EXIT = Object.freeze({
  /** Success, verification passed. */
  OK: 0,
  /** A mismatch or a failed verification. */
  FAIL: 1,
  /** Wrong command line or unusable input (including tampered assets). */
  USAGE: 2,
  /** Nothing wrong was found, but not everything could be verified. */
  INCONCLUSIVE: 3,
  /** A bug in bitaudit itself (an unexpected exception). */
  INTERNAL: 70,
});
