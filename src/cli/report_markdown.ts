/**
 * The human-readable audit report (`report.md`) written next to the attestation.
 *
 * @module
 */
import type { AuditReport } from "../verify/mod.ts";

/**
 * Renders an audit report as Markdown.
 *
 * @param report the audit report
 * @param meta signer key ids, time, engine, asset digests
 * @returns Markdown text
 * @example
 * ```ts ignore
 * const md = reportMarkdown(report, { keyids, timeVerified, engine, assets });
 * ```
 */
export function reportMarkdown(
  report: AuditReport,
  meta: {
    keyids: readonly string[];
    timeVerified: string;
    engine: string;
    assets: Readonly<Record<string, string>>;
  },
): string {
  const count = (s: string) => report.results.filter((r) => r.status === s).length;
  const lines = [
    `# bitaudit audit report: ${report.verdict}`,
    "",
    `- audit id: \`${report.auditId}\``,
    `- claim log: \`${report.logId}\`, ${report.population} records, Merkle root \`${report.root}\``,
    `- public randomness: round ${report.round}, \`${report.randomness}\``,
    `- seed: \`${report.seed}\` (${report.seedDerivation}); sample: ${report.selected.length} records (${report.algorithm})`,
    `- results: ${count("PASS")} PASS, ${count("FAIL")} FAIL, ${
      count("NOT_VERIFIED")
    } NOT_VERIFIED`,
    `- verified at ${meta.timeVerified} with the ${meta.engine} engine; signed by ${
      meta.keyids.map((k) => `\`${k.slice(0, 16)}\``).join(", ")
    }`,
    "",
    "## Detection",
    "",
    "| false records | F | P(catch >= 1), binomial | hypergeometric |",
    "|---|---|---|---|",
    ...report.detection.levels.map((l) =>
      `| ${l.pFalse} | ${l.falseCount} | ${l.binomial} | ${l.hypergeometric} |`
    ),
    "",
    "## Sampled records",
    "",
    "| index | status | reason | SFU functions (validation status) |",
    "|---|---|---|---|",
    ...report.results.map((r) =>
      `| ${r.index} | ${r.status} | ${r.reason.replaceAll("|", "\\|")} | ${
        r.sfu === undefined || r.sfu.length === 0
          ? "none"
          : r.sfu.map((u) => `${u.fn} ${u.status}`).join(", ")
      } |`
    ),
    "",
  ];
  const failed = report.results.filter((r) => r.status === "FAIL");
  if (failed.length > 0) {
    lines.push("## Failures", "");
    for (const r of failed) {
      lines.push(
        `### record ${r.index} (\`${r.digest.slice(0, 16)}…\`)`,
        "",
        `- claimed fingerprint \`${r.claimed}\``,
      );
      if (r.recomputed) lines.push(`- recomputed fingerprint \`${r.recomputed}\``);
      if (r.firstDifference) {
        const d = r.firstDifference;
        lines.push(
          `- first differing element ${d.index}: claimed ${d.claimed}, recomputed ${d.recomputed}`,
        );
      }
      if (r.firstDivergence) {
        const v = r.firstDivergence;
        lines.push(`- first diverging stage of the layer chain: layer ${v.layer}, ${v.stage}`);
      }
      lines.push(
        ...r.steps.map((s) => `- ${s.ok ? "ok" : "**stopped**"} ${s.step}: ${s.detail}`),
        "",
      );
    }
  }
  lines.push("## Assets used", "", "| asset | sha256 |", "|---|---|");
  lines.push(...Object.entries(meta.assets).map(([p, d]) => `| ${p} | \`${d}\` |`), "");
  return lines.join("\n");
}
