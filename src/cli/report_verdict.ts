/**
 * How the audit commands end: the verdict printed (text or JSON) and the exit code set.
 *
 * @module
 */
import type { AuditReport } from "../verify/mod.ts";
import { EXIT } from "./exit_codes.ts";
import { printJson, printText } from "./output.ts";

/**
 * Prints a verdict (text or `--json`) and sets the exit code: 0 PASSED, 1 FAILED, 3 INCONCLUSIVE.
 *
 * @param report the audit report
 * @param options output folder written, `json` for machine-readable output
 * @example
 * ```ts ignore
 * reportVerdict(report, { out: "out", json: false });
 * ```
 */
export function reportVerdict(report: AuditReport, options: { out: string; json: boolean }): void {
  if (options.json) printJson(_summary(report, options.out));
  else _print(report, options.out);
  Deno.exitCode = report.verdict === "PASSED"
    ? EXIT.OK
    : report.verdict === "FAILED"
    ? EXIT.FAIL
    : EXIT.INCONCLUSIVE;
}

function _summary(r: AuditReport, outFlag: string) {
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
  };
}

function _print(r: AuditReport, out: string): void {
  const n = (s: string) => r.results.filter((x) => x.status === s).length;
  printText(
    `verdict: ${r.verdict}  (${n("PASS")} PASS, ${n("FAIL")} FAIL, ${
      n("NOT_VERIFIED")
    } NOT_VERIFIED of ${r.selected.length} sampled from ${r.population})`,
  );
  for (const x of r.results.filter((x) => x.status !== "PASS")) {
    printText(`  record ${x.index}: ${x.status}: ${x.reason}`);
  }
  const dir = _dir(out);
  printText(`wrote ${dir}/attestation.dsse.json, ${dir}/report.md and ${dir}/report.html`);
}

/** The `--out` folder without trailing slashes (`out/` names `out/report.md`, not `out//...`). */
function _dir(out: string): string {
  return out.replace(/(.)\/+$/, "$1");
}
