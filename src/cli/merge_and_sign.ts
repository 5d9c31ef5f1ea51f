/**
 * The common end of `audit merge` and `audit serve`: the plan's signatures verified with the keys
 * that sign the verdict (the plan lies where workers can write: it is the inspector's word only
 * under the inspector's signature) and its trust evidence verified again (exactly as `audit`
 * verifies it), the workers' signed results merged, a random share of them re-verified on this
 * machine (`--reverify`), then the verdict signed and written. Nothing is written unless every
 * step succeeds.
 *
 * @module
 */
import { type AssetStore, openAssetStore } from "../assets/mod.ts";
import {
  type SigningKey,
  type TrustRoot,
  verifyAuditPlan,
  type WorkerKeys,
} from "../attest/mod.ts";
import type { ClaimLog } from "../claims/mod.ts";
import { InputError, UsageError } from "../errors.ts";
import {
  type AttributedResult,
  type AuditPlan,
  committedInputResults,
  type MergedAudit,
  mergeItemResults,
  ownBuild,
  resultsByKind,
  reverifyCount,
  reverifyResults,
} from "../verify/mod.ts";
import { escapeJsonText, quoteForTerminal } from "../escape_text.ts";
import { loadSigningKeys } from "./load_inputs.ts";
import { loadPlanFile, loadPlanLog, timeFlag } from "./plan_inputs.ts";
import { loadWorkerKeys } from "./read_results.ts";
import { progressBar } from "./progress.ts";
import { reportVerdict } from "./report_verdict.ts";
import { timeAfterTrustInputs, type TrustInputs, verifyTrustEvidence } from "./trust_inputs.ts";
import { blobsBeside, openBlobFolder, openWorkContext } from "./work_context.ts";
import { parseThreads } from "./parse_int_option.ts";
import { writeVerdict } from "./write_verdict.ts";
import { type KeyInUse, keysInUse } from "./refuse_prover_key.ts";
import { countNoun } from "./count_noun.ts";
import { refuseSignerAsWorker } from "./refuse_signer_as_worker.ts";
import { trustRootFlag } from "./trust_root_flag.ts";

/** What `--reverify` asks for, and where this machine finds the log and blobs to do it. */
export interface ReverifyFlags {
  /** A count or a fraction in (0, 1] of the returned results (`"0"`: none). */
  readonly reverify: string;
  /** claims.jsonl (default: beside the plan). */
  readonly log?: string | undefined;
  /** Blob folder (default: beside the log). */
  readonly blobs?: string | undefined;
  /** Worker threads. */
  readonly threads?: string | undefined;
}

/**
 * Verifies a plan's trust evidence with the inspector keys that will sign, and requires it to
 * give the plan's own randomness and round; none of the keys in use may be the plan's prover key.
 *
 * @param plan the plan
 * @param o the inspector's signing `keys`, and `uses`: every key the command signs with or
 *   accepts results from, with the option and file that named it
 * @returns the verified trust inputs
 * @throws {UsageError} `USAGE_KEYS` for a key in use that is the plan's prover key
 * @throws {InputError} as `verifyTrustEvidence`; `PLAN_INVALID` when the evidence gives another
 *   randomness or round than the plan's
 * @example
 * ```ts ignore
 * const trust = await planTrust(plan, { keys, uses });
 * ```
 */
export async function planTrust(
  plan: AuditPlan,
  o: { readonly keys: readonly SigningKey[]; readonly uses: readonly KeyInUse[] },
): Promise<TrustInputs> {
  const trust = await verifyTrustEvidence(plan.evidence, {
    log: { root: plan.logRoot, size: plan.population },
    keys: o.keys.map((k) => k.publicKey),
    uses: o.uses,
    typed: { randomness: plan.beacon.randomness, round: String(plan.beacon.round) },
    k: String(plan.items.length),
    auditId: plan.auditId,
  });
  if (
    trust.randomness.toLowerCase() !== plan.beacon.randomness ||
    trust.round !== String(plan.beacon.round)
  ) {
    throw new InputError(
      "PLAN_INVALID",
      "Cannot sign: the plan's randomness and round are not those of its beacon evidence",
    );
  }
  return trust;
}

/**
 * Checks a `--reverify` value before anything is computed.
 *
 * @param text the value
 * @throws {UsageError} `USAGE_NUMBER`
 * @example
 * ```ts
 * import { checkReverifyFlag } from "./merge_and_sign.ts";
 * checkReverifyFlag("0.1");
 * ```
 */
export function checkReverifyFlag(text: string): void {
  try {
    reverifyCount(text, 1);
  } catch (e) {
    throw new UsageError("USAGE_NUMBER", `Cannot use --reverify: ${(e as Error).message}`);
  }
}

/** What `audit merge` and `audit serve` sign with, read and verified before any result. */
export interface MergeInputs {
  /** The plan, its digest and its file. */
  readonly plan: AuditPlan;
  readonly planDigest: string;
  /**
   * This install's asset store: results must name its manifest's digest (its code and tables),
   * the verdict is signed over its assets, and a re-verification recomputes with it.
   */
  readonly store: AssetStore;
  readonly planPath: string;
  /** The accepted worker keys. */
  readonly workers: WorkerKeys;
  /** The plan's trust evidence, verified again. */
  readonly trust: TrustInputs;
  /** The inspector's signing keys. */
  readonly keys: readonly SigningKey[];
  /** Output folder, signing time, output mode. */
  readonly out: string;
  readonly time: string | undefined;
  readonly json: boolean;
  /** The `--reverify` flags. */
  readonly reverify: ReverifyFlags;
  /** The claim log `--reverify` recomputes from, read before any result when it asks for some. */
  readonly reverifyLog?: { readonly log: ClaimLog; readonly path: string } | undefined;
  /**
   * The trust root `--trust-root` names, which `check` will read the verdict with: the worker
   * keys are judged by it before the verdict is signed (`signVerdict`'s `trustRoot`).
   */
  readonly trustRoot?: TrustRoot | undefined;
}

/**
 * Reads and checks the common flags of `audit merge` and `audit serve`: signing time and
 * `--reverify` first (usage errors before any file is read), then the plan, the inspector keys,
 * the plan's signature by every one of them, the worker keys (none a key that signed the plan),
 * the `--trust-root` if given (no
 * `--key` or `--worker-pub` may be a prover key of it, and `check` with it must count the `--key`
 * signatures at the verdict's time: `--time`, or now), and the plan's trust evidence verified
 * with those keys.
 *
 * @param opts the command's options
 * @returns the inputs for {@link mergeAndSign}
 * @throws {UsageError} `USAGE_TIME`, `USAGE_NUMBER`, `USAGE_KEYS` (also for a `--key` or
 *   `--worker-pub` that is the plan's prover key, or a prover key of the `--trust-root`);
 *   {InputError} plan, key, trust root and trust evidence errors, `PLAN_SIGNATURE` (a plan that a
 *   `--key` did not sign), `SIGNING_KEY_REFUSED` (`check` with the `--trust-root` would count
 *   fewer `--key` signatures than it requires), `WORKER_KEY_REFUSED` (a `--worker-pub` that
 *   signed the plan: an inspector's key never doubles as a worker key)
 * @example
 * ```ts ignore
 * const inputs = await mergeInputs(opts);
 * ```
 */
export async function mergeInputs(
  opts: ReverifyFlags & {
    readonly plan: string;
    readonly key: readonly string[];
    readonly workerPub: readonly string[];
    readonly out: string;
    readonly time?: string | undefined;
    readonly json?: true | undefined;
    readonly trustRoot?: string | undefined;
  },
): Promise<MergeInputs> {
  const time = timeFlag(opts.time);
  checkReverifyFlag(opts.reverify);
  const { plan, planDigest } = await loadPlanFile(opts.plan);
  const keys = await loadSigningKeys(opts.key);
  await verifyAuditPlan(plan, { keys: keys.map((k) => k.publicKey), where: opts.plan });
  const workers = await loadWorkerKeys(opts.workerPub);
  const workerUses = keysInUse([...workers.values()], {
    option: "--worker-pub",
    paths: opts.workerPub,
  });
  // Every --key signed the plan (verified above); a plan may carry other signers' too.
  refuseSignerAsWorker(plan.signatures.map((s) => s.keyid), {
    workers: workerUses,
    plan: quoteForTerminal(opts.plan),
  });
  const uses = [
    ...keysInUse(keys.map((k) => k.publicKey), { option: "--key", paths: opts.key }),
    ...workerUses,
  ];
  // A prover key of the root is refused whatever the time, before any result is read or order
  // published; a worker key's validity is judged at the verdict's time, before signing.
  const trustRoot = await trustRootFlag(opts.trustRoot, { keys, uses, time });
  const trust = await planTrust(plan, { keys, uses });
  timeAfterTrustInputs(time, trust);
  const store = await openAssetStore();
  // Asked for: the log is read and the blob folder found now, not after every result is in (a
  // serve can run for hours); the re-verification recomputes from this log.
  const reverifyLog = reverifyCount(opts.reverify, 1) > 0
    ? await _reverifyLog({ plan, planPath: opts.plan, reverify: opts })
    : undefined;
  return {
    plan,
    planDigest,
    store,
    planPath: opts.plan,
    workers,
    trust,
    keys,
    out: opts.out,
    time,
    json: opts.json === true,
    reverify: opts,
    reverifyLog,
    trustRoot,
  };
}

/**
 * Merges, re-verifies, signs and writes; the prepared output folder is kept on success and
 * removed on any failure; then says what was missing and prints the verdict.
 *
 * @param done the cleanup returned by `prepareOutputDir`
 * @param o the {@link MergeInputs}, the signed `results`, `duplicates`: agreeing duplicates
 *   already dropped from them (by `servePlan`), added to the merge's count, and `rerun`: how this
 *   command runs an item again once a worker is mended (said after a worker's blob copy is
 *   blamed; default: `audit work`'s)
 * @example
 * ```ts ignore
 * await mergeAndSign(done, { ...await mergeInputs(opts), results });
 * ```
 */
export async function mergeAndSign(
  done: (ok: boolean) => Promise<void>,
  o: MergeInputs & {
    readonly results: readonly AttributedResult[];
    readonly duplicates?: number | undefined;
    readonly rerun?: string | undefined;
  },
): Promise<void> {
  let merged: MergedAudit;
  try {
    merged = mergeItemResults(o.plan, {
      planDigest: o.planDigest,
      results: o.results,
      build: ownBuild(o.store),
    });
    merged = { ...merged, duplicates: merged.duplicates + (o.duplicates ?? 0) };
    merged = await _reverify(merged, o);
    await writeVerdict(merged, {
      store: o.store,
      keys: o.keys,
      out: o.out,
      time: o.time,
      trust: o.trust,
      workers: o.workers,
      trustRoot: o.trustRoot,
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
  sayMerge(merged, { json: o.json, announced: o.trust.announcement !== undefined });
  reportVerdict(merged.report, { out: o.out, json: o.json });
}

async function _reverify(
  merged: MergedAudit,
  o: {
    plan: AuditPlan;
    planDigest: string;
    planPath: string;
    reverify: ReverifyFlags;
    json: boolean;
    store: AssetStore;
    reverifyLog?: { readonly log: ClaimLog; readonly path: string } | undefined;
    rerun?: string | undefined;
  },
): Promise<MergedAudit> {
  const returned = merged.workers.filter((w) => w !== null).length;
  const count = reverifyCount(o.reverify.reverify, returned);
  // A FAIL on a committed input is re-verified here whatever --reverify asks (it rests on the
  // worker's copy of the blobs): this machine then needs the log and the blobs.
  const blamed = committedInputResults(merged);
  if (count === 0 && blamed.length === 0) return merged;
  const { log, ctx, close } = await _reverifyInputs(o).catch((e) => {
    if (count > 0 || !(e instanceof InputError)) throw e;
    // Only the FAILs on committed inputs ask for the log and blobs: say so, keeping the code.
    const records = blamed.map((j) => o.plan.items[j]!.index);
    throw new InputError(
      e.code,
      `Cannot sign: a worker FAILed record${records.length === 1 ? "" : "s"} ` +
        `${records.join(", ")} on a committed input, which is re-verified here whatever ` +
        `--reverify asks, and ${e.message.replace(/^Cannot /, "cannot ")}`,
    );
  });
  const bar = progressBar("re-verifying", { enabled: !o.json });
  try {
    return await reverifyResults(ctx, {
      plan: o.plan,
      planDigest: o.planDigest,
      log,
      merged,
      count,
      seed: crypto.getRandomValues(new Uint8Array(32)),
      onProgress: bar.update,
      rerun: o.rerun ?? AUDIT_WORK_RERUN,
    });
  } finally {
    bar.stop();
    close();
  }
}

/** How `audit merge` has an item run again: `audit work` keeps a results file it finds. */
const AUDIT_WORK_RERUN = "remove that worker's results file (or give `audit work` a new --out) " +
  "before it runs its shard again: `audit work` keeps the results a file already holds";

/**
 * The claim log `--reverify` recomputes from (read as the re-verification reads it), its blob
 * folder found and the thread count read: what would refuse the re-verification, before any
 * result is in.
 */
async function _reverifyLog(o: { plan: AuditPlan; planPath: string; reverify: ReverifyFlags }) {
  const planLog = await loadPlanLog({ plan: o.plan, path: o.planPath }, o.reverify.log);
  if (o.reverify.threads !== undefined) parseThreads(o.reverify.threads);
  await openBlobFolder(o.reverify.blobs ?? blobsBeside(planLog.path));
  return planLog;
}

/** The claim log (read once: `reverifyLog`) and the work context a re-verification runs in. */
async function _reverifyInputs(
  o: {
    plan: AuditPlan;
    planPath: string;
    reverify: ReverifyFlags;
    store: AssetStore;
    reverifyLog?: { readonly log: ClaimLog; readonly path: string } | undefined;
  },
) {
  const { log, path } = o.reverifyLog ?? await _reverifyLog(o);
  const { ctx, close } = await openWorkContext({
    blobs: o.reverify.blobs ?? blobsBeside(path),
    threads: o.reverify.threads,
    store: o.store,
  });
  return { log, ctx, close };
}

/**
 * Tells on stderr what was signed (the plan's audit id, its k, whether it was announced), which
 * items had no result, how many duplicates agreed and how many results were re-verified (stdout
 * keeps the verdict, so `--json` output stays one document).
 *
 * @param merged the merged audit
 * @param options `json`: one JSON line instead of text; `announced`: whether the plan carried a
 *   (verified) announcement
 * @example
 * ```ts ignore
 * sayMerge(merged, { json: false, announced: true });
 * ```
 */
export function sayMerge(
  merged: MergedAudit,
  options: { json: boolean; announced: boolean },
): void {
  const { missing, duplicates, reverified } = merged;
  const { auditId } = merged.report;
  const { announced } = options;
  const total = merged.report.results.length;
  const workers = new Set(merged.workers.filter((w) => w !== null)).size;
  if (options.json) {
    console.error(
      escapeJsonText(
        JSON.stringify({
          auditId,
          k: total,
          announced,
          missing,
          duplicates,
          workers,
          reverified: reverified.length,
        }),
      ),
    );
  } else {
    console.error(
      `signed audit ${quoteForTerminal(auditId)}: k ${total}, ${
        announced ? "announced" : "not announced (the plan carries no announcement)"
      }`,
    );
    console.error(
      `merged ${total - missing.length} of ${
        countNoun(total, "item")
      } from ${workers} worker key(s) (${duplicates} agreeing duplicates, ${reverified.length} re-verified here); ${
        missing.length === 0 ? "none missing" : `missing records: ${missing.join(", ")}`
      }`,
    );
    if (missing.length > 0) {
      // A results file left out (a glob that missed a shard) signs a partial audit: said loudly.
      console.error(
        `warning: ${missing.length} of ${total} planned items had no result and are signed as ` +
          "NOT_VERIFIED (the verdict is at best INCONCLUSIVE); if a results file was left out, " +
          "merge again into a new folder with every shard's results",
      );
    }
  }
}
