/**
 * The layer stack of a FAIL with a layer chain, as a picture and in words: one row per decoder
 * layer (0 at the top), one column per stage in execution order (attention, then MLP), each cell
 * coloured by what the comparison of the hash chain found there: it matches (before the first
 * divergence), it is the first divergence, or it lies downstream and was not compared. Any
 * workload that reports a {@link LayerDivergence} gets the same picture; a workload of several
 * passes can name the pass in `step` (shown in the caption).
 *
 * @module
 */
import type { TopLevelSpec } from "vega-lite";
import type { LayerDivergence } from "../verify/mod.ts";
import { MAX_DECODER_LAYERS } from "../model/mod.ts";
import { escapeHtml as h } from "./escape_html.ts";
import { renderSvg, STATUS_COLOURS } from "./report_charts.ts";

/** The stages of one decoder layer, in execution order. */
export const LAYER_STAGES = ["attention", "mlp"] as const;

/** A first diverging cell of a layer stack, with the pass it happened in when there are several. */
export interface LayerStack extends LayerDivergence {
  /**
   * Which pass or step of the workload (e.g. `decode step 3`), for workloads of several passes;
   * shown in the caption, so escape it like any input-derived text.
   */
  readonly step?: string;
}

/** What the comparison found at one cell. */
export type LayerCellState = "matches" | "first divergence" | "downstream, not compared";

/** One cell of the stack. */
export interface LayerCell {
  /** Decoder layer index (0-based). */
  readonly layer: number;
  /** Stage within the layer. */
  readonly stage: (typeof LAYER_STAGES)[number];
  /** What the comparison found there. */
  readonly state: LayerCellState;
  /** Position in execution order (layer * stages + stage). */
  readonly order: number;
}

const STATES: readonly LayerCellState[] = [
  "matches",
  "first divergence",
  "downstream, not compared",
];
const STATE_SCALE = {
  domain: [...STATES],
  range: [STATUS_COLOURS.PASS, STATUS_COLOURS.FAIL, STATUS_COLOURS["not sampled"]],
};
const STAGE_NAME = { attention: "attention", mlp: "MLP" } as const;

/**
 * The cells of the stack in execution order, each with its state.
 *
 * @param d the first diverging cell and the stack's height
 * @returns `layers * 2` cells
 * @throws {RangeError} when `layers` is not a positive integer or is above `MAX_DECODER_LAYERS`
 *   (no decoder has more, and the cells of a taller stack may not fit in memory), `layer` is not
 *   in 0..`layers`-1, or `stage` is not a stage
 * @example
 * ```ts
 * import { layerStackCells } from "./layer_stack_chart.ts";
 * const cells = layerStackCells({ layer: 1, stage: "attention", layers: 2 });
 * if (cells.map((c) => c.state[0]).join("") !== "mmfd") throw new Error();
 * ```
 */
export function layerStackCells(d: LayerDivergence): LayerCell[] {
  const at = _position(d);
  if (d.layers > MAX_DECODER_LAYERS) {
    throw new RangeError(
      `Cannot draw the layer stack: more than ${MAX_DECODER_LAYERS} layers, got '${d.layers}'`,
    );
  }
  return Array.from({ length: d.layers * LAYER_STAGES.length }, (_, order) => ({
    layer: Math.floor(order / LAYER_STAGES.length),
    stage: LAYER_STAGES[order % LAYER_STAGES.length]!,
    state: STATES[Math.sign(order - at) + 1]!,
    order,
  }));
}

/**
 * The picture's statement in plain words (also the SVG's description).
 *
 * @param d the first diverging cell, the stack's height and optionally the pass
 * @returns one or two sentences
 * @throws {RangeError} as {@link layerStackCells}
 * @example
 * ```ts
 * import { layerStackCaption } from "./layer_stack_chart.ts";
 * const s = layerStackCaption({ layer: 7, stage: "mlp", layers: 8 });
 * if (!s.startsWith("Layer 7's MLP output is the first that differs; layers 0-6 and layer 7's attention match bit for bit.")) throw new Error(s);
 * ```
 */
export function layerStackCaption(d: LayerStack): string {
  const at = _position(d);
  const first = `layer ${d.layer}'s ${STAGE_NAME[d.stage]} output is the first that differs`;
  const earlier = d.layer === 0 ? "" : d.layer === 1 ? "layer 0" : `layers 0-${d.layer - 1}`;
  const before = d.stage === "attention"
    ? (earlier === "" ? "" : `${earlier} ${d.layer === 1 ? "matches" : "match"} bit for bit`)
    : earlier === ""
    ? `layer 0's attention matches bit for bit`
    : `${earlier} and layer ${d.layer}'s attention match bit for bit`;
  const later = d.layers * LAYER_STAGES.length - at - 1;
  const last = `layer ${d.layers - 1}'s ${STAGE_NAME[LAYER_STAGES.at(-1)!]}`;
  const after = later === 0
    ? `It is the last stage of the ${d.layers}-layer stack.`
    : later === 1
    ? `The one stage after it, ${last}, is downstream and was not compared.`
    : `The ${later} stages after it, through ${last}, are downstream and were not compared.`;
  const lead = d.step === undefined ? _capital(first) : `In ${d.step}, ${first}`;
  return `${lead}${before === "" ? ", the first stage of the stack" : `; ${before}`}. ${after}`;
}

/**
 * The stack as a grid chart: compact rows (11 px from 25 layers, 5 px with labels every 8th
 * layer from 97), the first divergence also marked in words where the cell is tall enough.
 *
 * @param d the first diverging cell and the stack's height
 * @returns the specification (its title names the cell; no input-derived text)
 * @throws {RangeError} as {@link layerStackCells}
 * @example
 * ```ts
 * import { layerStackChart } from "./layer_stack_chart.ts";
 * const s = layerStackChart({ layer: 0, stage: "mlp", layers: 36 });
 * if (s.title !== "Layer stack (36 layers): first difference at layer 0, MLP") throw new Error();
 * ```
 */
export function layerStackChart(d: LayerDivergence): TopLevelSpec {
  const values = layerStackCells(d).map((c) => ({
    ...c,
    stage: STAGE_NAME[c.stage],
    label: `layer ${c.layer} ${STAGE_NAME[c.stage]}: ${c.state}`,
  }));
  const row = d.layers <= 24 ? 18 : d.layers <= 96 ? 11 : 5;
  const every = row < 11 ? 8 : 1;
  const shown = values.filter((v) =>
    v.stage === "MLP" && (v.layer % every === 0 || v.layer === d.layer)
  );
  const x = { field: "stage", type: "nominal", sort: null, title: null } as const;
  const y = { field: "layer", type: "ordinal", sort: "ascending" } as const;
  return {
    title: `Layer stack (${d.layers} layers): first difference at layer ${d.layer}, ${
      STAGE_NAME[d.stage]
    }`,
    width: { step: 84 },
    height: { step: row },
    data: { values },
    layer: [
      {
        mark: { type: "rect", stroke: "white", strokeWidth: row < 11 ? 0.5 : 1 },
        encoding: {
          x: { ...x, axis: { orient: "top", labelAngle: 0, domain: false, ticks: false } },
          y: {
            ...y,
            title: "layer",
            axis: { values: shown.map((v) => v.layer), labelFontSize: row < 18 ? 9 : 11 },
          },
          color: {
            field: "state",
            type: "nominal",
            scale: STATE_SCALE,
            title: "comparison",
            legend: { labelLimit: 0 },
          },
          description: { field: "label" },
        },
      },
      ...(row < 11 ? [] : [
        {
          transform: [{ filter: { field: "state", equal: "first divergence" } }],
          mark: { type: "text" as const, color: "white", fontSize: row < 18 ? 9 : 11 },
          encoding: { x, y, text: { value: "differs" } },
        },
      ]),
    ],
  };
}

/**
 * The layer stack of one FAIL as a figure: the chart, labelled for assistive technology with its
 * title and statement, and the same statement as the caption. A stack taller than any decoder
 * (`MAX_DECODER_LAYERS`) gets the caption alone: its cells are not drawn.
 *
 * @param d the first diverging cell, the stack's height and optionally the pass (escaped here)
 * @returns the `<figure>` element as text
 * @throws {RangeError} when the cell is not in the stack
 * @example
 * ```ts
 * import { layerStackFigure } from "./layer_stack_chart.ts";
 * const html = await layerStackFigure({ layer: 1, stage: "attention", layers: 2 });
 * if (!html.includes("<figcaption>Layer 1&#39;s attention output is the first that differs")) throw new Error();
 * ```
 */
export async function layerStackFigure(d: LayerStack): Promise<string> {
  const caption = layerStackCaption(d);
  if (d.layers > MAX_DECODER_LAYERS) {
    return `<figure class="layers"><figcaption>${h(caption)}</figcaption></figure>`;
  }
  const spec = layerStackChart(d);
  const svg = await renderSvg(spec, { title: String(spec.title), description: caption });
  return `<figure class="layers">${svg}<figcaption>${h(caption)}</figcaption></figure>`;
}

/** Position of the diverging cell in execution order, after checking the input. */
function _position(d: LayerDivergence): number {
  if (!Number.isSafeInteger(d.layers) || d.layers < 1) {
    throw new RangeError(`Cannot draw the layer stack: layers must be >= 1, got '${d.layers}'`);
  }
  if (!Number.isSafeInteger(d.layer) || d.layer < 0 || d.layer >= d.layers) {
    throw new RangeError(
      `Cannot draw the layer stack: layer must be in 0..${d.layers - 1}, got '${d.layer}'`,
    );
  }
  const stage = LAYER_STAGES.indexOf(d.stage);
  if (stage < 0) {
    throw new RangeError(`Cannot draw the layer stack: unknown stage '${String(d.stage)}'`);
  }
  return d.layer * LAYER_STAGES.length + stage;
}

function _capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
