/**
 * What `bitaudit check` prints for people: the named checks, then the attestation's validity and
 * the verdict as two lines in two colours (a VALID attestation of a FAILED verdict is good evidence
 * that the log holds false claims, never a green "valid ... failed"), the trust labels, the hints
 * on validity windows, and the policy's requirements. The words are the checker page's
 * (`verdictMeaning`, `validityHints`), so both say the same.
 *
 * @module
 */
import type { CheckReport, VerdictPredicate } from "../attest/mod.ts";
import { escapeForTerminal } from "../escape_text.ts";
import { verdictHeadline, verdictMeaning, type VerdictTone } from "../web/mod.ts";
import { policyLines, type PolicyOutcome, requirementFlag } from "./check_policy.ts";

/** What one `check` found, as {@link checkLines} prints it. */
export interface CheckedAttestation {
  /** The report of `checkAttestation`. */
  readonly report: CheckReport;
  /** The verified predicate (valid attestations only). */
  readonly predicate: VerdictPredicate | null;
  /** The attestation's form. */
  readonly format: "dsse" | "sigstore-bundle";
  /**
   * Where the RFC 3161 token checked came from: `given` with --timestamp (in place of any token a
   * bundle carries), carried by the `bundle`, or none checked (null).
   */
  readonly token: "given" | "bundle" | null;
  /** Validity windows and flags behind a failed key check. */
  readonly hints: readonly string[];
  /** The policy's outcome, when a --require-* flag was given. */
  readonly policy?: PolicyOutcome;
}

/**
 * What the summary says of the announcement: only a verified RFC 3161 timestamp shows it came
 * before the round; a stated time is the inspector's to write, after the round as well.
 */
const _ANNOUNCEMENT: Readonly<Record<"timestamped" | "pre-committed" | "none", string>> = {
  timestamped: "announced in advance (RFC 3161 timestamp: the TSA vouches)",
  "pre-committed":
    "announced at the inspector's stated time only (no timestamp: the order is the inspector's word)",
  none: "not pre-committed",
};

/**
 * What the bundle line says of the token checked: a token given with --timestamp replaces the
 * bundle's own, so only a token the bundle carries is "its" timestamp.
 */
const _BUNDLE_TOKEN: Readonly<Record<"given" | "bundle" | "none", string>> = {
  given: "; the RFC 3161 token given with --timestamp is checked, not one the bundle carries",
  bundle: "; its RFC 3161 timestamp is checked",
  none: "",
};

/** ANSI colours (SGR); only used for a terminal that has not asked for NO_COLOR. */
const _SGR = { green: "32", red: "31", yellow: "33" } as const;
const _TONE: Readonly<Record<VerdictTone, keyof typeof _SGR>> = {
  passed: "green",
  failed: "red",
  inconclusive: "yellow",
};

/**
 * The lines `check` prints, each escaped for the terminal (text from the attestation cannot drive
 * it), coloured when `color` is set.
 *
 * @param c what the check found
 * @param options `color`: paint the validity and the verdict (the caller decides: a terminal
 *   without NO_COLOR)
 * @returns the lines, in order
 * @example
 * ```ts
 * import { checkLines } from "./check_lines.ts";
 * const report = { valid: false, verdict: null, auditId: null, signatures: [], checks: [] };
 * const lines = checkLines({ report, predicate: null, format: "dsse", token: null, hints: [] });
 * if (lines.at(-1) !== "INVALID attestation") throw new Error(lines.join("\n"));
 * ```
 */
export function checkLines(c: CheckedAttestation, options: { color?: boolean } = {}): string[] {
  const paint = (text: string, color: keyof typeof _SGR) =>
    options.color ? `\u001b[${_SGR[color]}m${text}\u001b[0m` : text;
  const lines: string[] = [];
  const say = (text: string, color?: keyof typeof _SGR) => {
    const safe = escapeForTerminal(text);
    lines.push(color === undefined ? safe : paint(safe, color));
  };
  if (c.format === "sigstore-bundle") {
    say(`read a Sigstore bundle v0.3${_BUNDLE_TOKEN[c.token ?? "none"]} (DSSE envelope inside)`);
  }
  for (const k of c.report.checks) say(`${k.ok ? "ok  " : "FAIL"} ${k.check}: ${k.detail}`);
  const p = c.predicate;
  if (c.report.valid && p !== null) {
    say(
      `VALID attestation: signed by a key of your trust root, every check passed (audit ${p.audit.auditId})`,
      "green",
    );
    const signers = c.report.signatures.flatMap((s) => s.verifiedBy ?? []);
    say(verdictMeaning(p, { signers }), _TONE[verdictHeadline(p.verdict).tone]);
  } else {
    say("INVALID attestation", "red");
    for (const h of c.hints) say(`hint: ${h}`);
  }
  const t = c.report.trust;
  if (t !== undefined) {
    say(
      `randomness: ${
        t.randomness === "drand" ? "verified drand round" : "NOT a verified beacon"
      }; commitment: ${
        t.commitment === "none"
          ? "no signed checkpoint"
          : t.commitment === "refused"
          ? "checkpoint refused"
          : "prover-signed"
      }; sample ${_ANNOUNCEMENT[t.announcement]}`,
    );
  }
  if (c.policy !== undefined) {
    for (const line of policyLines(c.policy, c.report.valid && p !== null)) {
      say(line, line.startsWith("ok") ? undefined : "red");
    }
    const unmet = c.policy.requirements.filter((r) => !r.met);
    if (unmet.length === 0) say("policy met", "green");
    else say(`POLICY NOT MET: ${unmet.map(requirementFlag).join(", ")}`, "red");
  }
  return lines;
}
