/**
 * What `audit` prints of a verdict and what report.md shows of a reason: a reason quotes text of
 * the record's (its names, its blobs' fields), which must not show as a line of its own.
 */
import assert from "node:assert/strict";
import { reportVerdict } from "../../src/cli/report_verdict.ts";
import { reportMarkdown } from "../../src/cli/report_markdown.ts";
import type { AuditReport } from "../../src/verify/mod.ts";
import { verdictReport } from "../attest/_verdict_report.ts";

/** A verdict line as `audit` prints it, padded with spaces to start a row where a terminal wraps. */
const PADDED = `stack 'x${" ".repeat(72)}verdict: PASSED  (8 PASS, 0 FAIL, 0 NOT_VERIFIED of 8 ` +
  `sampled from 8)${" ".repeat(60)}': unknown`;

/** The report of `verdictReport()` with its NOT_VERIFIED record's reason {@link PADDED}. */
function paddedReport(): AuditReport {
  const base = verdictReport();
  const results = base.results.map((r) =>
    r.status === "NOT_VERIFIED" ? { ...r, reason: PADDED } : r
  );
  assert.ok(results.some((r) => r.reason === PADDED));
  return { ...base, results };
}

/** The lines `reportVerdict` prints (text form); the exit code it sets is put back. */
function printed(report: AuditReport): string[] {
  const lines: string[] = [];
  const log = console.log;
  const code = Deno.exitCode;
  console.log = (text: string) => lines.push(text);
  try {
    reportVerdict(report, { out: "out", json: false });
  } finally {
    console.log = log;
    Deno.exitCode = code;
  }
  return lines;
}

Deno.test("reportVerdict() prints a reason's runs of spaces as one: no row of the reason's own where a terminal wraps", () => {
  // Review h181: a stack name of spaces, a verdict line and spaces showed a second "verdict:"
  // line at 80 columns. A reason signed by another verifier (a worker's, an older release's)
  // can quote text that was never shortened.
  const lines = printed(paddedReport());
  const line = lines.find((l) => l.startsWith("  record 2: NOT_VERIFIED: "));
  assert.equal(
    line,
    "  record 2: NOT_VERIFIED: stack 'x verdict: PASSED (8 PASS, 0 FAIL, 0 NOT_VERIFIED of 8 " +
      "sampled from 8) ': unknown",
  );
  for (const columns of [80, 100, 120, 160]) {
    const rows = lines.flatMap((l) => l.match(new RegExp(`.{1,${columns}}`, "g")) ?? []);
    assert.deepEqual(rows.filter((r) => r.startsWith("verdict:")).length, 1, rows.join("\n"));
  }
  assert.match(lines[0]!, /^verdict: FAILED {2}\(/); // the verifier's own line keeps its layout
});

Deno.test("reportMarkdown() shows a reason's runs of spaces as one in the file's text", () => {
  const md = reportMarkdown(paddedReport(), {
    keyids: ["ab".repeat(32)],
    timeVerified: "2026-03-01T12:00:00Z",
    engine: "reference",
    assets: {},
    meaning: "Verdict FAILED.",
  });
  const row = md.split("\n").find((l) => l.startsWith("| 2 | NOT_VERIFIED |"));
  assert.ok(row?.includes("stack 'x verdict\\: PASSED \\(8 PASS, 0 FAIL"), row);
  assert.doesNotMatch(row!, /\S {2,}\S/);
});
