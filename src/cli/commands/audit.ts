/**
 * `bitaudit audit`: sample a committed claim log with public randomness, recompute, sign.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { UsageError } from "../../errors.ts";
import {
  type AuditReport,
  type EvidenceLevel,
  IN_PROCESS_WORKER,
  type MergedAudit,
  planAudit,
  predictPlanProducts,
  resultsByKind,
  runAuditPlan,
} from "../../verify/mod.ts";
import { EXIT } from "../exit_codes.ts";
import {
  checkSigningKeyFiles,
  loadClaimLog,
  loadSigningKey,
  loadSigningKeys,
  prepareOutputDir,
} from "../load_inputs.ts";
import {
  auditIdFlag,
  MAX_RECORD_PRODUCTS_OPTION,
  maxRecordProductsFlag,
  rootFlag,
  timeFlag,
} from "../plan_inputs.ts";
import { sayPredictedCost } from "../predict_sample.ts";
import { parseIntOption, parseThreads } from "../parse_int_option.ts";
import { keyId, type SigningKey, type TrustRoot, workerKeys } from "../../attest/mod.ts";
import type { ClaimLog } from "../../claims/mod.ts";
import { progressBar } from "../progress.ts";
import { reportVerdict } from "../report_verdict.ts";
import {
  loadTrustInputs,
  timeAfterTrustInputs,
  type TrustInputFlags,
  type TrustInputs,
} from "../trust_inputs.ts";
import { blobsBeside, openWorkContext } from "../work_context.ts";
import { writeVerdict } from "../write_verdict.ts";
import { keysInUse } from "../refuse_prover_key.ts";
import { TRUST_ROOT_OPTION, trustRootFlag } from "../trust_root_flag.ts";
import { auditEstimateCommand } from "./audit_estimate.ts";
import { auditMergeCommand } from "./audit_merge.ts";
import { auditPlanCommand } from "./audit_plan.ts";
import { auditServeCommand } from "./audit_serve.ts";
import { auditWorkCommand } from "./audit_work.ts";
import { addCommandHelp } from "../command_help.ts";
import { parseEvidenceLevel } from "../check_policy.ts";

/**
 * Options of {@link auditLog}: the trust inputs (drand round and chain, or typed randomness and
 * round; checkpoint and prover key; announcement) as {@link TrustInputFlags}, and the rest.
 */
export interface AuditOptions extends TrustInputFlags {
  readonly log: string;
  readonly blobs?: string;
  readonly k: string;
  readonly keys: readonly string[];
  /** Also write `attestation.sigstore.json` (Sigstore bundle v0.3). */
  readonly bundle?: boolean;
  readonly out: string;
  readonly root?: string;
  readonly threads?: string;
  readonly progress: boolean;
  /** Signing time (RFC 3339); default now. */
  readonly time?: string;
  /**
   * Private key this process computes the results as (recorded as their worker in the verdict);
   * default: the first inspector key.
   */
  readonly workerKey?: string;
  /**
   * `--trust-root`: the trust root `check` will read the verdict with; the signing and worker keys
   * are judged by it as `audit merge` judges them (`trustRootFlag`, then `signVerdict`).
   */
  readonly trustRoot?: string;
  /**
   * `--require-evidence`: a record whose recomputation matched but rests on a component known
   * less well than this is NOT_VERIFIED (naming it) instead of PASS.
   */
  readonly requireEvidence?: string;
  /**
   * `--max-record-products`: a record predicted to take more products is NOT_VERIFIED before
   * anything is computed (default `MAX_RECORD_PRODUCTS`); the verdict records it.
   */
  readonly maxRecordProducts?: string;
  /** The predicted cost is said on stderr as one JSON line instead of text. */
  readonly json?: boolean;
  /** Where the predicted cost's text line goes instead of stderr (the demo's own transcript). */
  readonly sayCost?: (line: string) => void;
}

/**
 * Builds the `audit` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { auditCommand } from "./audit.ts";
 * if (auditCommand().name() !== "audit") throw new Error();
 * ```
 */
export function auditCommand(): CommandUnknownOpts {
  // Options an audit needs are checked in the action, not as commander's required options:
  // commander also demands a parent's required options from its subcommands (`audit plan`).
  const cmd = new Command("audit")
    .description(
      "sample a claim log with public randomness, recompute every sampled record, write a signed attestation, report.md and report.html",
    )
    .option("--log <file>", "claims.jsonl")
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
    .option(
      "--randomness <hex>",
      "randomness typed in instead of --beacon (recorded as not verified)",
    )
    .option("--round <n>", "round of that randomness")
    .option("--k <k>", "number of records to sample")
    .option("--key <files...>", "inspector private key(s) (PKCS#8 PEM); several co-sign")
    .option("--out <dir>", "folder for attestation.dsse.json, report.md and report.html")
    .option("--blobs <dir>", "tensor blobs by sha256 (default: <log folder>/blobs)")
    .option(
      "--audit-id <id>",
      "audit identifier: up to 128 ASCII letters, digits and . _ : - (default: derived from the log root and round)",
    )
    .option("--root <hex>", "the log root the prover committed to (refuse the log if it differs)")
    .option(
      "--bundle",
      "also write attestation.sigstore.json (Sigstore bundle v0.3; it carries the first --key's signature only)",
    )
    .option("--threads <n>", "worker threads")
    .option("--time <rfc3339>", "signing time recorded in the verdict (default: now)")
    .option(
      "--worker-key <file>",
      "key the results are recorded as computed by (default: the first --key)",
    )
    .option(...TRUST_ROOT_OPTION)
    .option(
      "--require-evidence <level>",
      "a PASS must rest on components known at least this well, else NOT_VERIFIED " +
        "(derived-from-source, checked-against-peer, measured-on-gpu)",
    )
    .option(...MAX_RECORD_PRODUCTS_OPTION)
    .option("--json", "machine-readable output")
    .enablePositionalOptions()
    .addCommand(auditPlanCommand())
    .addCommand(auditWorkCommand())
    .addCommand(auditMergeCommand())
    .addCommand(auditServeCommand())
    .addCommand(auditEstimateCommand());
  // The options above are the single-process audit's, read by its action alone: given before a
  // subcommand (`audit --require-evidence measured-on-gpu merge ...`) they would be dropped
  // without a word, and a sharded verdict would record no policy its user believed applied.
  // A subcommand with an option of the same name (`audit --k 5 plan ...`) is told where to give
  // it; one without (`audit --audit-id a merge ...`) is told it does not read it.
  cmd.hook("preSubcommand", (self, sub) => {
    const given = Object.keys(self.opts());
    if (given.length === 0) return;
    const option = self.options.find((o) => o.attributeName() === given[0]);
    const flag = option?.long ?? given[0];
    const own = sub.options.some((o) => o.long === flag);
    const where = own
      ? `'audit ${sub.name()}' reads its own '${flag}' only after its name (give it there)`
      : `'audit ${sub.name()}' does not read it (give its own options after its name)`;
    self.error(`error: option '${flag}' is the single-process audit's: ${where}`, {
      exitCode: EXIT.USAGE,
      code: "commander.unknownOption",
    });
  });
  return addCommandHelp(cmd).action(async (opts) => {
    const { log, k, key, out } = opts;
    // Missing, not empty: an empty value is the option's own refusal (USAGE_NUMBER for --k,
    // USAGE_PATH for a path), naming that option.
    if (log === undefined || k === undefined || key === undefined || out === undefined) {
      const missing = REQUIRED.find((o) => opts[o.name] === undefined)!;
      return cmd.error(`error: required option '${missing.flags}' not specified`, {
        exitCode: EXIT.USAGE,
        code: "commander.missingMandatoryOptionValue",
      });
    }
    const o = { ...opts, log, k, keys: key, out, progress: !opts.json, json: opts.json === true };
    const { report } = await auditLog(o);
    reportVerdict(report, { out, json: opts.json === true, bundle: opts.bundle === true });
  });
}

const REQUIRED = [
  { name: "log", flags: "--log <file>" },
  { name: "k", flags: "--k <k>" },
  { name: "key", flags: "--key <files...>" },
  { name: "out", flags: "--out <dir>" },
] as const;

/**
 * Runs an audit and writes its outputs: plan, work on every item in this process, merge, sign
 * (the steps `audit plan`, `audit work` and `audit merge` run apart, with the same bytes for
 * typed randomness).
 *
 * @param o options as on the command line
 * @returns the report and the paths written
 * @throws {InputError} for unusable inputs, {UsageError} for refused flags (nothing is written then)
 * @example
 * ```ts ignore
 * await auditLog({ log, randomness, round: "1", k: "10", keys: ["i.key"], out: "o", progress: false });
 * ```
 */
export async function auditLog(
  o: AuditOptions,
): Promise<{ report: AuditReport; attestation: string; reportPath: string; htmlPath: string }> {
  const time = timeFlag(o.time);
  const k = parseIntOption(o.k, { flag: "--k", min: 1 });
  const requireEvidence = o.requireEvidence === undefined
    ? undefined
    : parseEvidenceLevel("--require-evidence", o.requireEvidence);
  const threads = o.threads === undefined ? undefined : parseThreads(o.threads);
  const maxRecordProducts = maxRecordProductsFlag(o.maxRecordProducts);
  rootFlag(o.root);
  auditIdFlag(o.auditId);
  if (o.randomness !== undefined && !/^(?:[0-9a-fA-F]{2}){1,512}$/.test(o.randomness)) {
    throw new UsageError(
      "USAGE_RANDOMNESS",
      "Cannot use --randomness: expected 2..1024 hex digits",
    );
  }
  if (o.round !== undefined) parseIntOption(o.round, { flag: "--round", min: 0 });
  // The keys that will sign are read and parsed before anything else: a malformed or unusable
  // key is named at once, not after every sampled record was recomputed (which can take hours).
  await checkSigningKeyFiles(o.keys, { option: "--key" });
  const keys = await loadSigningKeys(o.keys);
  const workerPub = o.workerKey === undefined
    ? keys[0]!.publicKey
    : (await loadSigningKey(o.workerKey, { option: "--worker-key" })).publicKey;
  const publicKeys = keys.map((key) => key.publicKey);
  const uses = [
    ...keysInUse(publicKeys, { option: "--key", paths: o.keys }),
    ...(o.workerKey === undefined
      ? []
      : [{ publicKey: workerPub, option: "--worker-key", path: o.workerKey }]),
  ];
  // Before the log is read or anything recomputed: a key the root would have `check` refuse.
  const trustRoot = await trustRootFlag(o.trustRoot, { keys, uses, time });
  const log = await loadClaimLog(o.log);
  const trust = await loadTrustInputs(o, { log, keys: publicKeys, uses });
  const round = parseIntOption(trust.round, { flag: "--round", min: 0 });
  timeAfterTrustInputs(time, trust);
  const done = await prepareOutputDir(o.out, [
    "attestation.dsse.json",
    "report.md",
    "report.html",
    ...(o.bundle ? ["attestation.sigstore.json"] : []),
  ]);
  try {
    const r = await _auditAndSign(o, {
      log,
      round,
      k,
      threads,
      trust,
      keys,
      workerPub,
      time,
      trustRoot,
      requireEvidence,
      maxRecordProducts,
    });
    await done(true);
    return r;
  } catch (e) {
    await done(false);
    throw e;
  }
}

/** Recomputes the sampled records, then signs with the keys read before. */
async function _auditAndSign(
  o: AuditOptions,
  p: {
    log: ClaimLog;
    round: number;
    k: number;
    threads: number | undefined;
    trust: TrustInputs;
    keys: SigningKey[];
    workerPub: Uint8Array;
    time: string | undefined;
    trustRoot: TrustRoot | undefined;
    requireEvidence: EvidenceLevel | undefined;
    maxRecordProducts: number | undefined;
  },
): Promise<{ report: AuditReport; attestation: string; reportPath: string; htmlPath: string }> {
  const { log, round, k, threads, trust } = p;
  const plan = planAudit(log, {
    auditId: o.auditId ?? trust.announcement?.auditId ?? `audit-${log.root.slice(0, 16)}-r${round}`,
    randomness: trust.randomness.toLowerCase(),
    round,
    k,
    expectedRoot: rootFlag(o.root),
    evidence: trust.evidence,
    maxRecordProducts: p.maxRecordProducts,
  });
  const { ctx, close } = await openWorkContext({
    blobs: o.blobs ?? blobsBeside(o.log),
    threads: threads === undefined ? undefined : String(threads),
  });
  let merged: MergedAudit;
  const bar = progressBar("verifying", { enabled: o.progress });
  try {
    // Said once, before the first record: the bar shows only once one is done, and one record
    // may take hours.
    const cost = await predictPlanProducts(ctx.blobs, { plan, log });
    sayPredictedCost(cost, { plan, json: o.json === true, say: o.sayCost });
    merged = await runAuditPlan({ ...ctx, requireEvidence: p.requireEvidence }, {
      plan,
      log,
      worker: IN_PROCESS_WORKER,
      onProgress: bar.update,
    });
  } finally {
    bar.stop();
    close();
  }
  const { keys, workerPub } = p;
  const id = keyId(workerPub);
  merged = { ...merged, workers: merged.workers.map((w) => w === null ? null : id) };
  const written = await writeVerdict(merged, {
    store: ctx.store,
    keys,
    out: o.out,
    time: p.time,
    trust,
    workers: workerKeys([workerPub]),
    trustRoot: p.trustRoot,
    bundle: o.bundle === true,
    kinds: resultsByKind(merged.report.results, log.records),
  });
  return { report: merged.report, ...written };
}
