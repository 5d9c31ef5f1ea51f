/**
 * `bitaudit audit`: sample a committed claim log with public randomness, recompute, sign.
 *
 * @module
 */
import { Command } from "@commander-js/extra-typings";
import { openAssetStore, openBlobStore } from "../../assets/mod.ts";
import { signVerdict } from "../../attest/mod.ts";
import { InputError } from "../../errors.ts";
import { createGemmWalker } from "../../engine/mod.ts";
import { loadGemmEngine } from "../../resolve/mod.ts";
import { type AuditReport, runAudit } from "../../verify/mod.ts";
import { EXIT } from "../exit_codes.ts";
import {
  checkSigningKeyFiles,
  loadClaimLog,
  loadSigningKey,
  prepareOutputDir,
} from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { parseIntOption, parseThreads } from "../parse_int_option.ts";
import type { SigningKey } from "../../attest/mod.ts";
import { bytesToHex, type ClaimLog } from "../../claims/mod.ts";
import { progressBar } from "../progress.ts";
import { reportMarkdown } from "../report_markdown.ts";
import { loadTrustInputs, type TrustInputFlags, type TrustInputs } from "../trust_inputs.ts";
import { writeBundle } from "./bundle.ts";
import { writeNewFile } from "../write_new_file.ts";

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
export function auditCommand(): Command {
  return new Command("audit")
    .description(
      "sample a claim log with public randomness, recompute every sampled record, write a signed attestation and report.md",
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
    .option(
      "--randomness <hex>",
      "randomness typed in instead of --beacon (recorded as not verified)",
    )
    .option("--round <n>", "round of that randomness")
    .requiredOption("--k <k>", "number of records to sample")
    .requiredOption("--key <files...>", "inspector private key(s) (PKCS#8 PEM); several co-sign")
    .requiredOption("--out <dir>", "folder for attestation.dsse.json and report.md")
    .option("--blobs <dir>", "tensor blobs by sha256 (default: <log folder>/blobs)")
    .option("--audit-id <id>", "audit identifier (default: derived from the log root and round)")
    .option("--root <hex>", "the log root the prover committed to (refuse the log if it differs)")
    .option("--bundle", "also write attestation.sigstore.json (Sigstore bundle v0.3)")
    .option("--threads <n>", "worker threads")
    .option("--json", "machine-readable output")
    .action(async (opts) => {
      const { report } = await auditLog({ ...opts, keys: opts.key, progress: !opts.json });
      if (opts.json) printJson(_summary(report, opts.out));
      else _print(report, opts.out);
      Deno.exitCode = report.verdict === "PASSED"
        ? EXIT.OK
        : report.verdict === "FAILED"
        ? EXIT.FAIL
        : EXIT.INCONCLUSIVE;
    });
}

/**
 * Runs an audit and writes its outputs.
 *
 * @param o options as on the command line
 * @returns the report and the paths written
 * @throws {InputError} for unusable inputs (nothing is written then)
 * @example
 * ```ts ignore
 * await auditLog({ log, randomness, round: "1", k: "10", keys: ["i.key"], out: "o", progress: false });
 * ```
 */
export async function auditLog(
  o: AuditOptions,
): Promise<{ report: AuditReport; attestation: string; reportPath: string }> {
  const k = parseIntOption(o.k, { flag: "--k", min: 1 });
  const threads = o.threads === undefined ? undefined : parseThreads(o.threads);
  if (o.randomness !== undefined && !/^(?:[0-9a-fA-F]{2}){1,512}$/.test(o.randomness)) {
    throw new InputError(
      "USAGE_RANDOMNESS",
      "Cannot use --randomness: expected 2..1024 hex digits",
    );
  }
  if (o.round !== undefined) parseIntOption(o.round, { flag: "--round", min: 0 });
  // Key files are checked now but read only for signing, after every untrusted input has been
  // parsed and recomputed; only an announcement, which must be signed by these keys, needs them
  // before the audit.
  await checkSigningKeyFiles(o.keys);
  const log = await loadClaimLog(o.log);
  const early = o.announcement === undefined ? undefined : await _signingKeys(o.keys);
  const trust = await loadTrustInputs(o, {
    log,
    keys: (early ?? []).map((key) => key.publicKey),
  });
  const round = parseIntOption(trust.round, { flag: "--round", min: 0 });
  const done = await prepareOutputDir(o.out, [
    "attestation.dsse.json",
    "report.md",
    ...(o.bundle ? ["attestation.sigstore.json"] : []),
  ]);
  try {
    const r = await _auditAndSign(o, { log, round, k, threads, trust, early });
    await done(true);
    return r;
  } catch (e) {
    await done(false);
    throw e;
  }
}

/** Reads the private keys; two files holding the same key are refused. */
async function _signingKeys(paths: readonly string[]): Promise<SigningKey[]> {
  const keys = await Promise.all(paths.map(loadSigningKey));
  if (new Set(keys.map((key) => bytesToHex(key.publicKey))).size !== keys.length) {
    throw new InputError("USAGE_KEYS", "Cannot sign: two --key files hold the same key");
  }
  return keys;
}

async function _auditAndSign(
  o: AuditOptions,
  p: {
    log: ClaimLog;
    round: number;
    k: number;
    threads: number | undefined;
    trust: TrustInputs;
    early: SigningKey[] | undefined;
  },
): Promise<{ report: AuditReport; attestation: string; reportPath: string }> {
  const { log, round, k, threads, trust } = p;
  const store = await openAssetStore();
  const blobs = openBlobStore(o.blobs ?? `${o.log.replace(/[^/]*$/, "") || "."}/blobs`);
  const w = createGemmWalker(
    await loadGemmEngine(store),
    threads === undefined ? {} : { threads },
  );
  const bar = progressBar("verifying", { enabled: o.progress });
  let report: AuditReport;
  try {
    report = await runAudit({ store, blobs, walker: w.walker, attention: w.attention }, {
      log,
      auditId: o.auditId ?? trust.announcement?.auditId ??
        `audit-${log.root.slice(0, 16)}-r${round}`,
      randomness: trust.randomness.toLowerCase(),
      round,
      k,
      ...(o.root ? { expectedRoot: o.root.toLowerCase() } : {}),
      onProgress: bar.update,
    });
  } finally {
    bar.stop();
    w.close();
  }
  const keys = p.early ?? await _signingKeys(o.keys);
  const signed = await signVerdict(report, {
    keys,
    store,
    engine: w.engine,
    ...(o.time === undefined ? {} : { time: o.time }),
    trust: {
      ...(trust.drand === undefined ? {} : { drand: trust.drand }),
      ...(trust.checkpoint === undefined ? {} : { checkpoint: trust.checkpoint }),
      ...(trust.announcement === undefined ? {} : { announcement: trust.announcement.envelope }),
      ...(trust.announcement?.timestamp === undefined
        ? {}
        : { announcementTimestamp: trust.announcement.timestamp }),
    },
  });
  const attestation = `${o.out}/attestation.dsse.json`;
  const reportPath = `${o.out}/report.md`;
  await writeNewFile(attestation, signed.text);
  if (o.bundle) {
    await writeBundle(signed.envelope, {
      out: `${o.out}/attestation.sigstore.json`,
      timestamps: [],
    });
  }
  const { keyids, timeVerified, assets } = signed;
  await writeNewFile(
    reportPath,
    reportMarkdown(report, { keyids, timeVerified, engine: w.engine, assets, trust }),
  );
  return { report, attestation, reportPath };
}

function _summary(r: AuditReport, out: string) {
  return {
    verdict: r.verdict,
    auditId: r.auditId,
    root: r.root,
    seed: r.seed,
    selected: r.selected,
    results: r.results.map(({ steps: _s, ...x }) => x),
    detection: r.detection,
    attestation: `${out}/attestation.dsse.json`,
    report: `${out}/report.md`,
  };
}

function _print(r: AuditReport, out: string): void {
  const n = (s: string) => r.results.filter((x) => x.status === s).length;
  printText(
    `verdict: ${r.verdict}  (${n("PASS")} PASS, ${n("FAIL")} FAIL, ${
      n("NOT_VERIFIED")
    } NOT_VERIFIED of ${r.selected.length} sampled from ${r.population})`,
  );
  for (const x of r.results.filter((x) => x.status !== "PASS")) {
    printText(`  record ${x.index}: ${x.status}: ${x.reason}`);
  }
  printText(`wrote ${out}/attestation.dsse.json and ${out}/report.md`);
}
