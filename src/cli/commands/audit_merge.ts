/**
 * `bitaudit audit merge`: put the results of an audit's shards together (every planned item
 * exactly one result; duplicates must agree bit for bit; a missing item is NOT_VERIFIED, so the
 * verdict is never PASSED without it) and sign the verdict exactly as `audit` does.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { VERSION } from "../../version.ts";
import type { SigningKey } from "../../attest/mod.ts";
import {
  type AuditPlan,
  type ItemResult,
  type MergedAudit,
  mergeItemResults,
  resultsByKind,
} from "../../verify/mod.ts";
import { loadSigningKey, prepareOutputDir } from "../load_inputs.ts";
import { loadPlanFile, timeFlag } from "../plan_inputs.ts";
import { readResultsFile } from "../read_results.ts";
import { reportVerdict } from "../report_verdict.ts";
import { writeVerdict } from "../write_verdict.ts";

/**
 * Builds the `audit merge` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { auditMergeCommand } from "./audit_merge.ts";
 * if (auditMergeCommand().name() !== "merge") throw new Error();
 * ```
 */
export function auditMergeCommand(): CommandUnknownOpts {
  return new Command("merge")
    .description(
      "merge the results files of a plan's shards, then write the signed attestation and report.md",
    )
    .argument("<results...>", "results files from `audit work`")
    .requiredOption("--plan <file>", "plan.json the results were computed from")
    .requiredOption("--key <files...>", "inspector private key(s) (PKCS#8 PEM); several co-sign")
    .requiredOption("--out <dir>", "folder for attestation.dsse.json and report.md")
    .option("--time <rfc3339>", "signing time recorded in the verdict (default: now)")
    .option("--json", "machine-readable output")
    .action(async (files, opts) => {
      const time = timeFlag(opts.time);
      const { plan, planDigest } = await loadPlanFile(opts.plan);
      const keys = await Promise.all(opts.key.map(loadSigningKey));
      const results: ItemResult[] = [];
      for (const f of files) results.push(...await readResultsFile(f));
      const done = await prepareOutputDir(opts.out, VERDICT_FILES);
      await finishMerge(
        done,
        () => mergeItemResults(plan, { planDigest, results, version: VERSION }),
        {
          plan,
          keys,
          out: opts.out,
          time,
          json: opts.json === true,
        },
      );
    });
}

/** The files every signed audit writes into its output folder. */
export const VERDICT_FILES: readonly string[] = [
  "attestation.dsse.json",
  "report.md",
  "report.html",
];

/**
 * The common end of `audit merge` and `audit serve`: merge, sign with the plan's workload kinds
 * for the report, say what was missing, print the verdict; the prepared output folder is kept on
 * success and removed on any failure.
 *
 * @param done the cleanup returned by `prepareOutputDir`
 * @param merge computes the merged audit (throws on conflicting duplicates)
 * @param o the plan, signing keys, output folder, signing time and output mode
 * @example
 * ```ts ignore
 * await finishMerge(done, () => merged, { plan, keys, out, time: undefined, json: false });
 * ```
 */
export async function finishMerge(
  done: (ok: boolean) => Promise<void>,
  merge: () => MergedAudit,
  o: {
    plan: AuditPlan;
    keys: readonly SigningKey[];
    out: string;
    time: string | undefined;
    json: boolean;
  },
): Promise<void> {
  let merged: MergedAudit;
  try {
    merged = merge();
    await writeVerdict(merged, {
      keys: o.keys,
      out: o.out,
      time: o.time,
      kinds: resultsByKind(
        merged.report.results,
        new Map(o.plan.items.map((i) => [i.index, i.kind])),
      ),
    });
    await done(true);
  } catch (e) {
    await done(false);
    throw e;
  }
  sayMerge(merged, { json: o.json });
  reportVerdict(merged.report, { out: o.out, json: o.json });
}

/**
 * Tells on stderr which items had no result and how many duplicates agreed (stdout keeps the
 * verdict, so `--json` output stays one document).
 *
 * @param merged the merged audit
 * @param options `json`: one JSON line instead of text
 * @example
 * ```ts ignore
 * sayMerge(merged, { json: false });
 * ```
 */
export function sayMerge(merged: MergedAudit, options: { json: boolean }): void {
  const { missing, duplicates } = merged;
  if (options.json) console.error(JSON.stringify({ missing, duplicates }));
  else {
    console.error(
      `merged ${
        merged.report.results.length - missing.length
      } of ${merged.report.results.length} items (${duplicates} agreeing duplicates); ${
        missing.length === 0 ? "none missing" : `missing records: ${missing.join(", ")}`
      }`,
    );
  }
}
