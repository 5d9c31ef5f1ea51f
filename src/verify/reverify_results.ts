/**
 * Auditing the auditors: before signing a merged audit, the inspector recomputes a random share
 * of the results its workers returned and requires each to be identical, bit for bit, to the
 * worker's. The share is drawn with a seed the workers cannot know (fresh randomness of the
 * merging process), so a worker that returns results it did not compute is caught with the
 * probability of the share; any disagreement stops the merge and names the worker's key and the
 * first field that differs. Every result that FAILs a record on a committed input is recomputed
 * as well, whatever the share: that FAIL rests on the worker's copy of the blobs, and an
 * incomplete copy must not have the inspector sign it against the prover. The whole result is
 * compared, not only its status: how well each component it rests on is known (its evidence
 * levels, which a `check --require-evidence` policy reads) is as much the worker's word as its
 * status, and the merge cannot derive it without recomputing the record (see
 * `docs/inspector.md`).
 *
 * @module
 */
import { canonicalJson, type ClaimLog } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import type { AuditPlan } from "./audit_plan.ts";
import type { MergedAudit } from "./merge_item_results.ts";
import type { RecordResult } from "./record_result.ts";
import { resultDifference } from "./result_difference.ts";
import { sampleIndices } from "./sample_indices.ts";
import { type WorkContext, workItem } from "./work_item.ts";

/**
 * How many returned results a `--reverify` value asks for: a whole number, or a fraction in
 * (0, 1] of the returned results (rounded up).
 *
 * @param text the value as typed (`"5"`, `"0.25"`)
 * @param returned results that workers returned
 * @returns the count, at most `returned`
 * @throws {RangeError} for anything else
 * @example
 * ```ts
 * import { reverifyCount } from "./reverify_results.ts";
 * if (reverifyCount("0.25", 10) !== 3 || reverifyCount("50", 10) !== 10) throw new Error();
 * ```
 */
export function reverifyCount(text: string, returned: number): number {
  if (/^\d{1,9}$/.test(text)) return Math.min(Number(text), returned);
  if (/^0?\.\d{1,9}$|^1(\.0{1,9})?$/.test(text) && Number(text) > 0) {
    return Math.min(Math.ceil(Number(text) * returned), returned);
  }
  throw new RangeError(
    `'${text.slice(0, 32)}' is neither a count (up to 9 digits) nor a fraction in (0, 1] ` +
      "written with at most 9 decimals (0.05, 1.0)",
  );
}

/**
 * Recomputes a seeded random share of a merged audit's returned results and compares.
 *
 * @param ctx the merging inspector's own recomputation context
 * @param o the `plan` and its `planDigest`, the `log`, the `merged` audit, how many results to
 *   recompute (`count`), the 32-byte `seed` that picks them, `onProgress(done, total)`, and
 *   `rerun`: how the caller's command has an item run again, said where a worker's blob copy is
 *   blamed; every result that FAILs on a committed input is recomputed too
 *   ({@link committedInputResults})
 * @returns the merged audit with `reverified` (log indices, in selection order)
 * @throws {InputError} `MERGE_REVERIFY_MISMATCH` naming the record and the worker key (and, where
 *   the worker blamed a committed input this inspector's blobs hold, the worker's blob copy)
 * @example
 * ```ts ignore
 * merged = await reverifyResults(ctx, { plan, planDigest, log, merged, count: 5, seed });
 * ```
 */
export async function reverifyResults(
  ctx: WorkContext,
  o: {
    plan: AuditPlan;
    planDigest: string;
    log: ClaimLog;
    merged: MergedAudit;
    count: number;
    seed: Uint8Array;
    onProgress?: ((done: number, total: number) => void) | undefined;
    rerun?: string | undefined;
  },
): Promise<MergedAudit> {
  const { plan, merged } = o;
  const returned = plan.items.map((_, j) => j).filter((j) => merged.workers[j] !== null);
  const count = Math.min(o.count, returned.length);
  const forced = new Set(committedInputResults(merged));
  if (count === 0 && forced.size === 0) return merged;
  const { sorted } = count === 0
    ? { sorted: [] }
    : sampleIndices(o.seed, { population: returned.length, k: count });
  const sampled = new Set(sorted.map((i) => returned[i]!));
  // The drawn share, and every result that blames a committed input (in plan order).
  const chosen = returned.filter((j) => sampled.has(j) || forced.has(j));
  let done = 0;
  for (const j of chosen) {
    const item = plan.items[j]!;
    const mine = await workItem(ctx, {
      planDigest: o.planDigest,
      log: o.log,
      item,
      maxRecordProducts: o.plan.maxRecordProducts,
    });
    const theirs = merged.report.results[j]!;
    if (_bytes(mine.result) !== _bytes(theirs)) {
      // The whole result, not only its status: the evidence levels, SFU statuses and trace are
      // the worker's word too. The first difference is named (a canonical difference that no
      // field shows, none: the bytes still differ).
      const why = resultDifference(theirs, mine.result, {
        fields: REVERIFIED_FIELDS,
        labels: ["worker", "here"],
      });
      const worker = merged.workers[j]!.slice(0, 16);
      if (theirs.obligation === "committed-input" && mine.result.reason !== theirs.reason) {
        // The worker judged the prover by its own copy of the blobs, which differs from this one.
        const here = mine.result.obligation === undefined
          ? `this inspector's blobs hold it (re-verifying gives ${mine.result.status})`
          : "re-verifying here FAILs it on another committed input";
        throw new InputError(
          "MERGE_REVERIFY_MISMATCH",
          `Cannot sign: worker ${worker} FAILed record ${item.index} on a committed input the ` +
            `prover did not produce, and ${here}: the worker's copy of the blobs is not this ` +
            "inspector's (incomplete or damaged); give it a whole copy and run the item again" +
            (o.rerun === undefined ? "" : `; ${o.rerun}`),
        );
      }
      if (mine.result.obligation === "committed-input" && theirs.obligation === undefined) {
        // This inspector's copy of the blobs lacks or damages an input the worker says it read:
        // either the copy is short, or no copy holds it and the worker's result is false. Which
        // one, only a whole copy tells (a blob is checked against its committed digest).
        throw new InputError(
          "MERGE_REVERIFY_MISMATCH",
          `Cannot sign: re-verifying record ${item.index} here FAILs it on a committed input ` +
            `(${mine.result.reason}), while worker ${worker} returned ${theirs.status}: either ` +
            "this inspector's blob folder (--blobs) is not the worker's (incomplete or " +
            "damaged; give the merge a whole copy of the blobs), or no copy holds that input " +
            "and the worker's result is false",
        );
      }
      throw new InputError(
        "MERGE_REVERIFY_MISMATCH",
        `Cannot sign: re-verifying record ${item.index} gives ${mine.result.status}, worker ${worker} returned ${theirs.status}${
          mine.result.status === theirs.status
            ? ` with other bytes${why === null ? "" : ` (${why})`}`
            : ""
        }; its results are not to be trusted`,
      );
    }
    o.onProgress?.(++done, chosen.length);
  }
  return { ...merged, reverified: chosen.map((j) => plan.items[j]!.index) };
}

/**
 * The returned results that FAIL a record on a committed input the prover did not produce (a
 * blob missing, mismatching, over its limit or unreadable): `reverifyResults` recomputes each of
 * them, whatever share is drawn. Such a FAIL rests on the worker's copy of the blobs, not on its
 * emulation: a copy that lacks a blob, or holds a damaged one, would otherwise have the inspector
 * sign the prover's FAIL.
 *
 * @param merged the merged audit
 * @returns plan positions (indices into `plan.items`), in plan order
 * @example
 * ```ts ignore
 * const blamed = committedInputResults(merged);
 * ```
 */
export function committedInputResults(merged: MergedAudit): number[] {
  return merged.report.results.flatMap((r, j) =>
    merged.workers[j] !== null && r.obligation === "committed-input" ? [j] : []
  );
}

/**
 * Every field of a record result, in the order a difference is looked for (a record, so that a
 * field added to results is a compile error here until it is compared).
 */
const REVERIFIED: Readonly<Record<keyof RecordResult, true>> = {
  index: true,
  digest: true,
  status: true,
  finding: true,
  obligation: true,
  claimed: true,
  recomputed: true,
  firstDifference: true,
  firstDivergence: true,
  evidence: true,
  sfu: true,
  reason: true,
  steps: true,
};
const REVERIFIED_FIELDS = Object.keys(REVERIFIED);

function _bytes(v: unknown): string {
  return new TextDecoder().decode(canonicalJson(v));
}
