/**
 * The human-readable audit report (`report.md`) written next to the attestation. Text that came
 * from an input (audit id, reasons quoting names, step details) is escaped for Markdown.
 *
 * @module
 */
import { type AuditReport, budgetText, evidenceCell } from "../verify/mod.ts";
import { escapeMarkdown } from "../escape_text.ts";
import { detectionSentence, verifiedDetection } from "../web/mod.ts";
import { detectionTable } from "./detection_table.ts";
import { layerStackCaption } from "./layer_stack_chart.ts";
import type { TrustInputs } from "./trust_inputs.ts";
import { countNoun } from "./count_noun.ts";

/**
 * Renders an audit report as Markdown.
 *
 * @param report the audit report
 * @param meta signer key ids, time, engine, asset digests, trust inputs, the verdict's plain
 *   `meaning` (`verdictMeaning` of the signed predicate)
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
    trust?: TrustInputs;
    meaning: string;
  },
): string {
  const d = meta.trust?.drand;
  const cp = meta.trust?.checkpoint;
  const count = (s: string) => report.results.filter((r) => r.status === s).length;
  const v = verifiedDetection(report.detection, report.results);
  // Numbers and the verifier's own words: nothing from an input.
  const table = detectionTable(report.detection, v);
  // The table's note says what the verified figures assume: the sentence under it does not.
  const caught = detectionSentence(report.detection, v, { assumptionSaid: table.note !== null });
  const lines = [
    `# bitaudit audit report: ${report.verdict}`,
    "",
    escapeMarkdown(meta.meaning),
    "",
    `- audit id: ${escapeMarkdown(report.auditId)}`,
    `- claim log: \`${report.logId}\`, ${
      countNoun(report.population, "record")
    }, Merkle root \`${report.root}\``,
    d === undefined
      ? `- public randomness: round ${report.round}, \`${report.randomness}\` (NOT a verified beacon: stated by the inspector)`
      : `- public randomness: drand \`${d.beaconId}\` round ${d.round} (chain \`${d.chainHash}\`, ${d.scheme}, published ${d.roundTime}), BLS signature verified; randomness SHA-256(signature) = \`${report.randomness}\``,
    cp === undefined
      ? "- commitment: no signed checkpoint (the log root is the inspector's word)"
      : `- commitment: checkpoint \`${_plain(cp.origin)}\` of ${
        countNoun(cp.treeSize, "record")
      } signed by prover key \`${
        cp.proverKeyId.slice(0, 16)
      }\` at ${cp.signedAt} (the prover's stated time)`,
    meta.trust?.announcement === undefined
      ? "- sample not pre-committed: no announcement fixed the audit id and round in advance"
      : meta.trust.announcement.timestamp === undefined
      ? "- announced: the audit id, k, checkpoint and round were signed at the inspector's stated time only (announcement in the attestation, no timestamp: that it came before the round is the inspector's word)"
      : "- announced: the audit id, k, checkpoint and round were signed, with an RFC 3161 timestamp stating a time before the round (announcement in the attestation; this audit did not check the time-stamp authority against a pinned one, so any authority's token reads so: `check --trust-root` verifies it against the authorities the trust root pins)",
    `- seed: \`${report.seed}\` (${report.seedDerivation}); sample: ${
      countNoun(report.selected.length, "record")
    } (${report.algorithm})`,
    `- results: ${count("PASS")} PASS, ${count("FAIL")} FAIL, ${
      count("NOT_VERIFIED")
    } NOT_VERIFIED`,
    ...(report.requireEvidence === undefined ? [] : [
      `- evidence required: a record that matched but rests on a component known less well than ${report.requireEvidence} is NOT_VERIFIED (\`--require-evidence\`, recorded in the verdict)`,
    ]),
    ...(report.maxRecordProducts === undefined ? [] : [
      `- budget: a record predicted to take more than ${
        budgetText(report.maxRecordProducts)
      } products to recompute is NOT_VERIFIED before anything is computed (\`--max-record-products\`, recorded in the verdict)`,
    ]),
    `- verified at ${meta.timeVerified} with the ${meta.engine} engine; signed by ${
      meta.keyids.map((k) => `\`${k.slice(0, 16)}\``).join(", ")
    }`,
    "",
    "## Detection",
    "",
    `| ${table.header.join(" | ")} |`,
    `|${"---|".repeat(table.header.length)}`,
    ...table.rows.map((r) => `| ${r.join(" | ")} |`),
    "",
    ...(table.note === null ? [] : [table.note, ""]),
    ...(caught === null ? [] : [caught, ""]),
    "## Sampled records",
    "",
    "| index | status | reason | SFU functions (validation status) | weakest evidence |",
    "|---|---|---|---|---|",
    ...report.results.map((r) =>
      `| ${r.index} | ${r.status} | ${escapeMarkdown(r.reason)} | ${
        r.sfu === undefined || r.sfu.length === 0
          ? "none"
          : escapeMarkdown(r.sfu.map((u) => `${u.fn} ${u.status}`).join(", "))
      } | ${escapeMarkdown(evidenceCell(r.evidence))} |`
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
        lines.push(
          `- first diverging stage of the layer chain: layer ${v.layer}, ${v.stage}. ${
            escapeMarkdown(layerStackCaption(v))
          }`,
        );
      }
      lines.push(
        ...r.steps.map((s) =>
          `- ${s.ok ? "ok" : "**stopped**"} ${escapeMarkdown(s.step)}: ${escapeMarkdown(s.detail)}`
        ),
        "",
      );
    }
  }
  lines.push("## Assets used", "", "| asset | sha256 |", "|---|---|");
  lines.push(...Object.entries(meta.assets).map(([p, d]) => `| ${p} | \`${d}\` |`), "");
  return lines.join("\n");
}

/** Input text shown in the report: only printable ASCII without Markdown code delimiters. */
function _plain(text: string): string {
  return text.replace(/[^\x21-\x5f\x61-\x7e]/g, "?");
}
