/**
 * The checker page's view as a type: what the page shows about a check, as plain data (strings,
 * numbers, arrays), so that it crosses from the checking worker to the page unchanged. Built by
 * `checkView` and `refusedView`, drawn by `renderView`.
 *
 * @module
 */
import type { CheckItem } from "../attest/mod.ts";
import type { KindCounts } from "../verify/mod.ts";
import type { VerdictTone } from "./verdict_meaning.ts";

/** A labelled value. */
export interface ViewFact {
  /** Short label. */
  readonly label: string;
  /** The value, as text. */
  readonly value: string;
}

/** One sampled record's row. */
export interface ViewResult {
  /** Index in the log. */
  readonly index: number;
  /** Workload kind, `unknown` without the log. */
  readonly kind: string;
  /** PASS, FAIL or NOT_VERIFIED. */
  readonly status: string;
  /** Why (empty for PASS). */
  readonly reason: string;
  /** Record digest (hex). */
  readonly record: string;
  /** First differing element, as text, or empty. */
  readonly firstDifference: string;
  /**
   * The result's weakest evidence and every component at it (`evidenceCell`), `none` where no
   * recomputation ran: how well what a PASS rests on is known.
   */
  readonly evidence: string;
}

/** Everything the page shows (every string printable: escaped as the CLI prints it). */
export interface CheckView {
  /** `valid`, `invalid`, or `refused` (an input could not be read): the attestation's state. */
  readonly tone: "valid" | "invalid" | "refused";
  /** One line on the attestation: `VALID attestation: ...`, `INVALID attestation`, ... */
  readonly headline: string;
  /** The verdict's own line and colour (valid attestations only). */
  readonly verdict: { readonly tone: VerdictTone; readonly text: string } | null;
  /** Plain-language sentences, most important first. */
  readonly summary: readonly string[];
  /** Who, when, what (valid attestations only). */
  readonly facts: readonly ViewFact[];
  /** The named checks, in `bitaudit check` order. */
  readonly checks: readonly CheckItem[];
  /** Counts per workload kind. */
  readonly kinds: readonly KindCounts[];
  /** Per-record results. */
  readonly results: readonly ViewResult[];
  /** Detection statement rows. */
  readonly detection: readonly ViewFact[];
  /** Digests: log root, randomness, seed, assets. */
  readonly digests: readonly ViewFact[];
}

/** The parts of a {@link CheckView} a refused or invalid check leaves empty. */
export const EMPTY_DETAILS: Pick<
  CheckView,
  "verdict" | "facts" | "checks" | "kinds" | "results" | "detection" | "digests"
> = Object.freeze({
  verdict: null,
  facts: Object.freeze([]),
  checks: Object.freeze([]),
  kinds: Object.freeze([]),
  results: Object.freeze([]),
  detection: Object.freeze([]),
  digests: Object.freeze([]),
});
