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
import { loadClaimLog, loadSigningKey, prepareOutputDir } from "../load_inputs.ts";
import { printJson } from "../output.ts";
import { progressBar } from "../progress.ts";
import { reportMarkdown } from "../report_markdown.ts";
import { loadTrustInputs, type TrustInputFlags } from "../trust_inputs.ts";
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
  const k = _int(o.k, "--k", 1);
  if (o.randomness !== undefined && !/^(?:[0-9a-fA-F]{2}){1,512}$/.test(o.randomness)) {
    throw new InputError(
      "USAGE_RANDOMNESS",
      "Cannot use --randomness: expected 2..1024 hex digits",
    );
  }
  if (o.round !== undefined) _int(o.round, "--round", 0);
  const keys = await Promise.all(o.keys.map(loadSigningKey));
  const log = await loadClaimLog(o.log);
  const trust = await loadTrustInputs(o, { log, keys: keys.map((key) => key.publicKey) });
  const round = _int(trust.round, "--round", 0);
  await prepareOutputDir(o.out, [
    "attestation.dsse.json",
    "report.md",
    ...(o.bundle ? ["attestation.sigstore.json"] : []),
  ]);
  const store = await openAssetStore();
  const blobs = openBlobStore(o.blobs ?? `${o.log.replace(/[^/]*$/, "") || "."}/blobs`);
  const w = createGemmWalker(
    await loadGemmEngine(store),
    o.threads ? { threads: _int(o.threads, "--threads", 1) } : {},
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
  console.log(
    `verdict: ${r.verdict}  (${n("PASS")} PASS, ${n("FAIL")} FAIL, ${
      n("NOT_VERIFIED")
    } NOT_VERIFIED of ${r.selected.length} sampled from ${r.population})`,
  );
  for (const x of r.results.filter((x) => x.status !== "PASS")) {
    console.log(`  record ${x.index}: ${x.status}: ${x.reason}`);
  }
  console.log(`wrote ${out}/attestation.dsse.json and ${out}/report.md`);
}

function _int(text: string, flag: string, min: number): number {
  const v = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(v) || v < min) {
    throw new InputError(
      "USAGE_NUMBER",
      `Cannot use ${flag} '${text}': expected an integer >= ${min}`,
    );
  }
  return v;
}
