/**
 * `bitaudit audit work`: recompute the items of one shard of a plan and write their results (one
 * canonical JSON line each). Stateless and idempotent: any batch engine can run any shard again;
 * an existing complete output of the same shard is left as it is, anything else there is refused.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import type { ClaimLog } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import {
  checkPlanLog,
  encodeItemResult,
  type PlanItem,
  type Shard,
  shardItems,
  workItem,
} from "../../verify/mod.ts";
import { loadClaimLog } from "../load_inputs.ts";
import { printJson } from "../output.ts";
import { loadPlanFile } from "../plan_inputs.ts";
import { progressBar } from "../progress.ts";
import { readResultsFile } from "../read_results.ts";
import { parseShardFlag } from "../shard_flag.ts";
import { blobsBeside, openWorkContext } from "../work_context.ts";
import { writeNewFile } from "../write_new_file.ts";

/**
 * Builds the `audit work` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { auditWorkCommand } from "./audit_work.ts";
 * if (auditWorkCommand().name() !== "work") throw new Error();
 * ```
 */
export function auditWorkCommand(): Command {
  return new Command("work")
    .description("recompute the items of one shard of a plan and write their results (JSON Lines)")
    .requiredOption("--plan <file>", "plan.json from `audit plan`")
    .requiredOption(
      "--shard <i/n>",
      "shard i of n (0-based); only n: the index comes from JOB_COMPLETION_INDEX",
    )
    .requiredOption("--out <file>", "results file to write (never overwritten)")
    .option("--log <file>", "claims.jsonl (default: beside the plan)")
    .option("--blobs <dir>", "tensor blobs by sha256 (default: <log folder>/blobs)")
    .option("--threads <n>", "worker threads")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const { plan, planDigest } = await loadPlanFile(opts.plan);
      const shard = parseShardFlag(opts.shard, (name) => Deno.env.get(name));
      const items = shardItems(plan, shard);
      const done = await _alreadyDone(opts.out, { planDigest, items });
      if (!done) {
        const logPath = opts.log ?? `${_folder(opts.plan)}/claims.jsonl`;
        const log = await loadClaimLog(logPath);
        checkPlanLog(plan, log);
        const lines = await _work({ planDigest, log, items }, {
          blobs: opts.blobs ?? blobsBeside(logPath),
          threads: opts.threads,
          progress: !opts.json,
        });
        await writeNewFile(opts.out, lines.join(""));
      }
      _say(opts, { shard, items: items.length, done });
    });
}

async function _work(
  target: { planDigest: string; log: ClaimLog; items: readonly PlanItem[] },
  options: { blobs: string; threads: string | undefined; progress: boolean },
): Promise<string[]> {
  const { ctx, close } = await openWorkContext(options);
  const bar = progressBar("verifying", { enabled: options.progress });
  const lines: string[] = [];
  try {
    for (const item of target.items) {
      const { planDigest, log } = target;
      lines.push(encodeItemResult(await workItem(ctx, { planDigest, log, item })));
      bar.update(lines.length, target.items.length);
    }
  } finally {
    bar.stop();
    close();
  }
  return lines;
}

/** True when `out` holds exactly this shard's results; false when it does not exist. */
async function _alreadyDone(
  out: string,
  shard: { planDigest: string; items: readonly PlanItem[] },
): Promise<boolean> {
  try {
    await Deno.lstat(out);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
  const refuse = (why: string): never => {
    throw new InputError("OUTPUT_EXISTS", `Cannot write '${out}': it exists and ${why}`);
  };
  let results;
  try {
    results = await readResultsFile(out);
  } catch (e) {
    return refuse(`is not a results file (${(e as InputError).code ?? "unreadable"})`);
  }
  const want = shard.items.map((it) => it.item).join();
  if (results.some((r) => r.plan !== shard.planDigest)) refuse("holds results of another plan");
  if (results.map((r) => r.item).join() !== want) refuse("holds other items (not overwritten)");
  return true;
}

function _say(
  opts: { out: string; json?: true | undefined },
  o: { shard: Shard; items: number; done: boolean },
): void {
  const summary = {
    results: opts.out,
    shard: `${o.shard.index}/${o.shard.count}`,
    items: o.items,
    alreadyComplete: o.done,
  };
  if (opts.json) printJson(summary);
  else if (o.done) {
    console.log(`${opts.out} already holds the ${o.items} results of shard ${summary.shard}`);
  } else console.log(`wrote ${opts.out}: ${o.items} results of shard ${summary.shard}`);
}

function _folder(path: string): string {
  return path.replace(/[^/]*$/, "").replace(/\/$/, "") || ".";
}
