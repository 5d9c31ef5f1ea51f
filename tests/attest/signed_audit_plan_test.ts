import assert from "node:assert/strict";
import {
  AUDIT_PLAN_PAYLOAD_TYPE,
  decodeBase64,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  keyId,
  pae,
  signAuditPlan,
  signEnvelope,
  verify,
  verifyAuditPlan,
} from "../../src/attest/mod.ts";
import { canonicalJson } from "../../src/claims/mod.ts";
import {
  type AuditPlan,
  encodeAuditPlan,
  parseAuditPlan,
  planAudit,
} from "../../src/verify/mod.ts";
import { futureLog } from "../verify/_future_log.ts";

const log = futureLog(30);
const EVIDENCE = { announcement: "{}", beacon: "{}", chain: "{}" };
const unsigned = planAudit(log, {
  auditId: "announced-0",
  randomness: "cd".repeat(32),
  round: 9,
  k: 5,
  evidence: EVIDENCE,
});
const [a, b, c] = [await generateKeyPair(), await generateKeyPair(), await generateKeyPair()];
const signed = await signAuditPlan(unsigned, [a, b]);
const code = (want: string) => (e: unknown) => (e as { code?: string }).code === want;
const pub = (...keys: { publicKey: Uint8Array }[]) => keys.map((k) => k.publicKey);

/** The plan read back from its file bytes, as `audit merge` reads it. */
function fileOf(plan: AuditPlan): AuditPlan {
  return parseAuditPlan(encodeAuditPlan(plan), "plan.json");
}

Deno.test("signAuditPlan() signs PAE(plan payload type, canonical plan without signatures) with each key, in order", async () => {
  assert.deepEqual(signed.signatures.map((s) => s.keyid), [keyId(a.publicKey), keyId(b.publicKey)]);
  const { signatures: _, ...body } = signed;
  assert.deepEqual(
    { ...body, signatures: [] },
    unsigned,
    "signing changes nothing but the signatures",
  );
  const message = pae(AUDIT_PLAN_PAYLOAD_TYPE, canonicalJson(body));
  for (const [i, k] of [a, b].entries()) {
    const signature = decodeBase64(signed.signatures[i]!.sig);
    assert.ok(await verify(message, { signature, publicKey: k.publicKey }));
  }
  // Signing again replaces the signatures: deterministic Ed25519, so the same file bytes.
  assert.equal(encodeAuditPlan(await signAuditPlan(signed, [a, b])), encodeAuditPlan(signed));
});

Deno.test("verifyAuditPlan() accepts the signed plan file for any subset of its signers", async () => {
  const file = fileOf(signed);
  for (const keys of [pub(a), pub(b), pub(a, b), pub(b, a)]) {
    await verifyAuditPlan(file, { keys, where: "plan.json" });
  }
});

Deno.test("verifyAuditPlan() refuses with PLAN_SIGNATURE a plan that a verdict key did not sign", async () => {
  for (const keys of [pub(c), pub(a, c), pub(c, b)]) {
    await assert.rejects(
      verifyAuditPlan(fileOf(signed), { keys, where: "plan.json" }),
      code("PLAN_SIGNATURE"),
    );
  }
  const byStranger = fileOf(await signAuditPlan(unsigned, [c]));
  await assert.rejects(
    verifyAuditPlan(byStranger, { keys: pub(a), where: "plan.json" }),
    (e: Error) => code("PLAN_SIGNATURE")(e) && /not signed by inspector key/.test(e.message),
  );
});

Deno.test("verifyAuditPlan() refuses with PLAN_SIGNATURE a plan re-planned under the signatures: another audit id, k, or the announcement dropped", async () => {
  const { announcement: _, ...unannounced } = EVIDENCE;
  const forgeries: Parameters<typeof planAudit>[1][] = [
    { auditId: "announced-1", randomness: "cd".repeat(32), round: 9, k: 5, evidence: EVIDENCE },
    { auditId: "announced-0", randomness: "cd".repeat(32), round: 9, k: 4, evidence: EVIDENCE },
    { auditId: "audit-x-1", randomness: "cd".repeat(32), round: 9, k: 5, evidence: unannounced },
  ];
  for (const inputs of forgeries) {
    const forged = fileOf({ ...planAudit(log, inputs), signatures: signed.signatures });
    await assert.rejects(
      verifyAuditPlan(forged, { keys: pub(a), where: "plan.json" }),
      (e: Error) => code("PLAN_SIGNATURE")(e) && /does not verify/.test(e.message),
      inputs.auditId,
    );
  }
});

Deno.test("verifyAuditPlan() refuses a signature the same key made over the same bytes under another payload type", async () => {
  const { signatures: _, ...body } = unsigned;
  const env = await signEnvelope(canonicalJson(body), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [a],
  });
  const moved = fileOf({ ...unsigned, signatures: env.signatures });
  await assert.rejects(
    verifyAuditPlan(moved, { keys: pub(a), where: "plan.json" }),
    code("PLAN_SIGNATURE"),
  );
});

Deno.test("signAuditPlan() refuses no key, a key given twice and a public key that is not the signer's", async () => {
  await assert.rejects(signAuditPlan(unsigned, []), RangeError);
  await assert.rejects(signAuditPlan(unsigned, [a, a]), RangeError);
  await assert.rejects(
    signAuditPlan(unsigned, [{ privateKey: a.privateKey, publicKey: b.publicKey }]),
    RangeError,
  );
});
