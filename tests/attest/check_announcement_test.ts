/**
 * `checkAnnouncement` compares the announcement with the audit field by field (the drand chain as
 * well as the round and its time), and with an RFC 3161 token takes the announcement as made
 * before its round only when the token's time is strictly before the round's time.
 */
import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  announcedAuditId,
  type Announcement,
  announcementStatement,
  buildTrustRoot,
  checkAnnouncement,
  decodeBase64,
  encodeStatement,
  formatSignedNote,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  parseTrustRoot,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { bytesToHex } from "../../src/claims/mod.ts";
import { der, handPki, handToken } from "./timestamp/_hand_token.ts";

const inspector = await generateKeyPair();
const { root: ca, signer } = await handPki();
const trustRoot = parseTrustRoot(JSON.stringify(buildTrustRoot([inspector.publicKey], {
  start: "2020-01-01T00:00:00Z",
  tsa: [{ certificate: der(ca), name: "hand TSA" }],
})));

const body = "example.com/log\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n";
const note = formatSignedNote({
  text: body,
  signatures: [{ name: "example.com/log", keyId: 1, signature: new Uint8Array(64) }],
});
const bodySha256 = bytesToHex(sha256(new TextEncoder().encode(body)));
const chainHash = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971";
const ROUND_TIME = "2026-01-01T00:00:10Z";
const announcement: Announcement = {
  auditId: announcedAuditId({ bodySha256, chainHash, round: 123 }),
  checkpoint: { origin: "example.com/log", treeSize: 1, rootHash: "00".repeat(32), bodySha256 },
  k: 2,
  beacon: { chainHash, round: 123, roundTime: ROUND_TIME },
  announcedAt: "2026-01-01T00:00:00Z",
};
const envelope = await signEnvelope(encodeStatement(announcementStatement(announcement)), {
  payloadType: IN_TOTO_PAYLOAD_TYPE,
  keys: [inspector],
});
const audit = {
  auditId: announcement.auditId,
  k: 2,
  checkpoint: { note, origin: "example.com/log", treeSize: 1, rootHash: "00".repeat(32) },
  drand: { chainHash, round: 123, roundTime: ROUND_TIME },
};
const now = new Date("2026-02-01T00:00:00Z");

/** An RFC 3161 token of the hand TSA over the announcement's signature at `genTime`. */
const stampedAt = (genTime: string) =>
  handToken(
    decodeBase64(envelope.signatures[0]!.sig, { alphabet: "any" }),
    signer,
    { certificates: [signer.cert], genTime },
  );

Deno.test("checkAnnouncement() accepts the announced audit, and refuses one bound to another drand chain's round", async () => {
  const ok = await checkAnnouncement(envelope, { trustRoot, audit, now });
  assert.ok("announcement" in ok, JSON.stringify(ok));
  const otherChain = { ...audit, drand: { ...audit.drand, chainHash: "dd".repeat(32) } };
  const r = await checkAnnouncement(envelope, { trustRoot, audit: otherChain, now });
  assert.deepEqual(r, { why: "the drand round is not the announced one" });
});

Deno.test("checkAnnouncement() with a token takes the announcement as made before the round only when the token's time is strictly before the round's", async () => {
  const before = await checkAnnouncement(envelope, {
    trustRoot,
    audit,
    now,
    timestamp: await stampedAt("20260101000009Z"),
  });
  assert.ok("announcement" in before, JSON.stringify(before));
  assert.equal(before.timestampedAt, "2026-01-01T00:00:09Z");
  const at = await checkAnnouncement(envelope, {
    trustRoot,
    audit,
    now,
    timestamp: await stampedAt("20260101000010Z"),
  });
  assert.deepEqual(at, {
    why: "the announcement was timestamped 2026-01-01T00:00:10Z, not before the round",
  });
});
