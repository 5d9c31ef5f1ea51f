/**
 * Strict readers of the verdict predicate's trust inputs: `audit.beacon` (with the drand round),
 * `audit.checkpoint` and `audit.announcement`. Their cryptography is checked by `check`
 * (`checkTrustInputs`); these only fix the shape.
 *
 * @module
 */
import type { DrandBinding } from "./beacon/mod.ts";
import type { DsseEnvelope } from "./dsse.ts";
import type { CheckpointBinding } from "./note/mod.ts";
import { fieldsOf } from "./_verdict_fields.ts";
import type { VerdictAudit } from "./verdict_predicate.ts";

const SOURCES = { drand: true, unverified: true } as const;

/**
 * Reads `audit.beacon`.
 *
 * @param value the parsed value
 * @returns the beacon
 * @throws {InputError} a `VerdictPredicateCode` naming the bad field
 * @example
 * ```ts
 * import { beaconOf } from "./_verdict_trust_fields.ts";
 * if (beaconOf({ randomness: "ab", round: 1, source: "unverified" }).round !== 1) throw new Error();
 * ```
 */
export function beaconOf(value: unknown): VerdictAudit["beacon"] {
  const b = fieldsOf(value, "predicate.audit.beacon", ["randomness", "round", "source", "drand"], [
    "drand",
  ]);
  return {
    randomness: b.str("randomness"),
    round: b.int("round"),
    source: b.oneOf("source", SOURCES),
    ...(b.has("drand") ? { drand: _drand(b.get("drand")) } : {}),
  };
}

function _drand(value: unknown): DrandBinding {
  const d = fieldsOf(value, "predicate.audit.beacon.drand", [
    "chainHash",
    "scheme",
    "publicKey",
    "period",
    "genesisTime",
    "groupHash",
    "beaconId",
    "round",
    "signature",
    "previousSignature",
    "roundTime",
  ], ["previousSignature"]);
  return {
    chainHash: d.str("chainHash"),
    scheme: d.str("scheme"),
    publicKey: d.str("publicKey"),
    period: d.int("period"),
    genesisTime: d.int("genesisTime"),
    groupHash: d.str("groupHash"),
    beaconId: d.str("beaconId"),
    round: d.int("round"),
    signature: d.str("signature"),
    ...(d.has("previousSignature") ? { previousSignature: d.str("previousSignature") } : {}),
    roundTime: d.str("roundTime"),
  };
}

/**
 * Reads `audit.checkpoint`.
 *
 * @param value the parsed value
 * @returns the checkpoint binding
 * @throws {InputError} a `VerdictPredicateCode` naming the bad field
 * @example
 * ```ts
 * import { checkpointOf } from "./_verdict_trust_fields.ts";
 * const cp = checkpointOf({
 *   note: "o\n", origin: "o", treeSize: 1, rootHash: "00", signedAt: "t", proverKeyId: "k",
 * });
 * if (cp.treeSize !== 1) throw new Error();
 * ```
 */
export function checkpointOf(value: unknown): CheckpointBinding {
  const c = fieldsOf(value, "predicate.audit.checkpoint", [
    "note",
    "origin",
    "treeSize",
    "rootHash",
    "signedAt",
    "proverKeyId",
  ]);
  return {
    note: c.str("note"),
    origin: c.str("origin"),
    treeSize: c.int("treeSize"),
    rootHash: c.str("rootHash"),
    signedAt: c.str("signedAt"),
    proverKeyId: c.str("proverKeyId"),
  };
}

/**
 * Reads `audit.announcement` (the DSSE envelope's shape only).
 *
 * @param value the parsed value
 * @returns the announcement binding
 * @throws {InputError} a `VerdictPredicateCode` naming the bad field
 * @example
 * ```ts
 * import { announcementOf } from "./_verdict_trust_fields.ts";
 * const a = announcementOf({ envelope: { payloadType: "t", payload: "", signatures: [] } });
 * if (a.envelope.payloadType !== "t") throw new Error();
 * ```
 */
export function announcementOf(value: unknown): { envelope: DsseEnvelope; timestamp?: string } {
  const a = fieldsOf(value, "predicate.audit.announcement", ["envelope", "timestamp"], [
    "timestamp",
  ]);
  const e = fieldsOf(a.get("envelope"), "predicate.audit.announcement.envelope", [
    "payloadType",
    "payload",
    "signatures",
  ]);
  return {
    envelope: {
      payloadType: e.str("payloadType"),
      payload: e.str("payload"),
      signatures: e.list("signatures", (s, where) => {
        const f = fieldsOf(s, where, ["keyid", "sig"]);
        return { keyid: f.str("keyid"), sig: f.str("sig") };
      }),
    },
    ...(a.has("timestamp") ? { timestamp: a.str("timestamp") } : {}),
  };
}
