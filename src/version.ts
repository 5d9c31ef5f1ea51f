/**
 * The bitaudit version, reported by the CLI and recorded in every verdict.
 *
 * @module
 */

/** Semantic version of this build (keep in step with deno.json). */
export const VERSION = "0.1.0";
