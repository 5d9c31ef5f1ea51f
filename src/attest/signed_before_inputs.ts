/**
 * The order of a verdict and what it was computed from: the drand round that fixed its sample,
 * the checkpoint it binds and the announcement it carries all existed before the verdict could be
 * computed, so a verdict stating a signing time before any of them states what cannot be. The
 * times come from different clocks (the inspector's, the prover's, drand's schedule), so the rule
 * allows the clock skew every other time comparison allows.
 *
 * @module
 */
import { MAX_CLOCK_SKEW_MS } from "./signing_time.ts";

/** An input of a verdict and the instant it came to exist. */
export interface DatedInput {
  /** What it is, for messages, e.g. `round 123 (published 2023-08-23T15:15:33Z)`. */
  readonly what: string;
  /** When it came to exist (ms since the epoch). */
  readonly at: number;
}

/**
 * The latest input a verdict's stated time precedes by more than the clock skew.
 *
 * @param stated the verdict's stated signing time (ms since the epoch)
 * @param inputs the dated inputs (verified ones only: an unverified time proves nothing)
 * @returns the latest input, when the verdict is dated before it beyond the skew; else null
 * @example
 * ```ts
 * import { signedBeforeInputs } from "./signed_before_inputs.ts";
 * const round = { what: "round 123", at: Date.parse("2023-08-23T15:15:33Z") };
 * if (signedBeforeInputs(Date.parse("2023-02-01T00:00:00Z"), [round]) !== round) throw new Error();
 * if (signedBeforeInputs(round.at + 1000, [round]) !== null) throw new Error();
 * ```
 */
export function signedBeforeInputs(
  stated: number,
  inputs: readonly DatedInput[],
): DatedInput | null {
  let latest: DatedInput | null = null;
  for (const i of inputs) if (latest === null || i.at > latest.at) latest = i;
  return latest !== null && stated + MAX_CLOCK_SKEW_MS < latest.at ? latest : null;
}
