/**
 * What the checker page says about a check, as plain data: a headline on the attestation, the
 * verdict on its own line (a valid attestation may carry a FAILED verdict: two facts, never one),
 * plain-language sentences (who signed, when, what was sampled, what the verdict means), then the
 * details (the named checks as `bitaudit check` prints them, per-record results, the detection
 * statement, digests). The page only turns this into DOM text nodes, so nothing here is ever
 * parsed as HTML; and every string is escaped as the CLI prints it (`escapeForTerminal`: control
 * characters, bidirectional overrides and isolates become visible `\u{..}`), so an id cannot
 * render reversed or hide part of a line.
 *
 * @module
 */
import type { VerdictPredicate } from "../attest/mod.ts";
import type { ClaimLog } from "../claims/mod.ts";
import { escapeForTerminal } from "../escape_text.ts";
import { evidenceCell, resultsByKind } from "../verify/mod.ts";
import type { CheckDone, CheckOutcome } from "./run_check.ts";
import { refusedView } from "./refused_view.ts";
import { detectionSentence, percentText } from "./detection_sentence.ts";
import { trustSentences } from "./trust_sentences.ts";
import { verifiedCaveat, type VerifiedDetection, verifiedDetection } from "./verified_detection.ts";
import { verdictHeadline, verdictMeaning } from "./verdict_meaning.ts";
import { type CheckView, EMPTY_DETAILS, type ViewFact } from "./view.ts";

/**
 * Builds the view of a check outcome.
 *
 * @param outcome what `runCheck` returned
 * @returns the view (plain text values)
 * @example
 * ```ts
 * import { checkView } from "./check_view.ts";
 * const v = checkView({ kind: "refused", input: "trust root", code: "BAD_TRUST_ROOT", message: "Cannot read trust root: not JSON" });
 * if (v.tone !== "refused" || !v.headline.includes("trust root")) throw new Error();
 * ```
 */
export function checkView(outcome: CheckOutcome): CheckView {
  return outcome.kind === "refused" ? refusedView(outcome) : _printable(_view(outcome));
}

function _view(outcome: CheckDone): CheckView {
  const { report, predicate, log } = outcome;
  if (!report.valid || predicate === null) {
    const failed = report.checks.filter((c) => !c.ok);
    return {
      ...EMPTY_DETAILS,
      checks: report.checks,
      tone: "invalid",
      headline: "INVALID attestation",
      summary: [
        `Do not rely on this attestation: ${failed.length} check(s) failed.`,
        ...failed.map((c) => `${c.check}: ${c.detail}`),
        ...outcome.hints,
        ..._whyInvalid(new Set(failed.map((c) => c.check))),
      ],
    };
  }
  // Each sampled record's kind, read once (a record is rebuilt from its line at each read, and a
  // log's line may be hundreds of MB).
  const kindOf = log === null ? null : new Map(
    predicate.results.map((r) => [
      r.index,
      log.records[r.index]?.predicate.workload.kind ?? "unknown",
    ]),
  );
  // Distinct keys: anyone can repeat a signature entry, which adds no signer.
  const signers = [
    ...new Set(report.signatures.flatMap((s) => s.verifiedBy === null ? [] : [s.verifiedBy])),
  ];
  // What the verified records catch, computed once for the summary's sentence and the rows.
  const v = verifiedDetection(predicate.detection, predicate.results);
  return {
    tone: "valid",
    headline:
      "VALID attestation: signed by a key of your trust root, every check made here passed (its assets are compared by bitaudit check only)",
    verdict: verdictHeadline(predicate.verdict),
    summary: _summary(predicate, { signers, log, outcome, v }),
    facts: _facts(predicate, signers),
    checks: report.checks,
    kinds: resultsByKind(predicate.results, kindOf),
    results: predicate.results.map((r) => ({
      index: r.index,
      kind: kindOf?.get(r.index) ?? "unknown",
      status: r.status,
      reason: r.reason,
      record: r.record,
      firstDifference: r.firstDifference === null
        ? ""
        : `element ${r.firstDifference.index}: claimed ${r.firstDifference.claimed}, recomputed ${r.firstDifference.recomputed}`,
      evidence: evidenceCell(r.evidence),
    })),
    detection: _detection(predicate, v),
    digests: _digests(predicate),
  };
}

/**
 * The detection statement, a row per level: what the verified records catch first, then the
 * signed figure, said to count all k sampled records (a NOT_VERIFIED record catches nothing, so
 * the signed figure alone would read as more than this audit could catch); where some but not all
 * were verified, a last row says once what the verified records' figures assume
 * (`verifiedCaveat`).
 */
function _detection(p: VerdictPredicate, v: VerifiedDetection): ViewFact[] {
  const d = p.detection;
  const unverified = v.sampled - v.verified;
  const levels = d.levels.map((l, i) => {
    const signed = `${l.hypergeometric} (binomial ${l.binomial})`;
    const mine = v.hypergeometric[i] ?? null;
    return {
      label: `${
        percentText(Number(l.pFalse))
      } of records false (${l.falseCount} of ${d.population})`,
      value: unverified === 0
        ? `caught with probability ${signed} by the ${d.k} sampled records, all verified`
        : v.verified === 0
        ? `caught by no record: none of the ${v.sampled} sampled was verified (the signed figure, ${signed}, counts all ${d.k} sampled)`
        : `caught with probability ${
          mine ?? "unknown"
        } by the ${v.verified} verified records (hypergeometric); the signed figure, ${signed}, counts all ${d.k} sampled, ${unverified} of them NOT_VERIFIED`,
    };
  });
  return unverified === 0 || v.verified === 0
    ? levels
    : [...levels, { label: "assumption", value: verifiedCaveat(v.verified) }];
}

/** What the failed checks mean, by kind: only a failed signature check can mean tampering. */
function _whyInvalid(failed: ReadonlySet<string>): string[] {
  const why: string[] = [];
  // The time and timestamp checks come before any signature is judged: they say nothing of
  // tampering.
  if (failed.has("time")) {
    why.push(
      "The statement's stated signing time is unreadable or later than this computer's clock allows: the signatures were not judged. Check this computer's clock, or ask the inspector why the attestation is dated ahead.",
    );
  }
  if (failed.has("timestamp")) {
    why.push(
      "The RFC 3161 timestamp you gave does not date a signature of this attestation (another message, or a token that does not verify): the signatures were not judged. Check without it, or with the token made over this attestation's signature.",
    );
  }
  if (failed.has("signatures")) {
    why.push(
      "A failed signature check means the statement was changed after it was signed, or it was not signed by a key of your trust root valid at the signing time (unknown, expired or revoked: the dates above say which).",
    );
  }
  if (failed.has("workers")) {
    why.push(
      "The inspector's signature holds, but results it signed were computed by a key your trust root does not let stand behind them: a prover key (the prover computing the audit of its own claims), or an inspector key revoked or outside its window at the verdict's time. The verdict rests on those results.",
    );
  }
  if (failed.has("checkpoint")) {
    why.push(
      "The inspector's signature holds, but the prover's checkpoint does not count against your trust root, so the audit cannot show that the log was committed by a prover key you trust.",
    );
  }
  return why;
}

function _summary(
  p: VerdictPredicate,
  o: {
    signers: readonly string[];
    log: ClaimLog | null;
    outcome: CheckDone;
    /** What the verified records catch (`verifiedDetection`), as the detection rows read it. */
    v: VerifiedDetection;
  },
): string[] {
  const a = p.audit;
  const caught = detectionSentence(p.detection, o.v);
  const form = o.outcome.format === "sigstore-bundle" ? " (read from a Sigstore bundle)" : "";
  const stamped = o.outcome.timestamped
    ? " An RFC 3161 timestamp over the signature was verified: the keys were judged at its time."
    : "";
  return [
    `The signature is genuine${form}: an inspector key of your trust root signed this statement, and which records were sampled was recomputed here from the statement's own inputs (the records themselves are re-run only by \`bitaudit check --recompute\`).${stamped}`,
    verdictMeaning(p, { signers: o.signers }),
    `Signed by ${o.signers.length} inspector key(s) (${
      o.signers.map((s) => s.slice(0, 16)).join(", ")
    }) on ${p.timeVerified} (the inspector's stated time${_tokenTime(o.outcome)}).`,
    `Sampled ${a.k} of the ${a.population} records of claim log "${a.logId}", drawn with the public randomness of round ${a.beacon.round}.`,
    // A valid attestation's announcement token verified against the trust root's TSA anchors.
    ...trustSentences({
      round: a.beacon.round,
      ...(a.beacon.drand === undefined ? {} : { drand: a.beacon.drand }),
      ...(a.checkpoint === undefined ? {} : { checkpoint: a.checkpoint }),
      ...(a.announcement === undefined ? {} : { announcement: a.announcement }),
    }, { tsaChecked: true }),
    ...(caught === null ? [] : [caught]),
    o.log === null
      ? "No claim log given: the sampled records' digests were not compared with a log."
      : "The claim log you gave is the one the audit sampled (same Merkle root, log id, record digests and claimed fingerprints).",
    // The page is itself one of a release's assets, so it cannot carry the manifest that lists it.
    `${
      _assetCount(Object.keys(p.assets).length)
    } the verdict names (under the digests) were not compared with a bitaudit release's manifest: this page holds none. \`bitaudit check\` of the same release compares them and fails a verdict computed with other assets.`,
  ];
}

/**
 * The time an RFC 3161 token vouches for, beside the stated one: the token dates the signature,
 * not the statement's `timeVerified`, which may say any time before it.
 */
function _tokenTime(outcome: CheckDone): string {
  if (!outcome.timestamped) return "";
  const at = outcome.report.tokenTime;
  return at === undefined
    ? "; a timestamp token dates the signature"
    : `; a timestamp token shows the signature existed at ${at}`;
}

function _facts(p: VerdictPredicate, signers: readonly string[]): ViewFact[] {
  return [
    { label: "Audit", value: p.audit.auditId },
    { label: "Signed by", value: signers.join(", ") },
    { label: "Verified at", value: `${p.timeVerified} (stated by the inspector)` },
    { label: "Claim log", value: `${p.audit.logId} (${p.audit.population} records)` },
    { label: "Sampled", value: `${p.audit.k} records` },
    {
      label: "Verifier",
      value:
        `${p.verifier.id} ${p.verifier.version}, ${p.verifier.engine} engine, ${p.verifier.runtime}`,
    },
  ];
}

function _digests(p: VerdictPredicate): ViewFact[] {
  return [
    { label: "log root", value: p.audit.logRoot },
    { label: `randomness (round ${p.audit.beacon.round})`, value: p.audit.beacon.randomness },
    { label: `seed (${p.audit.seedDerivation})`, value: p.audit.seed },
    { label: "sampling", value: p.audit.algorithm },
    ...Object.entries(p.assets).map(([label, value]) => ({ label, value })),
  ];
}

/** "The 1 asset", "The 3 assets". */
function _assetCount(n: number): string {
  return `The ${n} asset${n === 1 ? "" : "s"}`;
}

/** Every string of the view escaped as the CLI prints it (keys are the view's own names). */
function _printable<T>(value: T): T {
  if (typeof value === "string") return escapeForTerminal(value) as T;
  if (Array.isArray(value)) return value.map(_printable) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, _printable(v)]),
    ) as T;
  }
  return value;
}
