/**
 * How the audit commands end: the verdict printed (text or JSON) and the exit code set.
 *
 * @module
 */
import type { AuditReport } from "../verify/mod.ts";
import { collapseSpaces } from "../escape_text.ts";
import { EXIT } from "./exit_codes.ts";
import { printJson, printText } from "./output.ts";

/**
 * Prints a verdict (text or `--json`) and sets the exit code: 0 PASSED, 1 FAILED, 3 INCONCLUSIVE.
 *
 * @param report the audit report
 * @param options output folder written, `json` for machine-readable output, `bundle` when
 *   `attestation.sigstore.json` was written too
 * @example
 * ```ts ignore
 * reportVerdict(report, { out: "out", json: false });
 * ```
 */
export function reportVerdict(
  report: AuditReport,
  options: { out: string; json: boolean; bundle?: boolean | undefined },
): void {
  const bundle = options.bundle === true;
  if (options.json) printJson(_summary(report, options.out, bundle));
  else _print(report, options.out, bundle);
  Deno.exitCode = report.verdict === "PASSED"
    ? EXIT.OK
    : report.verdict === "FAILED"
    ? EXIT.FAIL
    : EXIT.INCONCLUSIVE;
}

function _summary(r: AuditReport, outFlag: string, bundle: boolean) {
  const out = _dir(outFlag);
  return {
    verdict: r.verdict,
    auditId: r.auditId,
    root: r.root,
    seed: r.seed,
    selected: r.selected,
    results: r.results.map(({ steps: _s, ...x }) => x),
    detection: r.detection,
    attestation: `${out}/attestation.dsse.json`,
    report: `${out}/report.md`,
    html: `${out}/report.html`,
    ...(bundle ? { bundle: `${out}/attestation.sigstore.json` } : {}),
  };
}

function _print(r: AuditReport, out: string, bundle: boolean): void {
  const n = (s: string) => r.results.filter((x) => x.status === s).length;
  printText(
    `verdict: ${r.verdict}  (${n("PASS")} PASS, ${n("FAIL")} FAIL, ${
      n("NOT_VERIFIED")
    } NOT_VERIFIED of ${r.selected.length} sampled from ${r.population})`,
  );
  // A reason quotes the record's names and its blobs' fields: one space for a run of them, so
  // none can push text of its own to the start of a wrapped row (a second "verdict:" line).
  for (const x of r.results.filter((x) => x.status !== "PASS")) {
    printText(`  record ${x.index}: ${x.status}: ${collapseSpaces(x.reason)}`);
  }
  const dir = _dir(out);
  const files = [
    "attestation.dsse.json",
    ...(bundle ? ["attestation.sigstore.json"] : []),
    "report.md",
    "report.html",
  ].map((f) => `${dir}/${f}`);
  printText(`wrote ${files.slice(0, -1).join(", ")} and ${files.at(-1)}`);
}

/** The `--out` folder without trailing slashes (`out/` names `out/report.md`, not `out//...`). */
function _dir(out: string): string {
  return out.replace(/(.)\/+$/, "$1");
}
