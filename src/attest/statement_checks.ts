/**
 * The checks a verdict statement must pass on its own, with no key, trust root or log: the seed
 * recomputed from the audit id, log root and beacon; the sample drawn again; one result per
 * sampled index in order; the verdict following from the results (and the audit's evidence
 * policy); the detection statement; the subjects naming the log root and the sampled records.
 * `checkAttestation` runs them on a verified payload, and `signVerdict` before it signs, so an
 * inspector never signs what a checker refuses.
 *
 * @module
 */
import { bytesToHex } from "../claims/mod.ts";
import { quoteShort } from "../escape_text.ts";
import {
  auditVerdict,
  deriveSeed,
  detectionMismatch,
  evidenceShortfall,
  sampleIndices,
} from "../verify/mod.ts";
import type { Statement } from "./statement.ts";
import type { VerdictPredicate } from "./verdict_predicate.ts";

/**
 * Runs the statement's own checks, in `bitaudit check` order, reporting each through `add`.
 *
 * @param subject the statement's subjects
 * @param p its verdict predicate (already shape-checked)
 * @param add told each check's name, outcome and detail
 * @example
 * ```ts ignore
 * const failed: string[] = [];
 * statementChecks(st.subject, p, (check, ok, detail) => ok || failed.push(`${check}: ${detail}`));
 * ```
 */
export function statementChecks(
  subject: Statement["subject"],
  p: VerdictPredicate,
  add: (check: string, ok: boolean, detail: string) => void,
): void {
  _checkSample(p, add);
  _checkSubjects(subject, p, add);
}

function _checkSample(p: VerdictPredicate, add: (c: string, ok: boolean, d: string) => void): void {
  const a = p.audit;
  try {
    const seed = deriveSeed({
      auditId: a.auditId,
      logRoot: a.logRoot,
      randomness: a.beacon.randomness,
      round: a.beacon.round,
    });
    add("seed", bytesToHex(seed) === a.seed, "seed recomputed from audit id, log root and beacon");
    // k is bounded by the selected list (as large as the envelope lets it be) before any sampling:
    // a signed k of 2^53 - 1 would otherwise be drawn index by index.
    if (a.k !== a.selected.length) {
      add("sample", false, `k ${a.k} but ${a.selected.length} selected indices`);
      return;
    }
    const { selected } = sampleIndices(seed, { population: a.population, k: a.k });
    const same = selected.length === a.selected.length &&
      selected.every((x, i) => x === a.selected[i]);
    add("sample", same, `${a.k} of ${a.population} indices recomputed`);
    const ordered = p.results.length === a.selected.length &&
      p.results.every((r, i) => r.index === a.selected[i]);
    add("results", ordered, "one result per sampled index, in selection order");
    const expected = auditVerdict(p.results);
    const contradiction = _policyContradiction(p);
    add(
      "verdict",
      p.verdict === expected && contradiction === null,
      contradiction ??
        (p.verdict !== expected
          ? `${p.verdict} does not follow from the results (they give ${expected})`
          : `${p.verdict} follows from the results${
            p.audit.requireEvidence === undefined
              ? ""
              : `, every PASS meeting the audit's required evidence ${p.audit.requireEvidence}`
          }`),
    );
  } catch (e) {
    add("seed", false, `cannot recompute the sample: ${(e as Error).message}`);
    return;
  }
  const why = detectionMismatch(p.detection, a);
  add(
    "detection",
    why === null,
    why ?? "detection probabilities recomputed from the population and k",
  );
}

/**
 * The first PASS result that the audit's recorded evidence policy should have made NOT_VERIFIED,
 * said as the verdict check's detail; null when there is no policy or every PASS meets it.
 */
function _policyContradiction(p: VerdictPredicate): string | null {
  const min = p.audit.requireEvidence;
  if (min === undefined) return null;
  for (const r of p.results) {
    if (r.status !== "PASS") continue;
    const why = evidenceShortfall(r.evidence, min);
    if (why !== null) {
      return `the audit required evidence ${min} of every PASS, but record ${r.index} is a PASS ` +
        `and ${why}`;
    }
  }
  return null;
}

/**
 * The statement's subjects must be exactly those the inspector's statement names
 * (`verdictStatement`): the attested log root, then each sampled record by its digest, in
 * result order. Tools that match attestations to artifacts by subject read nothing else.
 */
function _checkSubjects(
  subject: Statement["subject"],
  p: VerdictPredicate,
  add: (c: string, ok: boolean, d: string) => void,
): void {
  const want = [
    { name: `claim-log-merkle-root:${p.audit.logId}`, sha256: p.audit.logRoot },
    ...p.results.map((r) => ({
      name: `bitaudit-claim:${p.audit.logId}/${r.index}`,
      sha256: r.record,
    })),
  ];
  const at = subject.length !== want.length ? -1 : want.findIndex((w, i) => {
    const s = subject[i]!;
    // Exactly a name and one SHA-256: a `uri` or `annotations` would name something else too.
    return s.name !== w.name || s.digest.sha256 !== w.sha256 ||
      Object.keys(s.digest).length !== 1 || Object.keys(s).length !== 2;
  });
  const ok = subject.length === want.length && at < 0;
  add(
    "subjects",
    ok,
    ok
      ? "the statement's subjects are the attested log root and the sampled records"
      : subject.length !== want.length
      ? `${subject.length} subject(s), expected the log root and ${p.results.length} record(s)`
      : `subject ${at} is not ${
        quoteShort(want[at]!.name, 80)
      } with the attested digest alone (no other field)`,
  );
}
