/**
 * The result of one work item as a worker hands it back: the record's result (exactly what the
 * verdict signs), the worker's identity and asset digests, and its timing. Encoded as one line of
 * RFC 8785 canonical JSON and read back strictly (every byte committed, the result consistent
 * with its status); between machines it travels signed by the worker that computed it
 * (`signItemResult` in `attest/`). Timing is informative: never compared. A pool worker's result
 * names the serve whose work order it answers (`serve`), so that signed bytes replayed on the
 * results stream cannot pass for an answer to a later serve; a shard's result (`audit work`)
 * names none. Every result states the budget a record its worker applied (`maxRecordProducts`,
 * absent for the default), as the plan or the work order gave it: a work order comes from the
 * NATS server, where anyone who can publish can send one with another budget, so a merge compares
 * it with the plan's.
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import { exactObject, readDocument, requireCanonical, type Shape } from "./_exact_object.ts";
import { HEX64, readBudget, SERVE_ID } from "./_shapes.ts";
import { parseRecordResult } from "./parse_record_result.ts";
import type { RecordResult } from "./record_result.ts";
import { WORKER_ENGINES } from "./verifier_engine.ts";

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
  /**
   * The id of the serve whose work order this answers (`audit serve`, echoed by the pool worker
   * from the order); absent on a shard's result (`audit work`), which no serve ordered. Signed
   * with the rest, never merged into the verdict.
   */
  readonly serve?: string;
  /**
   * The budget a record the worker applied (`AuditPlan.maxRecordProducts`, from the plan a shard
   * worker reads or the work order a pool worker takes); absent: the default,
   * `MAX_RECORD_PRODUCTS`, as in the plan (results of builds before this field applied the order's
   * budget too, and name none: the merge refuses them as another build's). Signed with the rest;
   * a merge admits only a result whose budget is the plan's.
   */
  readonly maxRecordProducts?: number;
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
  const o = exactObject(value, {
    where: "line",
    shape: TOP,
    optional: ["serve", "maxRecordProducts"],
    bad,
  });
  if (o.format !== ITEM_RESULT_FORMAT) bad(`format must be '${ITEM_RESULT_FORMAT}'`);
  const w = exactObject(o.verifier, { where: "verifier", shape: WORKER, bad });
  const t = exactObject(o.timing, {
    where: "timing",
    shape: { ms: "count", threads: "count" },
    bad,
  });
  // What a worker of this version can be: the engines a walker picks and Deno's version string.
  if (!WORKER_ENGINES.includes(w.engine as string)) {
    bad(`'verifier.engine' must be one of ${WORKER_ENGINES.map((e) => `'${e}'`).join(", ")}`);
  }
  if (!RUNTIME.test(w.runtime as string)) bad("'verifier.runtime' must be 'deno <version>'");
  const assets: Record<string, string> = {};
  for (const [path, digest] of Object.entries(o.assets as Record<string, unknown>)) {
    const dots = path.split("/").some((part) => part === "." || part === "..");
    if (!ASSET_PATH.test(path) || dots || typeof digest !== "string" || !HEX64.test(digest)) {
      bad("'assets' must map asset paths to sha256 hex digests");
    }
    Object.defineProperty(assets, path, { value: digest, enumerable: true });
  }
  const r: ItemResult = {
    format: ITEM_RESULT_FORMAT,
    plan: o.plan as string,
    item: o.item as string,
    ...(Object.hasOwn(o, "serve") ? { serve: o.serve as string } : {}),
    ...readBudget(o.maxRecordProducts, { where: "maxRecordProducts", bad }),
    result: parseRecordResult(o.result, { bad }),
    verifier: {
      version: w.version as string,
      engine: w.engine as string,
      runtime: w.runtime as string,
    },
    assets,
    timing: { ms: t.ms as number, threads: t.threads as number },
  };
  requireCanonical(line + "\n", { encode: () => encodeItemResult(r), bad });
  return r;
}

const ASSET_PATH = /^[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/;
/** The runtime a worker names: `deno` and its version (`Deno.version.deno`). */
const RUNTIME = /^deno [0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.-]{1,40})?$/;

const TOP: Shape = {
  format: "string",
  plan: HEX64,
  item: HEX64,
  serve: SERVE_ID,
  maxRecordProducts: "count",
  result: "object",
  verifier: "object",
  assets: "object",
  timing: "object",
};
const WORKER: Shape = { version: "string", engine: "string", runtime: "string" };
