/**
 * Reads a record result that crossed a machine boundary (a shard's results file, a pool
 * message) into a fresh, typed {@link RecordResult}: every field checked and copied, nothing
 * else kept, and the result consistent with its own status (`resultInconsistency`, trace
 * included).
 *
 * @module
 */
import { _MAX_COMPONENT, _MAX_REASON } from "./_stop.ts";
import { exactObject, type Shape } from "./_exact_object.ts";
import { HEX64 } from "./_shapes.ts";
import { arrayValue } from "../json_fields.ts";
import type {
  FailFinding,
  FirstDifference,
  LayerDivergence,
  RecordResult,
  RecordStatus,
  StepResult,
} from "./record_result.ts";
import { FAIL_FINDINGS, resultInconsistency } from "./result_consistency.ts";
import { MAX_DECODER_LAYERS, type SfuUse } from "../model/mod.ts";
import { type ComponentEvidence, EVIDENCE_LEVELS, type EvidenceLevel } from "../hardware/mod.ts";

/**
 * A pipeline step's name, an SFU function's or an SFU model's (`compare`, `rsqrt`,
 * `tesla-sfu-v1`): a short token, never free text.
 */
export const RESULT_NAME: RegExp = Object.freeze(/^[a-z0-9][a-z0-9_.:-]{0,63}$/);
/** Longest reason or step detail read: what a verifier clips it to, and the clipping note after it. */
export const MAX_RESULT_TEXT: number = _MAX_REASON + 48;
/** Longest evidence component read: what a verifier clips it to, and the clipping note after it. */
export const MAX_COMPONENT_TEXT: number = _MAX_COMPONENT + 48;

/** Bit pattern of one output element as results write it (`0x` and 4 to 8 hex digits). */
export const ELEMENT_BITS: RegExp = Object.freeze(/^0x[0-9a-f]{4,8}$/);

const STATUSES: Readonly<Record<RecordStatus, true>> = {
  PASS: true,
  FAIL: true,
  NOT_VERIFIED: true,
};
const SFU_STATUSES: Readonly<Record<SfuUse["status"], true>> = {
  "model-only": true,
  "histogram-matched": true,
  "spot-checked": true,
  "exhaustive-on-gpu": true,
  "ieee-exact": true,
};
/** Most pipeline steps, SFU uses and evidence entries one result may list. */
const MAX_LIST = 64;

/**
 * Parses one record result.
 *
 * @param v the parsed JSON value
 * @param options `kind` of the record's workload (the steps its PASS needs), and `bad`, which
 *   raises the caller's coded error
 * @returns a fresh typed result
 * @example
 * ```ts
 * import { parseRecordResult } from "./parse_record_result.ts";
 * const bad = (why: string): never => { throw new Error(why); };
 * const r = parseRecordResult({
 *   index: 0, digest: "11".repeat(32), status: "NOT_VERIFIED", reason: "unsupported",
 *   claimed: "22".repeat(32), recomputed: null, firstDifference: null,
 *   steps: [{ step: "support", ok: false, detail: "unsupported" }],
 * }, { bad });
 * if (r.status !== "NOT_VERIFIED") throw new Error();
 * ```
 */
export function parseRecordResult(
  v: unknown,
  options: { kind?: string; bad: (why: string) => never },
): RecordResult {
  const { bad } = options;
  const optional = ["sfu", "evidence", "firstDivergence", "obligation", "finding"];
  const o = exactObject(v, { where: "result", shape: RESULT, optional, bad });
  const status = o.status as string;
  if (!Object.hasOwn(STATUSES, status)) bad("'result.status' is unknown");
  const finding = o.finding as string | undefined;
  if (finding !== undefined && !Object.hasOwn(FAIL_FINDINGS, finding)) {
    bad("'result.finding' is unknown");
  }
  if (o.recomputed !== null && !HEX64.test(o.recomputed as string)) {
    bad("'result.recomputed' is not a sha256 hex digest");
  }
  // What a verifier writes is clipped (`_MAX_REASON`, with its note of what was left out): a
  // longer text comes from no verifier, and would swell the verdict that signs it.
  if ((o.reason as string).length > MAX_RESULT_TEXT) {
    bad(`'result.reason' is longer than ${MAX_RESULT_TEXT}`);
  }
  const steps = _list(o.steps, "result.steps", bad).map((s, i) => _step(s, i, bad));
  const r: RecordResult = {
    index: o.index as number,
    digest: o.digest as string,
    status: status as RecordStatus,
    reason: o.reason as string,
    claimed: o.claimed as string,
    recomputed: o.recomputed as string | null,
    firstDifference: o.firstDifference === null ? null : _difference(o.firstDifference, bad),
    steps,
    ...(o.sfu === undefined ? {} : {
      sfu: _list(o.sfu, "result.sfu", bad).map((s, i) => _sfu(s, i, bad)),
    }),
    ...(o.evidence === undefined ? {} : {
      evidence: _list(o.evidence, "result.evidence", bad).map((e, i) => _evidence(e, i, bad)),
    }),
    ...(o.firstDivergence === undefined
      ? {}
      : { firstDivergence: _divergence(o.firstDivergence, bad) }),
    ...(o.obligation === undefined ? {} : { obligation: "committed-input" as const }),
    ...(finding === undefined ? {} : { finding: finding as FailFinding }),
  };
  const why = resultInconsistency(r, {
    chain: true,
    ...(options.kind === undefined ? {} : { kind: options.kind }),
  });
  if (why !== null) bad(`the result contradicts itself: ${why}`);
  return r;
}

/**
 * A list of the result: a copy, each entry read once, without holes (`arrayValue`), so that a value
 * a caller built by hand (`[, , ,]`) is refused rather than kept as entries no check saw.
 */
function _list(v: unknown, where: string, bad: (why: string) => never): unknown[] {
  if (!Array.isArray(v)) return bad(`'${where}' must be an array`);
  if (v.length > MAX_LIST) bad(`'${where}' has more than ${MAX_LIST} entries`);
  return arrayValue(v, {
    path: where,
    fail: (path, why) => bad(`'${path}': ${why}`),
    max: MAX_LIST,
  });
}

function _step(v: unknown, i: number, bad: (why: string) => never): StepResult {
  const s = exactObject(v, { where: `result.steps[${i}]`, shape: STEP, bad });
  if ((s.detail as string).length > MAX_RESULT_TEXT) {
    bad(`'result.steps[${i}].detail' is longer than ${MAX_RESULT_TEXT}`);
  }
  return { step: s.step as string, ok: s.ok as boolean, detail: s.detail as string };
}

function _difference(v: unknown, bad: (why: string) => never): FirstDifference {
  const d = exactObject(v, { where: "result.firstDifference", shape: DIFF, bad });
  return {
    index: d.index as number,
    claimed: d.claimed as string,
    recomputed: d.recomputed as string,
  };
}

function _divergence(v: unknown, bad: (why: string) => never): LayerDivergence {
  const d = exactObject(v, { where: "result.firstDivergence", shape: DIVERGENCE, bad });
  const layer = d.layer as number;
  const layers = d.layers as number;
  // A chain is one entry per decoder layer, and no config the verifier reads has more.
  if (layers < 1 || layers > MAX_DECODER_LAYERS) {
    bad(`'result.firstDivergence.layers' is not in 1..${MAX_DECODER_LAYERS}`);
  }
  if (layer >= layers) bad("'result.firstDivergence.layer' >= layers");
  return { layer, stage: d.stage === "attention" ? "attention" : "mlp", layers };
}

function _sfu(v: unknown, i: number, bad: (why: string) => never): SfuUse {
  const s = exactObject(v, { where: `result.sfu[${i}]`, shape: SFU, bad });
  const status = s.status as string;
  if (!Object.hasOwn(SFU_STATUSES, status)) bad(`'result.sfu[${i}].status' is unknown`);
  return { fn: s.fn as string, model: s.model as string, status: status as SfuUse["status"] };
}

function _evidence(v: unknown, i: number, bad: (why: string) => never): ComponentEvidence {
  const e = exactObject(v, { where: `result.evidence[${i}]`, shape: EVIDENCE, bad });
  const level = e.level as string;
  if (!(EVIDENCE_LEVELS as readonly string[]).includes(level)) {
    bad(`'result.evidence[${i}].level' is unknown`);
  }
  if ((e.component as string).length > MAX_COMPONENT_TEXT) {
    bad(`'result.evidence[${i}].component' is longer than ${MAX_COMPONENT_TEXT}`);
  }
  return { component: e.component as string, level: level as EvidenceLevel };
}

const RESULT: Shape = {
  index: "count",
  digest: HEX64,
  status: "string",
  reason: "string",
  claimed: HEX64,
  recomputed: "string?",
  firstDifference: "object?",
  steps: "array",
  sfu: "array",
  evidence: "array",
  firstDivergence: "object",
  obligation: /^committed-input$/,
  finding: "string",
};
const DIFF: Shape = { index: "count", claimed: ELEMENT_BITS, recomputed: ELEMENT_BITS };
const DIVERGENCE: Shape = { layer: "count", stage: /^(attention|mlp)$/, layers: "count" };
const STEP: Shape = { step: RESULT_NAME, ok: "boolean", detail: "string" };
const SFU: Shape = { fn: RESULT_NAME, model: RESULT_NAME, status: "string" };
const EVIDENCE: Shape = { component: "string", level: "string" };
