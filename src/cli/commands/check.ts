/**
 * `bitaudit check`: offline verification of an attestation by a third party.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import {
  checkAttestation,
  type CheckReport,
  decodeBase64,
  MAX_ENVELOPE_BYTES,
  MAX_TIMESTAMP_TOKEN_BYTES,
  parseStatement,
  parseVerdictPredicate,
  readAttestation,
  type TrustRoot,
  type VerdictPredicate,
} from "../../attest/mod.ts";
import { type AssetStore, openAssetStore } from "../../assets/mod.ts";
import type { ClaimLog } from "../../claims/mod.ts";
import { UsageError } from "../../errors.ts";
import { blobsBeside, openWorkContext } from "../work_context.ts";
import { verifyRecord } from "../../verify/mod.ts";
import { validityHints } from "../../web/mod.ts";
import { type CheckedAttestation, checkLines } from "../check_lines.ts";
import { checkPolicy, parseCheckPolicy } from "../check_policy.ts";
import { EXIT } from "../exit_codes.ts";
import { loadClaimLog, loadTrustRoot } from "../load_inputs.ts";
import { printJson } from "../output.ts";
import { parseIntOption } from "../parse_int_option.ts";
import { readBinaryFile, readTextFile } from "../read_json_file.ts";
import { addCommandHelp } from "../command_help.ts";
import { releaseAssets } from "../release_assets.ts";

/** Options of {@link checkFile}. */
export interface CheckOptions {
  /** `attestation.dsse.json`, or a Sigstore bundle (`bundle`, `audit --bundle`): told by content. */
  readonly attestation: string;
  readonly trustRoot: string;
  readonly log?: string;
  readonly blobs?: string;
  readonly recompute?: boolean;
  /** Worker threads for `recompute` (default: every core). */
  readonly threads?: string;
  readonly threshold?: number;
  /**
   * RFC 3161 token (DER) over a signature of the attestation; it replaces the timestamp a bundle
   * carries.
   */
  readonly timestamp?: string;
}

/**
 * Builds the `check` command.
 *
 * @returns the commander command
 * @example
 * ```ts
 * import { checkCommand } from "./check.ts";
 * if (checkCommand().name() !== "check") throw new Error();
 * ```
 */
export function checkCommand(): CommandUnknownOpts {
  return addCommandHelp(new Command("check"))
    .description(
      "verify an attestation offline: signatures against a trust root, seed and sample, optionally the log and a full recomputation",
    )
    .argument(
      "<attestation>",
      "attestation.dsse.json, or the Sigstore bundle attestation.sigstore.json",
    )
    .requiredOption("--trust-root <file>", "trust root JSON listing inspector keys")
    .option("--log <file>", "claims.jsonl: confirm the attested records against the log")
    .option("--blobs <dir>", "tensor blobs for --recompute (default: <log folder>/blobs)")
    .option("--recompute", "re-run every sampled record and confirm each result")
    .option("--threads <n>", "worker threads for --recompute (default: every core)")
    .option("--threshold <n>", "distinct inspector signatures required", "1")
    .option(
      "--timestamp <file>",
      "RFC 3161 token (DER) over a signature of the attestation: the key that made that signature is judged at its time (replaces a bundle's own)",
    )
    .option(
      "--require-verdict <verdict>",
      "policy: exit 1 unless the valid attestation's verdict is this (PASSED, FAILED, INCONCLUSIVE)",
    )
    .option("--require-root <hex>", "policy: exit 1 unless the audited log root is this")
    .option(
      "--require-prover <keyid>",
      "policy: exit 1 unless this prover key signed the attested checkpoint",
    )
    .option(
      "--require-evidence <level>",
      "policy: exit 1 unless every PASS rests on components known at least this well " +
        "(derived-from-source, checked-against-peer, measured-on-gpu)",
    )
    .option(
      "--require-announcement",
      "policy: exit 1 unless a verified RFC 3161 timestamp dates the audit's announcement before its round (a stated time is the inspector's word)",
    )
    .option(
      "--require-sample <k>",
      "policy: exit 1 unless the audit sampled at least k records (samples of one audit id and round are prefixes of one another: announcing several k gains nothing over the smallest accepted)",
    )
    .option("--json", "machine-readable output")
    .action(async (attestation, opts) => {
      const threshold = parseIntOption(opts.threshold, { flag: "--threshold", min: 1, max: 64 });
      const policy = parseCheckPolicy(opts);
      const checked = await checkAttestationFile({
        attestation,
        trustRoot: opts.trustRoot,
        threshold,
        ...(opts.log ? { log: opts.log } : {}),
        ...(opts.blobs === undefined ? {} : { blobs: opts.blobs }),
        ...(opts.recompute ? { recompute: true } : {}),
        ...(opts.threads === undefined ? {} : { threads: opts.threads }),
        ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
      });
      const c: CheckedAttestation = policy === null ? checked : {
        ...checked,
        policy: checkPolicy(policy, checked.predicate, {
          ...(checked.report.trust === undefined ? {} : { trust: checked.report.trust }),
        }),
      };
      if (opts.json) {
        printJson({
          ...c.report,
          attestationFormat: c.format,
          ...(c.hints.length === 0 ? {} : { hints: c.hints }),
          ...(c.policy === undefined ? {} : { policy: c.policy }),
        });
      } else {
        const color = Deno.stdout.isTerminal() && !Deno.noColor;
        for (const line of checkLines(c, { color })) console.log(line);
      }
      // A verdict of this release computed with other assets has its own exit code: the
      // attestation is INVALID, and what is wrong is an install's assets (the inspector's, or
      // this one's manifest), not the statement's other contents.
      Deno.exitCode = c.report.checks.some((k) => k.check === "assets" && !k.ok)
        ? EXIT.OTHER_ASSETS
        : c.report.valid && (c.policy?.met ?? true)
        ? EXIT.OK
        : EXIT.FAIL;
    });
}

/**
 * Checks an attestation file.
 *
 * @param o paths and options
 * @returns the check report
 * @throws {InputError} for unreadable or malformed inputs; {UsageError} for refused flags
 * @example
 * ```ts ignore
 * const r = await checkFile({ attestation: "a.json", trustRoot: "t.json" });
 * ```
 */
export async function checkFile(o: CheckOptions): Promise<CheckReport> {
  return (await checkAttestationFile(o)).report;
}

/**
 * Checks an attestation file (a DSSE envelope or a Sigstore bundle) and says what it found, as
 * `check` prints it: the report, the verified predicate, the file's form and the hints on validity
 * windows.
 *
 * @param o paths and options
 * @returns what the check found (no policy: see `checkPolicy`); a verdict of this release is held
 *   to this install's asset manifest (`assets` checks)
 * @throws {InputError} for unreadable or malformed inputs; {UsageError} for refused flags;
 *   {AssetError} `MANIFEST_MISSING`, `MANIFEST_INVALID` when this install's manifest is unusable
 * @example
 * ```ts ignore
 * const { report, predicate } = await checkAttestationFile({ attestation: "a.json", trustRoot: "t.json" });
 * ```
 */
export async function checkAttestationFile(o: CheckOptions): Promise<CheckedAttestation> {
  // Flags that only a recomputation reads: given without one, they would be silently ignored.
  for (const [flag, value] of [["--threads", o.threads], ["--blobs", o.blobs]] as const) {
    if (value !== undefined && !o.recompute) {
      throw new UsageError("USAGE_RECOMPUTE", `Cannot use ${flag} without --recompute`);
    }
  }
  if (o.recompute && !o.log) {
    throw new UsageError("USAGE_RECOMPUTE", "Cannot --recompute without --log");
  }
  const file = readAttestation(await readTextFile(o.attestation, { maxBytes: MAX_ENVELOPE_BYTES }));
  const trustRoot = await loadTrustRoot(o.trustRoot);
  let log: ClaimLog | undefined;
  if (o.log) log = await loadClaimLog(o.log);
  const token = o.timestamp === undefined ? file.timestamps[0] : await _readToken(o.timestamp);
  const store = await openAssetStore();
  const report = await _check(file.envelope, { o, trustRoot, log, token, store });
  return {
    report,
    predicate: report.valid ? _predicate(file.envelope.payload) : null,
    format: file.format,
    token: o.timestamp !== undefined ? "given" : token !== undefined ? "bundle" : null,
    hints: await validityHints({ report, envelope: file.envelope, trustRoot }),
  };
}

async function _check(
  envelope: Parameters<typeof checkAttestation>[0],
  c: {
    o: CheckOptions;
    trustRoot: TrustRoot;
    log: ClaimLog | undefined;
    token: Uint8Array | undefined;
    store: AssetStore;
  },
): Promise<CheckReport> {
  const { o, trustRoot, log, store } = c;
  const release = releaseAssets(store);
  const timestamp = c.token === undefined ? {} : { timestamp: c.token };
  if (!o.recompute) {
    return await checkAttestation(envelope, {
      trustRoot,
      threshold: o.threshold ?? 1,
      ...(log ? { log } : {}),
      ...timestamp,
      release,
    });
  }
  const { ctx, close } = await openWorkContext({
    blobs: o.blobs ?? blobsBeside(o.log!),
    threads: o.threads,
    store,
  });
  try {
    return await checkAttestation(envelope, {
      trustRoot,
      threshold: o.threshold ?? 1,
      ...(log ? { log } : {}),
      ...timestamp,
      release,
      // Under the policy the attested audit applied (`audit.requireEvidence`, and its budget a
      // record, `audit.maxRecordProducts`), as it did.
      recompute: (index, policy) => verifyRecord({ ...ctx, ...policy }, { log: log!, index }),
    });
  } finally {
    close();
  }
}

/** The predicate of a valid attestation's payload (the bytes its signatures cover). */
function _predicate(payload: string): VerdictPredicate {
  return parseVerdictPredicate(
    parseStatement(decodeBase64(payload, { alphabet: "any" })).predicate,
  );
}

async function _readToken(path: string): Promise<Uint8Array> {
  return await readBinaryFile(path, MAX_TIMESTAMP_TOKEN_BYTES);
}
