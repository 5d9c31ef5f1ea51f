/**
 * The audit report's charts: Vega-Lite specifications compiled to Vega and rendered to SVG
 * without a browser (vega's headless `View` with `renderer: "none"` and `toSVG`). The SVG text is
 * produced and escaped by vega's renderer; nothing here draws paths by hand.
 *
 * @module
 */
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { DetectionPoint, KindCounts } from "../verify/mod.ts";
import { escapeHtml } from "./escape_html.ts";
import { countNoun } from "./count_noun.ts";

/** Colours of the record statuses (shared by the charts and the report's legend text). */
export const STATUS_COLOURS = {
  PASS: "#1a7f37",
  FAIL: "#cf222e",
  NOT_VERIFIED: "#bf8700",
  "not sampled": "#d0d7de",
} as const;

const STATUS_SCALE = {
  domain: Object.keys(STATUS_COLOURS),
  range: Object.values(STATUS_COLOURS),
};
/** The same colours without `not sampled` (per-kind counts are of sampled records only). */
const SAMPLED_SCALE = {
  domain: STATUS_SCALE.domain.slice(0, 3),
  range: STATUS_SCALE.range.slice(0, 3),
};

/** Accessible name and description of a chart (any text: escaped when written). */
export interface SvgLabel {
  /** Short name (the SVG's `<title>`). */
  readonly title: string;
  /** What the chart shows, in words (the SVG's `<desc>`). */
  readonly description: string;
}

/**
 * Renders a Vega-Lite specification to SVG text. Vega's headless SVG has no accessible name of
 * its own (a top-level `description` is only used in a browser's DOM view); with `label`, the root
 * element becomes `role="img"` with a `<title>` and a `<desc>` as its first children.
 *
 * @param spec the specification (data inline)
 * @param label accessible name and description (optional)
 * @returns the `<svg>` element as text
 * @example
 * ```ts
 * import { renderSvg } from "./report_charts.ts";
 * const spec = { data: { values: [{ x: 1 }] }, mark: "point" as const, encoding: { x: { field: "x", type: "quantitative" as const } } };
 * const svg = await renderSvg(spec, { title: "one point", description: "x = 1" });
 * if (!svg.startsWith('<svg role="img" ') || !svg.includes("<title>one point</title>")) throw new Error();
 * ```
 */
export async function renderSvg(spec: TopLevelSpec, label?: SvgLabel): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  let svg: string;
  try {
    svg = await view.toSVG();
  } finally {
    view.finalize();
  }
  if (label === undefined) return svg;
  // Vega writes the root tag first, its attributes free of ">" (numbers and fixed names).
  const end = svg.indexOf(">");
  if (!svg.startsWith("<svg ") || end < 0) throw new TypeError("Cannot label the SVG: no root tag");
  return `<svg role="img" ${svg.slice(5, end + 1)}<title>${escapeHtml(label.title)}</title>` +
    `<desc>${escapeHtml(label.description)}</desc>${svg.slice(end + 1)}`;
}

/**
 * One horizontal bar for the whole log: sampled records by status, and the records not sampled.
 *
 * @param population records in the log
 * @param kinds sampled results per kind
 * @returns the specification
 * @example
 * ```ts
 * import { sampleChart } from "./report_charts.ts";
 * const s = sampleChart(10, [{ kind: "gemm", PASS: 2, FAIL: 1, NOT_VERIFIED: 0 }]);
 * if (s.title !== "3 of 10 records sampled") throw new Error(String(s.title));
 * ```
 */
export function sampleChart(population: number, kinds: readonly KindCounts[]): TopLevelSpec {
  const sum = (s: "PASS" | "FAIL" | "NOT_VERIFIED") => kinds.reduce((a, k) => a + k[s], 0);
  const sampled = sum("PASS") + sum("FAIL") + sum("NOT_VERIFIED");
  const values = [
    { status: "PASS", records: sum("PASS") },
    { status: "FAIL", records: sum("FAIL") },
    { status: "NOT_VERIFIED", records: sum("NOT_VERIFIED") },
    { status: "not sampled", records: population - sampled },
  ].map((v, order) => ({ ...v, order, label: `${v.status}: ${countNoun(v.records, "record")}` }));
  return {
    title: `${sampled} of ${countNoun(population, "record")} sampled`,
    width: 560,
    height: 36,
    data: { values },
    mark: "bar",
    encoding: {
      x: { field: "records", type: "quantitative", stack: "zero", title: "records in the log" },
      color: { field: "status", type: "nominal", scale: STATUS_SCALE, title: "status" },
      order: { field: "order" },
      description: { field: "label" },
    },
  };
}

/**
 * Sampled records per workload kind, stacked by status.
 *
 * @param kinds sampled results per kind
 * @returns the specification
 * @example
 * ```ts
 * import { kindChart } from "./report_charts.ts";
 * const s = kindChart([{ kind: "gemm", PASS: 2, FAIL: 1, NOT_VERIFIED: 0 }]);
 * if ((s as { data: { values: unknown[] } }).data.values.length !== 3) throw new Error();
 * ```
 */
export function kindChart(kinds: readonly KindCounts[]): TopLevelSpec {
  const statuses = ["PASS", "FAIL", "NOT_VERIFIED"] as const;
  const values = kinds.flatMap((k) =>
    statuses.map((status, order) => ({
      kind: k.kind,
      status,
      records: k[status],
      order,
      label: `${k.kind}, ${status}: ${countNoun(k[status], "record")}`,
    }))
  );
  return {
    title: "Sampled records per workload kind",
    width: 560,
    data: { values },
    mark: "bar",
    encoding: {
      y: { field: "kind", type: "nominal", title: null, sort: null },
      x: { field: "records", type: "quantitative", stack: "zero", title: "sampled records" },
      color: { field: "status", type: "nominal", scale: SAMPLED_SCALE, title: "status" },
      order: { field: "order" },
      description: { field: "label" },
    },
  };
}

/**
 * Detection probability against k, one line per misreporting rate and method, with the audit's
 * k marked, and beside it, when some sampled records were NOT_VERIFIED (compared with nothing,
 * they catch nothing), the count of those verified: the curves there read what the audit could
 * catch.
 *
 * @param curve points from `detectionCurve`
 * @param marks `sampled`: the audit's k; `verified`: how many of them were verified (PASS or FAIL)
 * @returns the specification
 * @example
 * ```ts
 * import { detectionChart } from "./report_charts.ts";
 * const s = detectionChart([{ k: 0, rate: "0.01", method: "binomial", probability: 0 }], {
 *   sampled: 5,
 *   verified: 4,
 * });
 * if (!String(s.title).includes("k = 5 sampled, 4 verified")) throw new Error(String(s.title));
 * ```
 */
export function detectionChart(
  curve: readonly DetectionPoint[],
  marks: { readonly sampled: number; readonly verified: number },
): TopLevelSpec {
  const k = marks.sampled;
  const some = marks.verified !== k;
  // The verified count is left of k: its label is written to the left of its line.
  const rule = (
    at: number,
    o: { label: string; dash: number[]; color: string; left: boolean },
  ) => ({
    data: { values: [{ k: at, label: o.label }] },
    layer: [
      { mark: { type: "rule" as const, color: o.color, strokeDash: o.dash } },
      {
        mark: {
          type: "text" as const,
          align: o.left ? "right" as const : "left" as const,
          dx: o.left ? -4 : 4,
          dy: -6,
          y: 0,
          color: o.color,
        },
        encoding: { text: { field: "label" } },
      },
    ],
    encoding: { x: { field: "k", type: "quantitative" as const } },
  });
  return {
    title: `Probability of catching at least one false record (this audit: k = ${k}${
      some ? ` sampled, ${marks.verified} verified` : ""
    })`,
    width: 560,
    height: 300,
    layer: [
      {
        data: { values: curve.map((p) => ({ ...p, rate: `${Number(p.rate) * 100} % false` })) },
        mark: { type: "line", strokeWidth: 2 },
        encoding: {
          x: { field: "k", type: "quantitative", title: "records sampled (k)" },
          y: {
            field: "probability",
            type: "quantitative",
            title: "P(catch >= 1)",
            scale: { domain: [0, 1] },
          },
          color: { field: "rate", type: "nominal", title: "misreporting rate", sort: null },
          strokeDash: { field: "method", type: "nominal", title: "model" },
        },
      },
      rule(k, { label: `k = ${k}`, dash: [2, 2], color: "#24292f", left: false }),
      ...(some
        ? [rule(marks.verified, {
          label: `${marks.verified} verified`,
          dash: [],
          color: "#57606a",
          left: true,
        })]
        : []),
    ],
  };
}
