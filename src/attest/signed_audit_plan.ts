/**
 * Audit plans signed by the inspector. A plan fixes what an audit recomputes (its audit id, k,
 * randomness and the evidence behind them) and lies on a volume that workers share, so whoever
 * signs the verdict must know the plan is the inspector's own: `audit plan --key` signs it, and
 * `audit merge` and `audit serve` verify it with the keys they sign the verdict with before they
 * read any result. Each signature is Ed25519 over the DSSE pre-authentication encoding
 * `PAE(AUDIT_PLAN_PAYLOAD_TYPE, body)`, where the body is the RFC 8785 canonical JSON of the plan
 * without its `signatures` (no newline): the payload type keeps a plan signature from passing for
 * any other signature the same key makes (verdicts, announcements), and every other byte of the
 * plan file is under it.
 *
 * @module
 */
import { canonicalJson } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import type { AuditPlan } from "../verify/mod.ts";
import { decodeBase64 } from "./base64.ts";
import { signEnvelope, type SigningKey } from "./dsse.ts";
import { keyId } from "./key_id.ts";
import { pae } from "./pae.ts";
import { verify } from "./signature.ts";

/** The payload type bound into every plan signature. */
export const AUDIT_PLAN_PAYLOAD_TYPE = "application/vnd.bitaudit.audit-plan+json";

/**
 * Signs a plan with one or more inspector keys (in the order given), replacing any signatures it
 * carried.
 *
 * @param plan the plan (as `planAudit` returns it)
 * @param keys the inspector's signing keys, all distinct
 * @returns the plan with one signature a key
 * @throws {RangeError} when no key is given, a key appears twice, or a public key does not match
 *   its private key
 * @example
 * ```ts ignore
 * const signed = await signAuditPlan(plan, [inspector]);
 * await Deno.writeTextFile("plan.json", encodeAuditPlan(signed));
 * ```
 */
export async function signAuditPlan(
  plan: AuditPlan,
  keys: readonly SigningKey[],
): Promise<AuditPlan> {
  // The signatures of a DSSE envelope over the plan's body: the same PAE bytes, checked keys.
  const { signatures } = await signEnvelope(_body(plan), {
    payloadType: AUDIT_PLAN_PAYLOAD_TYPE,
    keys,
  });
  return { ...plan, signatures };
}

/**
 * Verifies that every given inspector key signed the plan: each key's signature (found by its key
 * id) must verify over the plan as it reads now. Signatures by other keys are not looked at.
 *
 * @param plan the plan, read strictly (`parseAuditPlan`)
 * @param options the inspector public `keys` (32 bytes each) that must have signed it, and
 *   `where` (the plan file, for messages)
 * @throws {InputError} `PLAN_SIGNATURE` when a key has no signature on the plan or its signature
 *   does not verify
 * @example
 * ```ts ignore
 * await verifyAuditPlan(plan, { keys: keys.map((k) => k.publicKey), where: "plan.json" });
 * ```
 */
export async function verifyAuditPlan(
  plan: AuditPlan,
  options: { keys: readonly Uint8Array[]; where: string },
): Promise<void> {
  const message = pae(AUDIT_PLAN_PAYLOAD_TYPE, _body(plan));
  for (const publicKey of options.keys) {
    const id = keyId(publicKey);
    const entry = plan.signatures.find((s) => s.keyid === id);
    if (entry === undefined) {
      throw new InputError(
        "PLAN_SIGNATURE",
        `Cannot accept plan '${options.where}': it is not signed by inspector key ${
          id.slice(0, 16)
        }, which signs this verdict (a plan is signed by \`audit plan --key\` with the keys that ` +
          "will sign the verdict)",
      );
    }
    const signature = decodeBase64(entry.sig);
    if (signature.length !== 64 || !await verify(message, { signature, publicKey })) {
      throw new InputError(
        "PLAN_SIGNATURE",
        `Cannot accept plan '${options.where}': its signature by inspector key ${
          id.slice(0, 16)
        } does not verify (the plan was changed after it was signed)`,
      );
    }
  }
}

/** The canonical JSON of the plan without its signatures: what each signature is over. */
function _body(plan: AuditPlan): Uint8Array {
  const { signatures: _, ...body } = plan;
  return canonicalJson(body);
}
