/**
 * `bitaudit audit merge`: put the worker-signed results of an audit's shards together (every
 * planned item exactly one result, signed by an accepted worker key; duplicates must agree bit
 * for bit; a missing item is NOT_VERIFIED, so the verdict is never PASSED without it), re-verify
 * a random share of them here, and sign the verdict exactly as `audit` does.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import {
  type AttributedResult,
  keptDuplicate,
  mergeAdmission,
  ownBuild,
} from "../../verify/mod.ts";
import { prepareOutputDir } from "../load_inputs.ts";
import { mergeAndSign, mergeInputs } from "../merge_and_sign.ts";
import { resultsOfFile } from "../read_results.ts";
import { TRUST_ROOT_OPTION } from "../trust_root_flag.ts";

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
      "merge the worker-signed results files of a plan's shards, then write the signed attestation, report.md and report.html",
    )
    .argument("<results...>", "results files from `audit work`")
    .requiredOption("--plan <file>", "plan.json the results were computed from")
    .requiredOption("--key <files...>", "inspector private key(s) (PKCS#8 PEM); several co-sign")
    .requiredOption(
      "--worker-pub <files...>",
      "public keys (SPKI PEM) of the workers whose signed results are accepted",
    )
    .requiredOption("--out <dir>", "folder for attestation.dsse.json, report.md and report.html")
    .option(...TRUST_ROOT_OPTION)
    .option("--time <rfc3339>", "signing time recorded in the verdict (default: now)")
    .option(...REVERIFY_OPTION)
    .option("--log <file>", "claims.jsonl, to re-verify (default: beside the plan)")
    .option("--blobs <dir>", "tensor blobs by sha256, to re-verify (default: <log folder>/blobs)")
    .option("--threads <n>", "worker threads for re-verification")
    .option("--json", "machine-readable output")
    .action(async (files, opts) => {
      const inputs = await mergeInputs(opts);
      // One result an item is held as the files are read (agreeing duplicates counted, a
      // disagreeing one refused): what is held stays bounded by the items, however many lines
      // repeat one.
      const kept = new Map<string, AttributedResult>();
      let duplicates = 0;
      // Each line is checked as the merge will check it (this plan, its record, this version)
      // before it is compared with a duplicate, so that no order of the files lets another
      // plan's or version's result pass as a duplicate, or be refused as a disagreement.
      const admit = mergeAdmission(inputs.plan, {
        planDigest: inputs.planDigest,
        build: ownBuild(inputs.store),
      });
      for (const f of files) {
        for await (const r of resultsOfFile(f, inputs.workers)) {
          admit(r);
          const prior = kept.get(r.result.item);
          if (prior !== undefined) duplicates++;
          kept.set(r.result.item, keptDuplicate(prior, r));
        }
      }
      const done = await prepareOutputDir(opts.out, VERDICT_FILES);
      await mergeAndSign(done, { ...inputs, results: [...kept.values()], duplicates });
    });
}

/** The `--reverify` option of `audit merge` and `audit serve`. */
export const REVERIFY_OPTION = [
  "--reverify <n|fraction>",
  "recompute this many (an integer: 1 is one result) or this fraction (with a decimal point: 0.05, or 1.0 for all) of the workers' results here before signing; every FAIL on a committed input is recomputed here too",
  "0",
] as const;

/** The files every signed audit writes into its output folder. */
export const VERDICT_FILES: readonly string[] = [
  "attestation.dsse.json",
  "report.md",
  "report.html",
];
