/**
 * A small, self-consistent audit report built without running an audit (seed derived and sample
 * drawn as `runAudit` does, results chosen per index), shared by the verdict predicate tests.
 */
import {
  AUDIT_SEED_DOMAIN,
  type AuditReport,
  auditVerdict,
  bytesToHex,
  checkAttestation,
  type CheckReport,
  deriveSeed,
  detectionStatement,
  encodeStatement,
  IN_TOTO_PAYLOAD_TYPE,
  parseEnvelope,
  type RecordResult,
  SAMPLE_ALGORITHM,
  sampleIndices,
  signEnvelope,
  type SigningKey,
  type Statement,
} from "../../mod.ts";

/**
 * Signs a statement (or payload bytes, as a forger may write them) into an in-toto envelope with
 * these keys and checks it as `check` reads it from a file.
 *
 * @param payload the statement, or the payload's bytes
 * @param keys the signing keys
 * @param options `checkAttestation`'s options (the trust root, a release, a threshold, ...)
 */
export async function checkSigned(
  payload: Statement | Uint8Array,
  keys: readonly SigningKey[],
  options: Parameters<typeof checkAttestation>[1],
): Promise<CheckReport> {
  const bytes = payload instanceof Uint8Array ? payload : encodeStatement(payload);
  const env = await signEnvelope(bytes, { payloadType: IN_TOTO_PAYLOAD_TYPE, keys });
  return await checkAttestation(parseEnvelope(JSON.stringify(env)), options);
}

/** The SFU use of every PASS of {@link verdictReport}. */
export const SFU_USE = { fn: "ex2", model: "tesla-sfu-v1", status: "spot-checked" } as const;

/**
 * Its entry in an evidence list, as a verifier writes it (`SFU <fn> (<model>, <status>)` at the
 * status's level): a result listing evidence lists each SFU function it used there.
 */
export const SFU_EVIDENCE = {
  component: "SFU ex2 (tesla-sfu-v1, spot-checked)",
  level: "derived-from-source",
} as const;

/** Record digest of index `i` in the fake log. */
export const recordDigest = (i: number): string => i.toString(16).padStart(64, "0");

/**
 * Builds the report.
 *
 * @param options log size, sample size; by default record 1 (if sampled) fails with a first
 *   difference, record 2 is NOT_VERIFIED and every other record passes with an SFU use
 */
export function verdictReport(options: { population?: number; k?: number } = {}): AuditReport {
  const population = options.population ?? 8;
  const k = options.k ?? 8;
  const root = "11".repeat(32);
  const randomness = "22".repeat(32);
  const seed = deriveSeed({ auditId: "audit-t", logRoot: root, randomness, round: 7 });
  const { selected } = sampleIndices(seed, { population, k });
  const results: RecordResult[] = selected.map((index) => {
    const claimed = `${index}`.padStart(64, "a");
    const base = { index, digest: recordDigest(index), claimed, steps: [] };
    if (index === 1) {
      return {
        ...base,
        status: "FAIL",
        finding: "fingerprint",
        reason: "recomputed fingerprint differs",
        recomputed: "b".repeat(64),
        firstDifference: { index: 4, claimed: "0x3f49", recomputed: "0x3f4a" },
      };
    }
    if (index === 2) {
      return {
        ...base,
        status: "NOT_VERIFIED",
        reason: "missing input tensor",
        recomputed: null,
        firstDifference: null,
      };
    }
    return {
      ...base,
      status: "PASS",
      reason: "",
      recomputed: claimed,
      firstDifference: null,
      sfu: [SFU_USE],
    };
  });
  return {
    auditId: "audit-t",
    logId: "log-t",
    population,
    root,
    randomness,
    round: 7,
    seedDerivation: AUDIT_SEED_DOMAIN,
    seed: bytesToHex(seed),
    algorithm: SAMPLE_ALGORITHM,
    selected,
    results,
    verdict: auditVerdict(results),
    detection: detectionStatement(population, { k }),
  };
}

/**
 * A report of population 8 and k 2 whose sample is hand-picked, not the seed's: the seed draws
 * [6, 1] (record 1 FAILs), the picked sample is [4, 6] (both PASS), every other field (results,
 * verdict, detection, subjects once signed) consistent with the picked indices.
 */
export function cherryPickedReport(): AuditReport {
  const honest = verdictReport({ population: 8, k: 2 });
  const full = verdictReport({ population: 8, k: 8 });
  const picked = [4, 6].map((i) => full.results.find((r) => r.index === i)!);
  return { ...honest, selected: [4, 6], results: picked, verdict: auditVerdict(picked) };
}
