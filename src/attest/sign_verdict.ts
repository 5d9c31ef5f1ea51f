/**
 * Signing an audit's verdict: the library path from an `AuditReport` to the DSSE attestation that
 * `bitaudit audit` writes, byte for byte.
 *
 * @module
 */
import { type AssetStore, MANIFEST_PATH } from "../assets/mod.ts";
import { VERSION } from "../version.ts";
import type { AuditReport } from "../verify/mod.ts";
import { type DsseEnvelope, signEnvelope, type SigningKey } from "./dsse.ts";
import { MAX_ENVELOPE_BYTES } from "./envelope.ts";
import { InputError } from "../errors.ts";
import { checkWorkerKeys } from "./check_worker_keys.ts";
import { keyId } from "./key_id.ts";
import { judgeSigningKeys } from "./judge_signing_keys.ts";
import { parseVerdictPredicate } from "./parse_verdict_predicate.ts";
import { reverifyDrandBinding } from "./beacon/mod.ts";
import { statementChecks } from "./statement_checks.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { encodeStatement, IN_TOTO_PAYLOAD_TYPE, type Statement } from "./statement.ts";
import type { TrustRoot } from "./trust_root.ts";
import type { BuildVerdictPredicateOptions, VerdictPredicate } from "./verdict_predicate.ts";
import { verdictStatement } from "./verdict_statement.ts";

/** Options of {@link signVerdict}. */
export interface SignVerdictOptions {
  /** Inspector keys; several co-sign the one envelope. */
  readonly keys: readonly SigningKey[];
  /**
   * Verification time (RFC 3339), recorded as `timeVerified`; the keys must be valid then.
   * Default: now, in whole seconds UTC (`2026-03-01T12:00:00Z`).
   */
  readonly time?: string;
  /** The asset store the audit read from: its manifest digest and every asset used are bound. */
  readonly store: Pick<AssetStore, "manifestSha256" | "used">;
  /** K-walk engine that ran the recomputation (`wasm` or `reference`, as the walker reports). */
  readonly engine: string;
  /** Runtime recorded in the verdict. Default: `deno <version>` of this process. */
  readonly runtime?: string;
  /**
   * The audit's verified trust inputs: the drand round (without it the randomness is recorded as
   * `source: "unverified"`), the prover checkpoint and the announcement envelope.
   */
  readonly trust?: Pick<
    BuildVerdictPredicateOptions,
    "drand" | "checkpoint" | "announcement" | "announcementTimestamp"
  >;
  /** Who computed each result (worker key ids and keys) and what the signer re-verified. */
  readonly workers?: BuildVerdictPredicateOptions["workers"];
  /**
   * The trust root the verdict will be checked with, when the signer has it: `check`'s
   * signatures rule (`judgeSigningKeys`) is run on the signing keys and its `workers` check
   * (`checkWorkerKeys`) on the predicate before it is signed. Fewer signing keys than `check`
   * counts (inspector keys of the root valid at `time` and now), or a worker key it refuses (a
   * prover key of the root, or an inspector key of it not valid at `time`), refuses the signing.
   * Absent: the signer vouches for its keys and workers, and only `check` judges them.
   */
  readonly trustRoot?: TrustRoot;
  /**
   * Largest attestation signed, in UTF-8 bytes of its file text (default and most
   * {@link MAX_ENVELOPE_BYTES}, what every checker reads; less for a checker with less room).
   */
  readonly maxBytes?: number;
}

/** A signed verdict and what was bound into it. */
export interface SignedVerdict {
  /** The DSSE envelope over the encoded statement. */
  readonly envelope: DsseEnvelope;
  /** The attestation file's text: the envelope as two-space-indented JSON and a final newline. */
  readonly text: string;
  /** The signed statement. */
  readonly statement: Statement<VerdictPredicate>;
  /** Key ids of the signers, in signing order. */
  readonly keyids: readonly string[];
  /** The recorded verification time. */
  readonly timeVerified: string;
  /** Asset path -> sha256 bound into the verdict (the manifest first). */
  readonly assets: Readonly<Record<string, string>>;
}

/**
 * Signs an audit report's verdict into a DSSE envelope over an in-toto Statement.
 *
 * Before anything is signed, the predicate is read back with `parseVerdictPredicate` and the
 * statement is put through the checks `checkAttestation` runs on it without a trust root
 * (`statementChecks`: seed, sample, result order, the verdict following from the results and the
 * evidence policy, detection, subjects), and a drand binding is re-verified: a report edited by
 * hand (a PASSED verdict over a FAIL, a round that does not verify) is refused, never signed.
 * Given the `trustRoot` the verdict will be checked with, the signing keys and the worker keys are
 * judged as `check` judges them, and a verdict it would refuse for them is not signed.
 * Ed25519 signatures are deterministic: the same report, keys, time and assets give the same
 * bytes.
 *
 * @param report the audit report (`runAudit`)
 * @param options signing `keys`, `time`, the asset `store`, the `engine` (and `runtime`)
 * @returns the envelope, its file text, the statement, key ids, time and asset digests
 * @throws {InputError} `BAD_TIMESTAMP` when `time` is not RFC 3339; `ENVELOPE_TOO_LARGE` when
 *   the attestation would exceed `MAX_ENVELOPE_BYTES`; a `VerdictPredicateCode`
 *   when the report does not make a valid predicate (`VERDICT_FIELD_VALUE` when it fails a
 *   statement check); `BEACON_INVALID` when the drand binding does not verify;
 *   `SIGNING_KEY_REFUSED` when `check` with `trustRoot` would count fewer signers than it
 *   requires; `WORKER_KEY_REFUSED` when `trustRoot` refuses a worker key
 * @throws {RangeError} when no key is given, a key appears twice or its halves do not match
 * @example
 * ```ts ignore
 * const report = await runAudit(ctx, { log, auditId, randomness, round, k });
 * const { text } = await signVerdict(report, { keys: [inspector], store, engine: "wasm" });
 * await Deno.writeTextFile("attestation.dsse.json", text);
 * ```
 */
export async function signVerdict(
  report: AuditReport,
  options: SignVerdictOptions,
): Promise<SignedVerdict> {
  const timeVerified = options.time ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  parseRfc3339(timeVerified);
  const assets = { [MANIFEST_PATH]: options.store.manifestSha256, ...options.store.used() };
  const statement = verdictStatement(report, {
    verifier: {
      version: VERSION,
      engine: options.engine,
      runtime: options.runtime ?? `deno ${Deno.version.deno}`,
    },
    assets,
    timeVerified,
    ...options.trust,
    ...(options.workers === undefined ? {} : { workers: options.workers }),
  });
  const predicate = parseVerdictPredicate(statement.predicate);
  const failed: string[] = [];
  statementChecks(statement.subject, predicate, (check, ok, detail) => {
    if (!ok) failed.push(`${check}: ${detail}`);
  });
  if (failed.length > 0) {
    throw new InputError(
      "VERDICT_FIELD_VALUE",
      `Cannot sign the verdict: a checker would refuse it (${failed.join("; ")})`,
    );
  }
  if (options.trustRoot !== undefined) {
    const judged = judgeSigningKeys(options.keys.map((k) => k.publicKey), {
      trustRoot: options.trustRoot,
      time: timeVerified,
    });
    if (judged.refusal !== null) {
      throw new InputError(
        "SIGNING_KEY_REFUSED",
        `Cannot sign the verdict: check with the trust root given would count ${judged.refusal}`,
      );
    }
    _checkWorkers(predicate, { trustRoot: options.trustRoot, signers: judged.counted });
  }
  const { beacon } = predicate.audit;
  if (beacon.drand !== undefined) {
    // What `check` asks of the round, short of the trust root's pinning (the signer's own choice).
    const { verification: v, timeAgrees } = reverifyDrandBinding(beacon.drand);
    const why = !v.verified
      ? `does not verify (${v.reason})`
      : v.randomness !== beacon.randomness
      ? "is not the randomness recorded (SHA-256 of its signature)"
      : v.round !== beacon.round
      ? "is not the round recorded"
      : !timeAgrees
      ? "has a recorded time that is not the chain's"
      : null;
    if (why !== null) {
      throw new InputError("BEACON_INVALID", `Cannot sign the verdict: its drand round ${why}`);
    }
  }
  const envelope = await signEnvelope(encodeStatement(statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: options.keys,
  });
  const text = JSON.stringify(envelope, null, 2) + "\n";
  const bytes = new TextEncoder().encode(text).length;
  const max = Math.min(options.maxBytes ?? MAX_ENVELOPE_BYTES, MAX_ENVELOPE_BYTES);
  if (bytes > max) {
    // Signed, it could be checked by nobody: refused while the inspector can still act.
    throw new InputError(
      "ENVELOPE_TOO_LARGE",
      `Cannot sign the verdict: its attestation would take ${bytes} bytes, over the ${max} ` +
        `a checker reads (${report.results.length} records' results); sample fewer records`,
    );
  }
  return {
    envelope,
    text,
    statement,
    keyids: options.keys.map((key) => keyId(key.publicKey)),
    timeVerified,
    assets,
  };
}

/**
 * `check`'s `workers` check on a predicate about to be signed: the signers it counts are the
 * signing keys `check` would count (`judgeSigningKeys`; a worker key among them is judged by the
 * signatures check, not this one).
 */
function _checkWorkers(
  p: VerdictPredicate,
  o: { readonly trustRoot: TrustRoot; readonly signers: readonly string[] },
): void {
  let refused: string | null = null;
  checkWorkerKeys(p, {
    trustRoot: o.trustRoot,
    signers: o.signers,
    add: (_check, ok, detail) => {
      if (!ok) refused = detail;
    },
  });
  if (refused !== null) {
    throw new InputError(
      "WORKER_KEY_REFUSED",
      `Cannot sign the verdict: check with the trust root given would refuse its workers: ${refused}`,
    );
  }
}
