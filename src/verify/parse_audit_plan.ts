/**
 * Reads a plan back strictly: the text must be exactly the plan's canonical bytes (so duplicate
 * keys, unknown fields, reordered members or extra whitespace are all refused: every byte is
 * committed), every field has its type, and the seed, the sample and every item digest are
 * recomputed from the plan's own public inputs, so a plan cannot carry a hand-picked sample. A plan
 * file carries 1 to `MAX_PLAN_SIGNATURES` inspector signatures with distinct key ids, read here as
 * opaque data: whoever signs the verdict verifies them (`verifyAuditPlan` in src/attest), a
 * worker need not.
 *
 * @module
 */
import { bytesToHex, hexToBytes } from "../claims/mod.ts";
import {
  AUDIT_PLAN_FORMAT,
  type AuditPlan,
  encodeAuditPlan,
  itemDigest,
  MAX_PLAN_SIGNATURES,
  type PlanEvidence,
  type PlanItem,
  type PlanSignature,
} from "./audit_plan.ts";
import { SAMPLE_ALGORITHM, sampleIndices } from "./sample_indices.ts";
import { AUDIT_SEED_DOMAIN, deriveSeed } from "./seed.ts";
import { AUDIT_ID_PATTERN, AUDIT_ID_RULE } from "./audit_id.ts";
import { exactObject, readDocument, requireCanonical, type Shape } from "./_exact_object.ts";
import { HEX64, readBudget, readPlanItem } from "./_shapes.ts";

/**
 * Parses and checks a plan document.
 *
 * @param text the plan file's text
 * @param where name for messages (e.g. the file path)
 * @returns the plan (frozen)
 * @throws {InputError} `PLAN_INVALID` naming the first defect
 * @example
 * ```ts ignore
 * const plan = parseAuditPlan(await Deno.readTextFile("plan.json"), "plan.json");
 * ```
 */
export function parseAuditPlan(text: string, where: string): AuditPlan {
  const { value, bad } = readDocument(text, {
    code: "PLAN_INVALID",
    action: `read plan '${where}'`,
    maxValues: _valueLimit(text.length),
  });
  const plan = _shape(value, bad);
  requireCanonical(text, { encode: () => encodeAuditPlan(plan), bad });
  _recompute(plan, bad);
  return Object.freeze(plan);
}

/**
 * The most JSON values a plan text of `chars` characters can hold: 256 for its fixed fields and up to
 * `MAX_PLAN_SIGNATURES` signatures (213 at most), and one per 32 characters for its items (six
 * values each: the object and its five fields, in at least the 192 characters of its three
 * digests). A 64 MiB plan holds 2,097,408 at most, whatever k; any other value is refused as it
 * is read, before it is built.
 */
function _valueLimit(chars: number): number {
  return 256 + Math.floor(chars / 32);
}

function _shape(value: unknown, bad: (why: string) => never): AuditPlan {
  const o = exactObject(value, {
    where: "plan",
    shape: PLAN_SHAPE,
    optional: ["maxRecordProducts"],
    bad,
  });
  if (o.format !== AUDIT_PLAN_FORMAT) bad(`format must be '${AUDIT_PLAN_FORMAT}'`);
  if (!Array.isArray(o.items) || o.items.length < 1) bad("'plan.items' must be a non-empty array");
  const b = exactObject(o.beacon, { where: "plan.beacon", shape: BEACON_SHAPE, bad });
  const items = (o.items as unknown[]).map((it, i) =>
    readPlanItem(it, { where: `plan.items[${i}]`, bad })
  );
  return {
    format: AUDIT_PLAN_FORMAT,
    auditId: o.auditId as string,
    logId: o.logId as string,
    population: o.population as number,
    logRoot: o.logRoot as string,
    beacon: { randomness: b.randomness as string, round: b.round as number },
    seedDerivation: o.seedDerivation as string,
    seed: o.seed as string,
    algorithm: o.algorithm as string,
    items,
    evidence: _evidence(o.evidence, bad),
    ...readBudget(o.maxRecordProducts, { where: "plan.maxRecordProducts", bad }),
    signatures: _signatures(o.signatures, bad),
  };
}

function _signatures(v: unknown, bad: (why: string) => never): PlanSignature[] {
  if (!Array.isArray(v) || v.length < 1) {
    bad("'plan.signatures' must be a non-empty array (a plan is signed by `audit plan --key`)");
  }
  const list = v as unknown[];
  if (list.length > MAX_PLAN_SIGNATURES) {
    bad(`'plan.signatures' holds ${list.length} signatures, more than ${MAX_PLAN_SIGNATURES}`);
  }
  const seen = new Set<string>();
  return list.map((s, i) => {
    const where = `plan.signatures[${i}]`;
    const o = exactObject(s, { where, shape: SIGNATURE_SHAPE, bad });
    const keyid = o.keyid as string;
    if (seen.has(keyid)) bad(`'${where}' repeats key ${keyid.slice(0, 16)}`);
    seen.add(keyid);
    return { keyid, sig: o.sig as string };
  });
}

function _evidence(v: unknown, bad: (why: string) => never): PlanEvidence {
  const e = exactObject(v, {
    where: "plan.evidence",
    shape: EVIDENCE_SHAPE,
    optional: Object.keys(EVIDENCE_SHAPE),
    bad,
  });
  const out: Record<string, string> = {};
  for (const key of Object.keys(EVIDENCE_SHAPE)) {
    const text = e[key] as string | undefined;
    if (text === undefined) continue;
    const max = key === "announcement" ? 1024 * 1024 : 64 * 1024;
    if (text.length > max) bad(`'plan.evidence.${key}' is longer than ${max} characters`);
    out[key] = text;
  }
  return out;
}

function _recompute(plan: AuditPlan, bad: (why: string) => never): void {
  if (plan.seedDerivation !== AUDIT_SEED_DOMAIN) bad(`seedDerivation must be ${AUDIT_SEED_DOMAIN}`);
  if (plan.algorithm !== SAMPLE_ALGORITHM) bad(`algorithm must be ${SAMPLE_ALGORITHM}`);
  if (!AUDIT_ID_PATTERN.test(plan.auditId)) bad(`auditId must be ${AUDIT_ID_RULE}`);
  const k = plan.items.length;
  if (k > plan.population) bad(`${k} items from a population of ${plan.population}`);
  let seed: Uint8Array;
  try {
    seed = deriveSeed({
      auditId: plan.auditId,
      logRoot: plan.logRoot,
      randomness: plan.beacon.randomness,
      round: plan.beacon.round,
    });
  } catch (e) {
    return bad((e as Error).message);
  }
  if (plan.seed !== bytesToHex(seed)) {
    bad("the seed differs from the one derived from its audit id, root and randomness");
  }
  const { selected } = sampleIndices(hexToBytes(plan.seed), { population: plan.population, k });
  plan.items.forEach((it: PlanItem, j) => {
    if (it.index !== selected[j]) {
      bad(`item ${j} is record ${it.index}, but the sample's ${j}th draw is ${selected[j]}`);
    }
    if (it.item !== itemDigest(plan, it)) bad(`item ${j} has a wrong digest`);
  });
}

const PLAN_SHAPE: Shape = {
  format: "string",
  auditId: "string",
  logId: "string",
  population: "count",
  logRoot: HEX64,
  beacon: "object",
  seedDerivation: "string",
  seed: HEX64,
  algorithm: "string",
  items: "array",
  evidence: "object",
  maxRecordProducts: "count",
  signatures: "array",
};

/** A key id and the standard base64 (padded) of a 64-byte signature. */
const SIGNATURE_SHAPE: Shape = {
  keyid: HEX64,
  sig: /^[A-Za-z0-9+/]{85}[AQgw]==$/,
};

const EVIDENCE_SHAPE: Shape = {
  beacon: "string",
  chain: "string",
  checkpoint: "string",
  proverPub: "string",
  announcement: "string",
  announcementTimestamp: /^[A-Za-z0-9+/]{4,65536}={0,2}$/,
};

const BEACON_SHAPE: Shape = {
  randomness: /^(?:[0-9a-f]{2}){1,512}$/,
  round: "count",
};
