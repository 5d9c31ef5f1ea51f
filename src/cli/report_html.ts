/**
 * The audit report as a self-contained HTML page (`report.html`, beside `report.md`, same
 * content): the verdict in plain words, what was sampled against the population, results per
 * workload kind, the detection probability against k with the audit's k and its verified records
 * marked (beside the signed figures, what the verified records catch), every sampled
 * record, each failure's first difference (with a picture of the layer stack where a layer chain
 * names the first diverging layer and stage), and the assets used. Charts are inline SVG rendered
 * by Vega; every string from an input goes through `escapeHtml`; no script, no network.
 *
 * @module
 */
import {
  type AuditReport,
  budgetText,
  detectionCurve,
  evidenceCell,
  type KindCounts,
  type RecordResult,
} from "../verify/mod.ts";

import { detectionSentence, trustSentences, verifiedDetection } from "../web/mod.ts";
import { detectionTable } from "./detection_table.ts";
import { escapeHtml as h } from "./escape_html.ts";
import { layerStackFigure } from "./layer_stack_chart.ts";
import { detectionChart, kindChart, renderSvg, sampleChart } from "./report_charts.ts";
import { REPORT_CSS } from "./report_css.ts";
import type { TrustInputs } from "./trust_inputs.ts";
import { countNoun } from "./count_noun.ts";

/** What the report needs besides the audit report. */
export interface ReportHtmlMeta {
  /** Signer key ids. */
  readonly keyids: readonly string[];
  /** Verification time (RFC 3339). */
  readonly timeVerified: string;
  /** Engine that recomputed. */
  readonly engine: string;
  /** Asset path -> sha256. */
  readonly assets: Readonly<Record<string, string>>;
  /** Sampled results per workload kind (`resultsByKind` over the log). */
  readonly kinds: readonly KindCounts[];
  /**
   * The verdict in plain words as the signed statement has it (`verdictMeaning` of the signed
   * predicate: who recomputed the results, the inspector or worker keys whose word it merged).
   */
  readonly meaning: string;
  /** Where the randomness and the commitment came from (absent: typed randomness, no checkpoint). */
  readonly trust?: TrustInputs;
}

const cell = (s: string | number) => `<td>${h(String(s))}</td>`;
const row = (cells: readonly (string | number)[]) => `<tr>${cells.map(cell).join("")}</tr>`;
const table = (caption: string, head: readonly string[], rows: readonly string[]) =>
  `<table><caption>${h(caption)}</caption><thead><tr>${
    head.map((c) => `<th scope="col">${h(c)}</th>`).join("")
  }</tr></thead><tbody>${rows.join("")}</tbody></table>`;

/**
 * Renders the report page.
 *
 * @param report the audit report
 * @param meta signers, time, engine, asset digests and per-kind counts
 * @returns the HTML document
 * @example
 * ```ts ignore
 * const html = await reportHtml(report, { keyids, timeVerified, engine, assets, kinds });
 * ```
 */
export async function reportHtml(report: AuditReport, meta: ReportHtmlMeta): Promise<string> {
  const k = report.selected.length;
  const n = (s: string) => report.results.filter((r) => r.status === s).length;
  const v = verifiedDetection(report.detection, report.results);
  const detection = detectionTable(report.detection, v);
  // The table's note says what the verified figures assume: the sentence under it does not.
  const caught = detectionSentence(report.detection, v, {
    assumptionSaid: detection.note !== null,
  });
  const { verified } = v;
  const curve = detectionCurve(report.population, {
    k,
    rates: report.detection.levels.map((l) => l.pFalse),
  });
  const [sampleSvg, kindSvg, detectionSvg, failures] = await Promise.all([
    renderSvg(sampleChart(report.population, meta.kinds)),
    renderSvg(kindChart(meta.kinds)),
    renderSvg(detectionChart(curve, { sampled: k, verified })),
    _failures(report),
  ]);
  const facts: [string, string][] = [
    ["audit id", report.auditId],
    [
      "claim log",
      `${report.logId}, ${countNoun(report.population, "record")}, Merkle root ${report.root}`,
    ],
    ["public randomness", `round ${report.round}, ${report.randomness}`],
    ["seed", `${report.seed} (${report.seedDerivation})`],
    ["sample", `${countNoun(k, "record")} (${report.algorithm})`],
    ["results", `${n("PASS")} PASS, ${n("FAIL")} FAIL, ${n("NOT_VERIFIED")} NOT_VERIFIED`],
    ...(report.requireEvidence === undefined
      ? []
      : [["evidence required of a PASS", report.requireEvidence] as [string, string]]),
    ...(report.maxRecordProducts === undefined ? [] : [[
      "budget a record",
      `${budgetText(report.maxRecordProducts)} products (--max-record-products)`,
    ] as [string, string]]),
    ["verified", `at ${meta.timeVerified} with the ${meta.engine} engine`],
    ["signed by", meta.keyids.join(", ")],
  ];
  const body = [
    `<h1>bitaudit audit report: ${h(report.verdict)}</h1>`,
    `<p class="verdict ${h(report.verdict)}">${h(meta.meaning)}</p>`,
    `<dl>${facts.map(([d, v]) => `<dt>${h(d)}</dt><dd><code>${h(v)}</code></dd>`).join("")}</dl>`,
    `<ul class="trust">${_trust(report, meta.trust).map((t) => `<li>${h(t)}</li>`).join("")}</ul>`,
    `<h2>What was checked</h2>`,
    _figure(sampleSvg, _sampledCaption(report)),
    _figure(kindSvg, "Sampled records per workload kind, by result."),
    table(
      "Sampled records per workload kind",
      ["kind", "PASS", "FAIL", "NOT_VERIFIED"],
      meta.kinds.map((x) => row([x.kind, x.PASS, x.FAIL, x.NOT_VERIFIED])),
    ),
    `<h2>Detection</h2>`,
    _figure(
      detectionSvg,
      `Probability that a sample of k records catches at least one false record, if the given share of the log were false (solid: binomial, seed paper eq. 1; dashed: exact hypergeometric for N = ${report.population}). The dotted line marks this audit's k = ${k} sampled records${
        verified === k
          ? ", all verified."
          : `; the grey line the ${verified} of them verified, where the curves read what this audit could catch: a NOT_VERIFIED record was compared with nothing.`
      }`,
    ),
    table(
      verified === k
        ? "Detection statement (signed)"
        : `Detection statement (signed, counting all ${k} sampled) and what the ${verified} verified catch`,
      [...detection.header],
      detection.rows.map((r) => row([...r])),
    ),
    ...(detection.note === null ? [] : [`<p>${h(detection.note)}</p>`]),
    ...(caught === null ? [] : [`<p>${h(caught)}</p>`]),
    `<h2>Sampled records</h2>`,
    table(
      "Sampled records in selection order",
      ["index", "status", "reason", "SFU functions (validation status)", "weakest evidence"],
      report.results.map((r) =>
        row([
          r.index,
          r.status,
          r.reason,
          r.sfu === undefined || r.sfu.length === 0
            ? "none"
            : r.sfu.map((u) => `${u.fn} ${u.status}`).join(", "),
          evidenceCell(r.evidence),
        ])
      ),
    ),
    ...failures,
    `<h2>Assets used</h2>`,
    table("Assets used", ["asset", "sha256"], Object.entries(meta.assets).map((e) => row(e))),
  ];
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>bitaudit audit report: ${h(report.verdict)} (${h(report.auditId)})</title>`,
    `<style>${REPORT_CSS}</style></head>`,
    `<body><main>${body.join("\n")}</main></body></html>`,
    "",
  ].join("\n");
}

function _trust(report: AuditReport, trust: TrustInputs | undefined): string[] {
  // An audit has no trust root: its announcement token was read with no pinned authority.
  return trustSentences({
    round: report.round,
    ...(trust?.drand === undefined ? {} : { drand: trust.drand }),
    ...(trust?.checkpoint === undefined ? {} : { checkpoint: trust.checkpoint }),
    ...(trust?.announcement === undefined ? {} : { announcement: trust.announcement }),
  }, { tsaChecked: false });
}

/**
 * How many records were sampled, and how many of them recomputed: a record refused before its
 * recomputation (a contradiction, a missing input, an unsupported configuration) was not.
 */
function _sampledCaption(report: AuditReport): string {
  const k = report.selected.length;
  const recomputed = report.results.filter((r) => r.recomputed !== null).length;
  const sampled = `${k} of the ${countNoun(report.population, "record")} ${
    k === 1 ? "was" : "were"
  } sampled`;
  return recomputed === k
    ? `${sampled} and recomputed.`
    : `${sampled}; ${recomputed} of them ${recomputed === 1 ? "was" : "were"} recomputed.`;
}

function _figure(svg: string, caption: string): string {
  return `<figure>${svg}<figcaption>${h(caption)}</figcaption></figure>`;
}

async function _failures(report: AuditReport): Promise<string[]> {
  const failed = report.results.filter((r) => r.status === "FAIL");
  if (failed.length === 0) return [];
  return ["<h2>Failures</h2>", ...await Promise.all(failed.map(_failure))];
}

async function _failure(r: RecordResult): Promise<string> {
  const items = [`claimed fingerprint <code>${h(r.claimed)}</code>`];
  if (r.recomputed) items.push(`recomputed fingerprint <code>${h(r.recomputed)}</code>`);
  if (r.firstDifference) {
    const d = r.firstDifference;
    items.push(
      `<strong>first differing element ${d.index}</strong>: claimed <code>${
        h(d.claimed)
      }</code>, recomputed <code>${h(d.recomputed)}</code>`,
    );
  }
  const v = r.firstDivergence;
  if (v) {
    items.push(
      `<strong>first diverging stage of the layer chain: layer ${v.layer}, ${h(v.stage)}</strong>`,
    );
  }
  items.push(
    ...r.steps.map((s) =>
      `${s.ok ? "ok" : "<strong>stopped</strong>"} ${h(s.step)}: ${h(s.detail)}`
    ),
  );
  return `<h3>record ${r.index} (<code>${h(r.digest.slice(0, 16))}…</code>)</h3><ul>${
    items.map((i) => `<li>${i}</li>`).join("")
  }</ul>${v ? await layerStackFigure(v) : ""}`;
}
