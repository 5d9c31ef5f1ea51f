/**
 * The verdict Statement an inspector signs: an in-toto Statement v1 whose subjects are the
 * committed log root and the sampled records, and whose predicate binds the audit id, the
 * public randomness and derived seed, the sampled indices, the detection statement, each
 * record's result, the verdict, the verifier's version and the digest of every asset used.
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import type { AuditReport } from "../verify/run_audit.ts";
import type { Statement } from "./statement.ts";
import { STATEMENT_TYPE } from "./statement.ts";
import type { DrandBinding } from "./beacon/drand_binding.ts";
import type { CheckpointBinding } from "./note/checkpoint_binding.ts";

/** Predicate type of verdicts (major version in the URI). */
export const VERDICT_PREDICATE_TYPE = "https://bitaudit.dev/audit-verdict/v1";

/** Verifier identity recorded in a verdict. */
export interface VerifierInfo {
  /** bitaudit version. */
  readonly version: string;
  /** K-walk engine used (`wasm` or `reference`). */
  readonly engine: string;
  /** Runtime, e.g. `deno 2.9.6`. */
  readonly runtime: string;
}

/**
 * Builds the verdict statement.
 *
 * @param report the audit report
 * @param options verifier info, asset digests (path -> sha256, including the manifest), the
 *   verification time (RFC 3339 UTC), and the verified drand round and prover checkpoint when the
 *   audit used them (without a round the beacon is recorded as `source: "unverified"`)
 * @returns the statement
 * @example
 * ```ts ignore
 * const st = verdictStatement(report, { verifier, assets, timeVerified: new Date().toISOString() });
 * ```
 */
export function verdictStatement(
  report: AuditReport,
  options: {
    verifier: VerifierInfo;
    assets: Readonly<Record<string, string>>;
    timeVerified: string;
    drand?: DrandBinding;
    checkpoint?: CheckpointBinding;
    /** The announcement envelope (parsed JSON) of an announced audit. */
    announcement?: unknown;
  },
): Statement {
  const subject = [
    { name: `claim-log-merkle-root:${report.logId}`, digest: { sha256: report.root } },
    ...report.results.map((r) => ({
      name: `bitaudit-claim:${report.logId}/${r.index}`,
      digest: { sha256: r.digest },
    })),
  ];
  const predicate = {
    verifier: { id: "bitaudit", ...options.verifier },
    timeVerified: options.timeVerified,
    audit: {
      auditId: report.auditId,
      logId: report.logId,
      population: report.population,
      logRoot: report.root,
      beacon: {
        randomness: report.randomness,
        round: report.round,
        source: options.drand === undefined ? "unverified" : "drand",
        ...(options.drand === undefined ? {} : { drand: options.drand }),
      },
      ...(options.checkpoint === undefined ? {} : { checkpoint: options.checkpoint }),
      ...(options.announcement === undefined
        ? {}
        : { announcement: { envelope: options.announcement } }),
      seedDerivation: report.seedDerivation,
      seed: report.seed,
      algorithm: report.algorithm,
      k: report.selected.length,
      selected: report.selected,
    },
    detection: report.detection,
    results: report.results.map((r) => ({
      index: r.index,
      record: r.digest,
      status: r.status,
      reason: r.reason,
      claimed: r.claimed,
      recomputed: r.recomputed,
      firstDifference: r.firstDifference,
      ...(r.sfu === undefined ? {} : { sfu: r.sfu }),
    })),
    verdict: report.verdict,
    assets: options.assets,
  };
  return { _type: STATEMENT_TYPE, subject, predicateType: VERDICT_PREDICATE_TYPE, predicate };
}

/**
 * Encodes a statement as the canonical (RFC 8785) bytes that go into the envelope payload.
 *
 * @param statement the statement
 * @returns UTF-8 bytes
 * @throws {TypeError} when the statement holds non-integer numbers
 * @example
 * ```ts
 * import { statementBytes } from "./verdict_statement.ts";
 * const b = statementBytes({ _type: "https://in-toto.io/Statement/v1", subject: [], predicateType: "x" });
 * if (new TextDecoder().decode(b)[0] !== "{") throw new Error();
 * ```
 */
export function statementBytes(statement: Statement): Uint8Array {
  return canonicalJson(statement);
}
