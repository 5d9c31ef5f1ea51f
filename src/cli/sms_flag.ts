/**
 * The SM count a prover command runs with (`--sms`, or the profile chip's): the rule the verifier
 * applies to a record's `multiProcessorCount`, since the count steers FlashAttention-2's split
 * heuristic.
 *
 * @module
 */
import { escapeForTerminal } from "../escape_text.ts";
import { InputError } from "../errors.ts";
import { knownSmCount, smCountMismatch } from "../hardware/mod.ts";
import { EXIT } from "./exit_codes.ts";

/**
 * The SM count to run with, and why the verifier would not vouch for a run with it (a count
 * below the chip's, or a chip whose count is not known), or null.
 *
 * @param profileId the GPU profile id
 * @param sms the `--sms` flag, or undefined for the chip's own count
 * @param what the command's words for the error (`run forward`)
 * @returns the count and the refusal, to be said as NOT_VERIFIED (exit 3) where the command
 *   says what is not modelled
 * @throws {InputError} `USAGE` for a profile without a known count and no `--sms`, or a count the
 *   chip cannot have
 * @example
 * ```ts ignore
 * const { count, refused } = smsForRun("a100", undefined, "run forward"); // 108, null
 * ```
 */
export function smsForRun(
  profileId: string,
  sms: number | undefined,
  what: string,
): { readonly count: number; readonly refused: string | null } {
  const count = sms ?? knownSmCount(profileId);
  if (count === undefined) {
    throw new InputError(
      "USAGE",
      `Cannot ${what}: no known SM count for '${profileId}'; give --sms`,
    );
  }
  const why = smCountMismatch(profileId, count);
  if (why?.kind === "contradiction") throw new InputError("USAGE", `Cannot ${what}: ${why.reason}`);
  return { count, refused: why?.reason ?? null };
}

/**
 * Says a run would not be verified, as the verifier would say it (stderr, escaped), and sets the
 * exit code 3 (INCONCLUSIVE).
 *
 * @param reason the reason
 * @example
 * ```ts ignore
 * if (refused !== null) return notVerified(refused);
 * ```
 */
export function notVerified(reason: string): void {
  console.error(escapeForTerminal(`NOT_VERIFIED: ${reason}`));
  Deno.exitCode = EXIT.INCONCLUSIVE;
}
