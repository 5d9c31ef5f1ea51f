/**
 * `bitaudit audit plan`: fix the seed, the sample and the work items of an audit in a plan file,
 * before any worker starts, signed by the inspector keys that will sign the verdict (`audit merge`
 * and `audit serve` accept no plan they did not sign).
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { signAuditPlan } from "../../attest/mod.ts";
import { auditPlanDigest, budgetText, encodeAuditPlan } from "../../verify/mod.ts";
import { printJson, printText } from "../output.ts";
import { MAX_RECORD_PRODUCTS_OPTION, planFromFlags } from "../plan_inputs.ts";
import { writeNewFile } from "../write_new_file.ts";
import { countNoun } from "../count_noun.ts";

/**
 * Builds the `audit plan` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { auditPlanCommand } from "./audit_plan.ts";
 * if (auditPlanCommand().name() !== "plan") throw new Error();
 * ```
 */
export function auditPlanCommand(): Command {
  return new Command("plan")
    .description(
      "verify the trust inputs as `audit` does, then fix the seed, the sampled records, the work items and that evidence in a plan file (canonical JSON) signed by the inspector",
    )
    .requiredOption("--log <file>", "claims.jsonl")
    .option("--beacon <file>", "drand round JSON whose randomness fixes the sample (with --chain)")
    .option("--chain <file>", "drand chain info JSON of that round")
    .option("--checkpoint <file>", "the prover's signed checkpoint of the log (with --prover-pub)")
    .option("--prover-pub <file>", "prover public key (SPKI PEM) that signed the checkpoint")
    .option(
      "--announcement <file>",
      "the signed announcement of this audit (from `announce`); fixes the audit id, k and round",
    )
    .option(
      "--announcement-timestamp <file>",
      "RFC 3161 token or response over the announcement's signature (checked by `check`)",
    )
    .requiredOption(
      "--key <files...>",
      "inspector private key(s) (PKCS#8 PEM) that sign the plan: the keys `audit merge` or `audit serve` will sign the verdict with (one of them signed the announcement)",
    )
    .option(
      "--randomness <hex>",
      "randomness typed in instead of --beacon (recorded as not verified)",
    )
    .option("--round <n>", "round of that randomness")
    .requiredOption("--k <k>", "number of records to sample")
    .requiredOption("--out <file>", "plan file to write (never overwritten)")
    .option(
      "--audit-id <id>",
      "audit identifier: up to 128 ASCII letters, digits and . _ : - (default: derived from the log root and round)",
    )
    .option("--root <hex>", "the log root the prover committed to (refuse the log if it differs)")
    .option(...MAX_RECORD_PRODUCTS_OPTION)
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const { plan: unsigned, keys } = await planFromFlags(opts);
      const plan = await signAuditPlan(unsigned, keys);
      await writeNewFile(opts.out, encodeAuditPlan(plan));
      // Counted in a map: a prover's kind may be any token (`constructor` too).
      const kinds = new Map<string, number>();
      for (const it of plan.items) kinds.set(it.kind, (kinds.get(it.kind) ?? 0) + 1);
      const summary = {
        plan: opts.out,
        sha256: auditPlanDigest(plan),
        auditId: plan.auditId,
        seed: plan.seed,
        items: plan.items.length,
        kinds: Object.fromEntries(kinds),
        signedBy: plan.signatures.map((sig) => sig.keyid),
        ...(plan.maxRecordProducts === undefined
          ? {}
          : { maxRecordProducts: plan.maxRecordProducts }),
      };
      if (opts.json) printJson(summary);
      else {
        printText(
          `wrote ${opts.out}: ${countNoun(plan.items.length, "item")} (${
            [...kinds].map(([k, n]) => `${n} ${k}`).join(", ")
          }), sha256 ${summary.sha256}, signed by inspector key(s) ${
            summary.signedBy.map((id) => id.slice(0, 16)).join(", ")
          }${
            plan.maxRecordProducts === undefined
              ? ""
              : `; budget ${budgetText(plan.maxRecordProducts)} products a record`
          }`,
        );
      }
    });
}
