/**
 * The verdict Statement an inspector signs: an in-toto Statement v1 whose subjects are the
 * committed log root and the sampled records, and whose predicate binds the audit id, the
 * public randomness and derived seed, the sampled indices, the detection statement, each
 * record's result, the verdict, the verifier's version and the digest of every asset used.
 *
 * Prover obligations: a sampled record whose committed input tensors the prover did not produce
 * (missing, or bytes not hashing to the committed digest) is FAIL, and its result carries
 * `obligation: "committed-input"`; NOT_VERIFIED is kept for what the verifier cannot emulate.
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import type { AuditReport } from "../verify/run_audit.ts";
import type { Statement } from "./statement.ts";
import { STATEMENT_TYPE } from "./statement.ts";

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
 * @param options verifier info, asset digests (path -> sha256, including the manifest), and the
 *   verification time (RFC 3339 UTC)
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
      beacon: { randomness: report.randomness, round: report.round },
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
      ...(r.obligation === undefined ? {} : { obligation: r.obligation }),
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
