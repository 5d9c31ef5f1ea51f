/**
 * `bitaudit check`: offline verification of an attestation by a third party.
 *
 * @module
 */
import { Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import { openAssetStore, openBlobStore } from "../../assets/mod.ts";
import { checkAttestation, type CheckReport, MAX_TIMESTAMP_TOKEN_BYTES } from "../../attest/mod.ts";
import type { ClaimLog } from "../../claims/mod.ts";
import { InputError, UsageError } from "../../errors.ts";
import { createGemmWalker } from "../../engine/mod.ts";
import { nativeSha256 } from "../native_sha256.ts";
import { loadGemmEngine } from "../../resolve/mod.ts";
import { verifyRecord } from "../../verify/mod.ts";
import { EXIT } from "../exit_codes.ts";
import { loadClaimLog, loadEnvelope, loadTrustRoot } from "../load_inputs.ts";
import { printJson, printText } from "../output.ts";
import { parseIntOption } from "../parse_int_option.ts";

/** Options of {@link checkFile}. */
export interface CheckOptions {
  readonly attestation: string;
  readonly trustRoot: string;
  readonly log?: string;
  readonly blobs?: string;
  readonly recompute?: boolean;
  readonly threshold?: number;
  /** RFC 3161 token (DER) over a signature of the attestation. */
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
  return new Command("check")
    .description(
      "verify an attestation offline: signatures against a trust root, seed and sample, optionally the log and a full recomputation",
    )
    .argument("<attestation>", "attestation.dsse.json")
    .requiredOption("--trust-root <file>", "trust root JSON listing inspector keys")
    .option("--log <file>", "claims.jsonl: confirm the attested records against the log")
    .option("--blobs <dir>", "tensor blobs for --recompute (default: <log folder>/blobs)")
    .option("--recompute", "re-run every sampled record and confirm each result")
    .option("--threshold <n>", "distinct inspector signatures required", "1")
    .option(
      "--timestamp <file>",
      "RFC 3161 token (DER) over the attestation's signature: keys are judged at its time",
    )
    .option("--json", "machine-readable output")
    .action(async (attestation, opts) => {
      const threshold = parseIntOption(opts.threshold, { flag: "--threshold", min: 1, max: 64 });
      const report = await checkFile({
        attestation,
        trustRoot: opts.trustRoot,
        threshold,
        ...(opts.log ? { log: opts.log } : {}),
        ...(opts.blobs ? { blobs: opts.blobs } : {}),
        ...(opts.recompute ? { recompute: true } : {}),
        ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
      });
      if (opts.json) printJson(report);
      else {
        for (const c of report.checks) {
          printText(`${c.ok ? "ok  " : "FAIL"} ${c.check}: ${c.detail}`);
        }
        printText(
          report.valid
            ? `VALID attestation: verdict ${report.verdict} (audit ${report.auditId})`
            : "INVALID attestation",
        );
        if (report.trust !== undefined) {
          console.log(
            `randomness: ${
              report.trust.randomness === "drand" ? "verified drand round" : "NOT a verified beacon"
            }; commitment: ${
              report.trust.commitment === "none" ? "no signed checkpoint" : "prover-signed"
            }; sample ${
              report.trust.announcement === "none" ? "not pre-committed" : "announced in advance"
            }`,
          );
        }
      }
      Deno.exitCode = report.valid ? EXIT.OK : EXIT.FAIL;
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
  if (o.recompute && !o.log) {
    throw new UsageError("USAGE_RECOMPUTE", "Cannot --recompute without --log");
  }
  const envelope = await loadEnvelope(o.attestation);
  const trustRoot = await loadTrustRoot(o.trustRoot);
  let log: ClaimLog | undefined;
  if (o.log) log = await loadClaimLog(o.log);
  const timestamp = o.timestamp === undefined ? {} : { timestamp: await _readToken(o.timestamp) };
  if (!o.recompute) {
    return await checkAttestation(envelope, {
      trustRoot,
      threshold: o.threshold ?? 1,
      ...(log ? { log } : {}),
      ...timestamp,
    });
  }
  const store = await openAssetStore();
  const w = createGemmWalker(await loadGemmEngine(store), { callerWalks: false });
  try {
    const blobs = openBlobStore(o.blobs ?? `${o.log!.replace(/[^/]*$/, "") || "."}/blobs`, {
      hasher: nativeSha256,
    });
    const ctx = { store, blobs, walker: w.walker, attention: w.attention };
    return await checkAttestation(envelope, {
      trustRoot,
      threshold: o.threshold ?? 1,
      ...(log ? { log } : {}),
      ...timestamp,
      recompute: (index) => verifyRecord(ctx, { log: log!, index }),
    });
  } finally {
    w.close();
  }
}

async function _readToken(path: string): Promise<Uint8Array> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (e) {
    throw new InputError("INPUT_MISSING", `Cannot read '${path}': ${(e as Error).name}`);
  }
  if (!info.isFile || info.size > MAX_TIMESTAMP_TOKEN_BYTES) {
    throw new InputError(
      "INPUT_TOO_LARGE",
      `Cannot read '${path}': not a file of at most ${MAX_TIMESTAMP_TOKEN_BYTES} bytes`,
    );
  }
  return await Deno.readFile(path);
}
