/**
 * `bitaudit audit estimate`: predicted CPU hours of a plan, from the products of each planned
 * record and the engine rate measured on a pilot shard (`audit work --shard 0/50` on the kind of
 * machine that will run the audit), so a cluster can be sized before the audit starts.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { type AuditEstimate, estimateAudit, type ItemResult } from "../../verify/mod.ts";
import { printJson, printText } from "../output.ts";
import { loadPlanFile, loadPlanLog } from "../plan_inputs.ts";
import { readResultsUnchecked } from "../read_results.ts";

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
    .option("--json", "machine-readable output")
    .action(async (files, opts) => {
      const { plan } = await loadPlanFile(opts.plan);
      const { log } = await loadPlanLog({ plan, path: opts.plan }, opts.log);
      const pilot: ItemResult[] = [];
      // Informative only (nothing is signed from it): the results are read strictly, their
      // worker signatures are not checked.
      for (const f of files) pilot.push(...(await readResultsUnchecked(f)).map((r) => r.result));
      const estimate = estimateAudit(plan, { log, pilot });
      if (opts.json) printJson(estimate);
      else _print(estimate);
    });
}

function _print(e: AuditEstimate): void {
  const g = (x: number | null, digits = 3) => x === null ? "-" : x.toPrecision(digits);
  printText("kind              items  products   pilot  products/cpu-s  cpu-hours");
  for (const k of e.kinds) {
    printText(
      `${k.kind.padEnd(16)} ${String(k.items).padStart(6)}  ${g(k.products).padStart(9)}  ${
        String(k.pilotItems).padStart(5)
      }  ${g(k.productsPerCpuSecond).padStart(14)}  ${
        g(k.cpuSeconds === null ? null : k.cpuSeconds / 3600).padStart(9)
      }`,
    );
  }
  printText(
    `predicted: ${e.cpuHours.toPrecision(3)} CPU hours${
      e.unpredicted > 0
        ? `, plus ${e.unpredicted} items without a prediction (no cost model or no pilot of their kind)`
        : ""
    }`,
  );
}
