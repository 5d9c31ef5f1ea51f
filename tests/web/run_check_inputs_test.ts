/**
 * `runCheck` on inputs of the wrong type, as a page's script or another tool may hand them over:
 * a trust root or claim log that is not text is a refusal naming that input with its parser's
 * code, as an unreadable file is, never a TypeError out of the page's one call into the verifier. A
 * trust root whose drand or TSA pins are malformed is refused as the trust root too, before the
 * check, whether or not the attestation needs them.
 */
import assert from "node:assert/strict";
import { buildTrustRoot, generateKeyPair, signVerdict } from "../../mod.ts";
import { runCheck } from "../../src/web/mod.ts";
import { verdictReport } from "../attest/_verdict_report.ts";

const key = await generateKeyPair();
const signed = await signVerdict(verdictReport(), {
  keys: [key],
  time: "2026-03-01T12:00:00Z",
  store: { manifestSha256: "66".repeat(32), used: () => ({}) },
  engine: "reference",
});
const trustRoot = JSON.stringify(
  buildTrustRoot([key.publicKey], { start: "2020-01-01T00:00:00Z" }),
);
const now = new Date("2026-03-02T00:00:00Z");

Deno.test("runCheck() refuses a trust root or a claim log that is not text, naming the input", async () => {
  const ok = await runCheck({ attestation: signed.text, trustRoot }, { now });
  assert.equal(ok.kind, "checked");
  for (const v of [null, 5, [], {}, new Uint8Array(3)]) {
    const root = await runCheck({ attestation: signed.text, trustRoot: v as string }, { now });
    assert.deepEqual(root.kind === "refused" && [root.input, root.code], [
      "trust root",
      "BAD_TRUST_ROOT",
    ]);
    const log = await runCheck({ attestation: signed.text, trustRoot, log: v as string }, { now });
    assert.deepEqual(log.kind === "refused" && [log.input, log.code], ["claim log", "LOG_SYNTAX"]);
  }
});

Deno.test("runCheck() refuses a trust root whose drand or TSA pins are malformed as the trust root (BAD_TRUST_ROOT), whatever the attestation needs of them", async () => {
  const doc = JSON.parse(trustRoot);
  const bad: Record<string, unknown>[] = [
    { drand: "x" },
    { drand: [{ chainHash: "AB".repeat(32), beaconId: "quicknet" }] },
    { tsa: "x" },
    { tsa: [{ certificate: "MAA=", name: "t" }] },
  ];
  for (const pins of bad) {
    const r = await runCheck({
      attestation: signed.text,
      trustRoot: JSON.stringify({ ...doc, ...pins }),
    }, { now });
    assert.ok(r.kind === "refused", JSON.stringify(pins));
    assert.equal(r.input, "trust root");
    assert.equal(r.code, "BAD_TRUST_ROOT");
    assert.match(r.message, new RegExp(`^Cannot read trust root: '${Object.keys(pins)[0]}`));
  }
});
