/**
 * The audit plan: everything an audit fixes before any record is recomputed (the seed derived from
 * the committed root and public randomness, the sampled indices, and one work item per sampled
 * record with its digest). Workers on any machine recompute the items of a plan; a merge puts
 * their results back together. Single-process audits run the same three steps in memory.
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { bytesToHex, canonicalJson, type ClaimLog, sha256Hex } from "../claims/mod.ts";
import { SAMPLE_ALGORITHM, sampleIndices } from "./sample_indices.ts";
import { AUDIT_SEED_DOMAIN, deriveSeed } from "./seed.ts";
import { productBudget } from "./record_products.ts";

/** Format tag of plan documents (v3: signed by the inspector). */
export const AUDIT_PLAN_FORMAT = "bitaudit/audit-plan/v3";

/** Most inspector signatures a plan carries (as many as the keys that may co-sign a verdict). */
export const MAX_PLAN_SIGNATURES = 64;

/** Domain of work-item digests. */
export const AUDIT_ITEM_DOMAIN = "bitaudit/audit-item/v1";

/** One sampled record to recompute. */
export interface PlanItem {
  /** Item digest: SHA-256 of the canonical JSON of the domain, audit id, root, seed, index, record. */
  readonly item: string;
  /** Index in the log. */
  readonly index: number;
  /** Record digest (hex). */
  readonly record: string;
  /** Workload kind of the record (any kind: the plan does not interpret it). */
  readonly kind: string;
  /** Claimed fingerprint (hex), so a merge can report an item no worker returned. */
  readonly claimed: string;
}

/**
 * The evidence that fixes an audit's randomness, as its files held it: the drand round and its
 * chain info, the prover's signed checkpoint and public key, the inspector's announcement and an
 * RFC 3161 time-stamp over it (base64). Each is optional here; whoever merges verifies them
 * again before signing (typed randomness has none of the drand fields).
 */
export interface PlanEvidence {
  /** drand round JSON. */
  readonly beacon?: string;
  /** drand chain info JSON. */
  readonly chain?: string;
  /** The prover's signed checkpoint note. */
  readonly checkpoint?: string;
  /** The prover's public key (SPKI PEM). */
  readonly proverPub?: string;
  /** The inspector's announcement (DSSE envelope JSON). */
  readonly announcement?: string;
  /** Base64 of the RFC 3161 token or response over the announcement's signature. */
  readonly announcementTimestamp?: string;
}

/**
 * One inspector's signature over a plan, opaque here: `signAuditPlan` and `verifyAuditPlan`
 * (src/attest) make and check it over the plan without its signatures.
 */
export interface PlanSignature {
  /** Key id of the inspector key (SHA-256 of its SPKI DER, lowercase hex). */
  readonly keyid: string;
  /** Standard base64 of the 64-byte Ed25519 signature. */
  readonly sig: string;
}

/** What an audit fixes before recomputation starts. */
export interface AuditPlan {
  /** {@link AUDIT_PLAN_FORMAT}. */
  readonly format: typeof AUDIT_PLAN_FORMAT;
  /** Audit identifier chosen by the inspector. */
  readonly auditId: string;
  /** Log id of the claim log's records. */
  readonly logId: string;
  /** Records in the log. */
  readonly population: number;
  /** The log's Merkle root (hex). */
  readonly logRoot: string;
  /** Public randomness (hex) and its beacon round. */
  readonly beacon: { readonly randomness: string; readonly round: number };
  /** Seed derivation domain (`AUDIT_SEED_DOMAIN`). */
  readonly seedDerivation: string;
  /** Derived seed (hex). */
  readonly seed: string;
  /** Sampling algorithm (`SAMPLE_ALGORITHM`). */
  readonly algorithm: string;
  /** Work items in selection order. */
  readonly items: readonly PlanItem[];
  /** The trust evidence behind the randomness (empty for typed randomness without a checkpoint). */
  readonly evidence: PlanEvidence;
  /**
   * Most products one item's recomputation may take (`--max-record-products`): an item predicted
   * over it is NOT_VERIFIED before anything is computed. Absent: the default,
   * `MAX_RECORD_PRODUCTS` (plans written before the option have none). Every worker applies it,
   * and the verdict records it.
   */
  readonly maxRecordProducts?: number;
  /**
   * The inspectors' signatures over everything above (none in a plan {@link planAudit} returns;
   * a plan file carries at least one: `audit plan --key` signs it, `audit merge` and `audit serve`
   * verify it with the keys that sign the verdict).
   */
  readonly signatures: readonly PlanSignature[];
}

/** Inputs of {@link planAudit}. */
export interface PlanInputs {
  /** Audit identifier chosen by the inspector. */
  readonly auditId: string;
  /** Public randomness fixed after the log was committed (hex). */
  readonly randomness: string;
  /** Beacon round of that randomness. */
  readonly round: number;
  /** Sample size. */
  readonly k: number;
  /** The root the prover committed to, if known: the log must match it. */
  readonly expectedRoot?: string | undefined;
  /** The trust evidence behind the randomness (default none). */
  readonly evidence?: PlanEvidence | undefined;
  /** Most products one item's recomputation may take (default `MAX_RECORD_PRODUCTS`). */
  readonly maxRecordProducts?: number | undefined;
}

/**
 * Plans an audit: checks the root, derives the seed, draws the sample and lists the work items.
 * The plan is unsigned (`signatures` empty): an audit run in one process uses it as it is; a plan
 * written to a file for workers is signed first (`signAuditPlan`).
 *
 * @param log the claim log (parsed and chain-checked)
 * @param inputs audit id, randomness (hex), round, k, optional expected root, evidence and
 *   product budget
 * @returns the plan
 * @throws {InputError} `AUDIT_ROOT_MISMATCH`, `AUDIT_K`, `AUDIT_SEED`
 * @throws {RangeError} for a budget that is not an integer in 1..`MAX_PRODUCT_BUDGET`
 * @example
 * ```ts ignore
 * const plan = planAudit(log, { auditId: "a1", randomness: "ab", round: 7, k: 10 });
 * ```
 */
export function planAudit(log: ClaimLog, inputs: PlanInputs): AuditPlan {
  const { auditId, randomness, round, k } = inputs;
  if (inputs.expectedRoot !== undefined && inputs.expectedRoot !== log.root) {
    throw new InputError(
      "AUDIT_ROOT_MISMATCH",
      `Cannot audit: the log's root ${log.root} differs from the committed ${inputs.expectedRoot}`,
    );
  }
  const population = log.records.length;
  if (!Number.isInteger(k) || k < 1 || k > population) {
    throw new InputError(
      "AUDIT_K",
      `Cannot audit: k must be an integer in 1..${population}, got ${k}`,
    );
  }
  let seedBytes: Uint8Array;
  try {
    seedBytes = deriveSeed({ auditId, logRoot: log.root, randomness, round });
  } catch (e) {
    throw new InputError("AUDIT_SEED", `Cannot derive the audit seed: ${(e as Error).message}`);
  }
  const seed = bytesToHex(seedBytes);
  const budget = inputs.maxRecordProducts;
  if (budget !== undefined) productBudget(budget);
  const head = { auditId, logRoot: log.root, seed };
  const { selected } = sampleIndices(seedBytes, { population, k });
  const items = selected.map((index) => {
    const p = log.records[index]!.predicate;
    const record = log.digests[index]!;
    return {
      item: itemDigest(head, { index, record }),
      index,
      record,
      kind: p.workload.kind,
      claimed: p.fingerprint.sha256,
    };
  });
  return {
    format: AUDIT_PLAN_FORMAT,
    auditId,
    logId: log.records[0]!.predicate.log.logId,
    population,
    logRoot: log.root,
    beacon: { randomness, round },
    seedDerivation: AUDIT_SEED_DOMAIN,
    seed,
    algorithm: SAMPLE_ALGORITHM,
    items,
    evidence: inputs.evidence ?? {},
    ...(budget === undefined ? {} : { maxRecordProducts: budget }),
    signatures: [],
  };
}

/**
 * The digest of one work item: binds the audit (id, root, seed) and the record (index, digest).
 *
 * @param audit audit id, log root (hex), seed (hex)
 * @param target the record's index and digest (hex)
 * @returns lowercase hex SHA-256
 * @example
 * ```ts
 * import { itemDigest } from "./audit_plan.ts";
 * const d = itemDigest({ auditId: "a", logRoot: "00", seed: "11" }, { index: 3, record: "22" });
 * if (d.length !== 64) throw new Error();
 * ```
 */
export function itemDigest(
  audit: { auditId: string; logRoot: string; seed: string },
  target: { index: number; record: string },
): string {
  const { auditId, logRoot, seed } = audit;
  const { index, record } = target;
  return sha256Hex(
    canonicalJson({ domain: AUDIT_ITEM_DOMAIN, auditId, logRoot, seed, index, record }),
  );
}

/**
 * The committed bytes of a plan: its RFC 8785 canonical JSON and a newline. A plan file must be
 * exactly these bytes ({@link parseAuditPlan}), so its SHA-256 names it.
 *
 * @param plan the plan
 * @returns UTF-8 text
 * @example
 * ```ts ignore
 * await Deno.writeTextFile("plan.json", encodeAuditPlan(plan));
 * ```
 */
export function encodeAuditPlan(plan: AuditPlan): string {
  return new TextDecoder().decode(canonicalJson(plan)) + "\n";
}

/**
 * The SHA-256 of a plan's committed bytes (names the plan in every item result).
 *
 * @param plan the plan
 * @returns lowercase hex
 * @example
 * ```ts ignore
 * const d = auditPlanDigest(plan);
 * ```
 */
export function auditPlanDigest(plan: AuditPlan): string {
  return sha256Hex(new TextEncoder().encode(encodeAuditPlan(plan)));
}
