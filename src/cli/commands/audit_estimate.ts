/**
 * `bitaudit audit estimate`: predicted CPU hours of a plan, from the products of each planned
 * record (a `model_forward` or `sequence` record's from the config and history it commits to, in
 * the blob folder) and the engine rate measured on a pilot shard (`audit work --shard 0/50` on the
 * kind of machine that will run the audit), so a cluster can be sized before the audit starts.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import {
  type AuditEstimate,
  budgetText,
  estimateAudit,
  type ItemResult,
} from "../../verify/mod.ts";
import { printJson, printText } from "../output.ts";
import { loadPlanFile, loadPlanLog } from "../plan_inputs.ts";
import { readResultsUnchecked } from "../read_results.ts";
import { predictSample } from "../predict_sample.ts";
import { countNoun } from "../count_noun.ts";

/**
 * Builds the `audit estimate` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { auditEstimateCommand } from "./audit_estimate.ts";
 * if (auditEstimateCommand().name() !== "estimate") throw new Error();
 * ```
 */
export function auditEstimateCommand(): CommandUnknownOpts {
  return new Command("estimate")
    .description(
      "predict a plan's CPU hours from its records' products and the rate measured on pilot results",
    )
    .argument("[pilot...]", "results files of a pilot shard (`audit work`)")
    .requiredOption("--plan <file>", "plan.json from `audit plan`")
    .option("--log <file>", "claims.jsonl (default: beside the plan)")
    .option(
      "--blobs <dir>",
      "tensor blobs by sha256, for the configs and histories of model records (default: <log folder>/blobs)",
    )
    .option("--json", "machine-readable output")
    .action(async (files, opts) => {
      const { plan } = await loadPlanFile(opts.plan);
      const { log, path } = await loadPlanLog({ plan, path: opts.plan }, opts.log);
      const pilot: ItemResult[] = [];
      // Informative only (nothing is signed from it): the results are read strictly, their
      // worker signatures are not checked.
      for (const f of files) pilot.push(...(await readResultsUnchecked(f)).map((r) => r.result));
      const products = await predictSample({ plan, log }, { logPath: path, blobs: opts.blobs });
      const estimate = estimateAudit(plan, { products, pilot });
      if (opts.json) printJson(estimate);
      else _print(estimate);
    });
}

function _print(e: AuditEstimate): void {
  const g = (x: number | null, digits = 3) =>
    x === null ? "-" : x === 0 ? "0" : x.toPrecision(digits);
  printText("kind              items  products   over   pilot  products/cpu-s  cpu-hours");
  for (const k of e.kinds) {
    printText(
      `${k.kind.padEnd(16)} ${String(k.items).padStart(6)}  ${g(k.products).padStart(9)}  ${
        String(k.overBudget).padStart(5)
      }  ${String(k.pilotItems).padStart(5)}  ${g(k.productsPerCpuSecond).padStart(14)}  ${
        g(k.cpuSeconds === null ? null : k.cpuSeconds / 3600).padStart(9)
      }`,
    );
  }
  const over = e.kinds.reduce((s, k) => s + k.overBudget, 0);
  if (over > 0) {
    printText(
      `${countNoun(over, "item")} over the budget of ${budgetText(e.budget)} products a record: ` +
        "NOT_VERIFIED without recomputation (`--max-record-products` of `audit plan` sets it)",
    );
  }
  printText(
    `predicted: ${e.cpuHours.toPrecision(3)} CPU hours${
      e.unpredicted > 0
        ? `, plus ${
          countNoun(e.unpredicted, "item")
        } without a prediction (no cost model or no pilot of their kind)`
        : ""
    }`,
  );
}
