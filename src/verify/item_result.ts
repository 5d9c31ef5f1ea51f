/**
 * The result of one work item as a worker hands it back: the record's result (exactly what the
 * verdict signs), the worker's identity and asset digests, and its timing. Signed by nobody: a
 * merge checks it against the plan and signs only the merged verdict. Timing is never signed.
 *
 * Encoded as one line of RFC 8785 canonical JSON; read back strictly (every byte committed).
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import { exactObject, readDocument, requireCanonical, type Shape } from "./_exact_object.ts";
import { HEX64 } from "./_shapes.ts";
import type { RecordResult } from "./record_result.ts";

/** Format tag of item results. */
export const ITEM_RESULT_FORMAT = "bitaudit/audit-item-result/v1";

/** Who computed a result. */
export interface WorkerInfo {
  /** bitaudit version. */
  readonly version: string;
  /** K-walk engine (`wasm` or `reference`). */
  readonly engine: string;
  /** Runtime, e.g. `deno 2.9.6`. */
  readonly runtime: string;
}

/** One worker's result for one plan item. */
export interface ItemResult {
  /** {@link ITEM_RESULT_FORMAT}. */
  readonly format: typeof ITEM_RESULT_FORMAT;
  /** SHA-256 of the plan file's bytes. */
  readonly plan: string;
  /** The item digest (from the plan). */
  readonly item: string;
  /** The record's result, as the verdict statement binds it. */
  readonly result: RecordResult;
  /** Who computed it. */
  readonly verifier: WorkerInfo;
  /** Path -> sha256 of every asset the worker had loaded when the item was done. */
  readonly assets: Readonly<Record<string, string>>;
  /**
   * Wall-clock milliseconds of the recomputation and the worker threads it had (informative: for
   * cost estimates; never signed or compared).
   */
  readonly timing: { readonly ms: number; readonly threads: number };
}

/**
 * Encodes an item result as one canonical JSON line (with its newline).
 *
 * @param r the result
 * @returns the line
 * @example
 * ```ts ignore
 * await file.write(new TextEncoder().encode(encodeItemResult(r)));
 * ```
 */
export function encodeItemResult(r: ItemResult): string {
  return new TextDecoder().decode(canonicalJson(r)) + "\n";
}

/**
 * The bytes two results of the same item must agree on: everything a verdict signs about it.
 *
 * @param r the result
 * @returns canonical JSON of the item digest and the record result
 * @example
 * ```ts ignore
 * if (resultBytes(a) !== resultBytes(b)) throw new Error("conflict");
 * ```
 */
export function resultBytes(r: ItemResult): string {
  return new TextDecoder().decode(canonicalJson({ item: r.item, result: r.result }));
}

/**
 * Parses one item result line strictly.
 *
 * @param line the line without its newline
 * @param where name for messages (file and line number)
 * @returns the result
 * @throws {InputError} `RESULT_INVALID` naming the first defect
 * @example
 * ```ts ignore
 * const r = parseItemResult(line, "results-0.jsonl:3");
 * ```
 */
export function parseItemResult(line: string, where: string): ItemResult {
  const { value, bad } = readDocument(line, {
    code: "RESULT_INVALID",
    action: `read result '${where}'`,
  });
  const o = exactObject(value, { where: "line", shape: TOP, bad });
  if (o.format !== ITEM_RESULT_FORMAT) bad(`format must be '${ITEM_RESULT_FORMAT}'`);
  exactObject(o.verifier, { where: "verifier", shape: WORKER, bad });
  exactObject(o.timing, { where: "timing", shape: { ms: "count", threads: "count" }, bad });
  for (const [path, digest] of Object.entries(o.assets as Record<string, unknown>)) {
    const dots = path.split("/").some((part) => part === "." || part === "..");
    if (!ASSET_PATH.test(path) || dots || typeof digest !== "string" || !HEX64.test(digest)) {
      bad("'assets' must map asset paths to sha256 hex digests");
    }
  }
  _recordResult(o.result, bad);
  requireCanonical(line + "\n", {
    encode: () => encodeItemResult(o as unknown as ItemResult),
    bad,
  });
  return o as unknown as ItemResult;
}

function _recordResult(v: unknown, bad: (why: string) => never): void {
  const optional = ["sfu", "firstDivergence", "obligation"];
  const r = exactObject(v, { where: "result", shape: RESULT, optional, bad });
  if (!["PASS", "FAIL", "NOT_VERIFIED"].includes(r.status as string)) bad("unknown status");
  if (r.recomputed !== null && !HEX64.test(r.recomputed as string)) bad("bad recomputed digest");
  if (r.firstDifference !== null) {
    exactObject(r.firstDifference, { where: "result.firstDifference", shape: DIFF, bad });
  }
  (r.steps as unknown[]).forEach((s, i) =>
    exactObject(s, { where: `result.steps[${i}]`, shape: STEP, bad })
  );
  if (r.firstDivergence !== undefined) {
    const d = exactObject(r.firstDivergence, {
      where: "result.firstDivergence",
      shape: DIVERGENCE,
      bad,
    });
    if ((d.layer as number) >= (d.layers as number)) {
      bad("'result.firstDivergence.layer' >= layers");
    }
  }
  if (r.obligation !== undefined && (r.obligation !== "committed-input" || r.status !== "FAIL")) {
    bad("'result.obligation' must be 'committed-input' on a FAIL");
  }
  if (r.sfu !== undefined) {
    if (!Array.isArray(r.sfu)) bad("'result.sfu' must be an array");
    (r.sfu as unknown[]).forEach((s, i) =>
      exactObject(s, { where: `result.sfu[${i}]`, shape: SFU, bad })
    );
  }
}

const HEX = /^[0-9a-f]{1,64}$/;
const ASSET_PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;

const TOP: Shape = {
  format: "string",
  plan: HEX64,
  item: HEX64,
  result: "object",
  verifier: "object",
  assets: "object",
  timing: "object",
};
const WORKER: Shape = { version: "string", engine: "string", runtime: "string" };
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
  firstDivergence: "object",
  obligation: "string",
};
const DIFF: Shape = { index: "count", claimed: HEX, recomputed: HEX };
const DIVERGENCE: Shape = { layer: "count", stage: /^(attention|mlp)$/, layers: "count" };
const STEP: Shape = { step: "string", ok: "boolean", detail: "string" };
const SFU: Shape = { fn: "string", model: "string", status: "string" };
