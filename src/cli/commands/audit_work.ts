/**
 * `bitaudit audit work`: recompute the items of one shard of a plan and write their results (one
 * canonical JSON line each). Stateless and idempotent: any batch engine can run any shard again;
 * an existing complete output of the same shard is left as it is, anything else there is refused,
 * and a run that was killed mid-shard is resumed from its `<out>.partial` file.
 *
 * @module
 */
import { normalize } from "node:path";
import { Command } from "@commander-js/extra-typings";
import type { ClaimLog } from "../../claims/mod.ts";
import { InputError } from "../../errors.ts";
import {
  keyId,
  type SigningKey,
  signItemResult,
  type WorkerKeys,
  workerKeys,
} from "../../attest/mod.ts";
import { type AssetStore, openAssetStore } from "../../assets/mod.ts";
import {
  type AuditPlan,
  type Build,
  describeBuild,
  ownBuild,
  type PlanItem,
  resultBuild,
  sameBuild,
  type Shard,
  shardItems,
  workItem,
} from "../../verify/mod.ts";
import { loadSigningKey } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { loadPlanFile, loadPlanLog } from "../plan_inputs.ts";
import { progressBar } from "../progress.ts";
import { readResultsFile } from "../read_results.ts";
import { openPartial, resumePartial } from "../partial_results.ts";
import { parseShardFlag } from "../shard_flag.ts";
import { blobsBeside, openWorkContext } from "../work_context.ts";
import { makeParentDirs } from "../make_dirs.ts";
import { writeNewFile } from "../write_new_file.ts";
import { ownSibling } from "../temp_sibling.ts";
import { ioCause } from "../../io_cause.ts";
import { type KeyInUse, refuseEvidenceProverKey, refusePlanSigner } from "../refuse_prover_key.ts";
import { countNoun } from "../count_noun.ts";

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
    .requiredOption(
      "--key <file>",
      "this worker's private key (PKCS#8 PEM): signs every result; never the inspector's",
    )
    .option("--log <file>", "claims.jsonl (default: beside the plan)")
    .option("--blobs <dir>", "tensor blobs by sha256 (default: <log folder>/blobs)")
    .option("--threads <n>", "worker threads")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const { plan, planDigest } = await loadPlanFile(opts.plan);
      const shard = parseShardFlag(opts.shard, (name) => Deno.env.get(name));
      const items = shardItems(plan, shard);
      const key = await loadSigningKey(opts.key);
      _refuseKey(plan, { publicKey: key.publicKey, option: "--key", path: opts.key }, opts.plan);
      const own = workerKeys([key.publicKey]);
      // Without `..` (see writeNewFile): the partial file removed once the shard is written is the
      // one this run checked and appended to, never the file a removal would find by resolving
      // `lnk/..` on the file system.
      const out = normalize(opts.out);
      await makeParentDirs(out); // the partial file goes there before the results do
      // This build: results of another (version, or code and tables) are not this run's.
      const store = await openAssetStore();
      const build = ownBuild(store);
      const done = await _alreadyDone(out, { planDigest, items, own, build });
      let resumed = 0;
      if (!done) {
        const { log, path: logPath } = await loadPlanLog({ plan, path: opts.plan }, opts.log);
        const budget = plan.maxRecordProducts;
        resumed = await _work({ planDigest, log, items, out, key, build, budget }, {
          store,
          blobs: opts.blobs ?? blobsBeside(logPath),
          threads: opts.threads,
          progress: !opts.json,
        });
      }
      _say(opts, { shard, items: items.length, done, resumed, worker: keyId(key.publicKey) });
    });
}

/**
 * Refuses a worker key that signed the plan (the inspector's) or is its prover's key, before
 * anything is computed or written.
 */
function _refuseKey(plan: AuditPlan, key: KeyInUse, where: string): void {
  refusePlanSigner(plan, { key, where });
  refuseEvidenceProverKey(plan.evidence, { uses: [key] });
}

async function _work(
  target: {
    planDigest: string;
    log: ClaimLog;
    items: readonly PlanItem[];
    out: string;
    key: SigningKey;
    build: Build;
    /** The plan's budget a record (absent: the default). */
    budget: number | undefined;
  },
  options: { store: AssetStore; blobs: string; threads: string | undefined; progress: boolean },
): Promise<number> {
  const { planDigest, log, items, out, key, build } = target;
  const partial = ownSibling(out, ".partial");
  const workers = workerKeys([key.publicKey]);
  const { lines, found } = await resumePartial(partial, { planDigest, items, workers, build });
  const resumed = lines.size;
  const { ctx, close } = await openWorkContext(options);
  const bar = progressBar("verifying", { enabled: options.progress });
  const file = openPartial(partial, found);
  try {
    for (const item of items) {
      if (lines.has(item.item)) continue;
      const result = await workItem(ctx, {
        planDigest,
        log,
        item,
        maxRecordProducts: target.budget,
      });
      const line = await signItemResult(result, key);
      await file.append(line);
      lines.set(item.item, line);
      bar.update(lines.size, items.length);
    }
  } finally {
    bar.stop();
    close();
  }
  await writeNewFile(out, items.map((it) => lines.get(it.item)!).join(""));
  await file.finish(); // refuses to remove anything but the file this run wrote or resumed
  return resumed;
}

/**
 * True when `out` holds exactly this shard's results, signed by this worker's key; false when
 * it does not exist.
 */
async function _alreadyDone(
  out: string,
  shard: { planDigest: string; items: readonly PlanItem[]; own: WorkerKeys; build: Build },
): Promise<boolean> {
  try {
    await Deno.lstat(out);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw new InputError("OUTPUT_WRITE", `Cannot write '${out}': ${ioCause(e)}`);
  }
  const refuse = (why: string): never => {
    throw new InputError("OUTPUT_EXISTS", `Cannot write '${out}': it exists and ${why}`);
  };
  let results;
  try {
    results = (await readResultsFile(out, shard.own)).map((r) => r.result);
  } catch (e) {
    const code = (e as InputError).code;
    return refuse(
      code === "RESULT_UNKNOWN_WORKER" || code === "RESULT_SIGNATURE"
        ? "holds results this worker's key did not sign"
        : `is not a results file (${code ?? "unreadable"})`,
    );
  }
  const want = shard.items.map((it) => it.item).join();
  if (results.some((r) => r.plan !== shard.planDigest)) refuse("holds results of another plan");
  const other = results.find((r) => !sameBuild(resultBuild(r), shard.build));
  if (other !== undefined) {
    refuse(
      `holds results of another build (${describeBuild(resultBuild(other))}; this is ` +
        `${describeBuild(shard.build)}): remove it to run the shard again with this one`,
    );
  }
  if (results.map((r) => r.item).join() !== want) refuse("holds other items (not overwritten)");
  return true;
}

function _say(
  opts: { out: string; json?: true | undefined },
  o: { shard: Shard; items: number; done: boolean; resumed: number; worker: string },
): void {
  const summary = {
    results: opts.out,
    worker: o.worker,
    shard: `${o.shard.index}/${o.shard.count}`,
    items: o.items,
    alreadyComplete: o.done,
    resumed: o.resumed,
  };
  if (opts.json) printJson(summary);
  else if (o.done) {
    printText(
      `${opts.out} already holds the ${countNoun(o.items, "result")} of shard ${summary.shard}`,
    );
  } else {
    const resumed = o.resumed > 0 ? ` (${o.resumed} kept from an interrupted run)` : "";
    printText(
      `wrote ${opts.out}: ${countNoun(o.items, "result")} of shard ${summary.shard}${resumed}`,
    );
  }
}
