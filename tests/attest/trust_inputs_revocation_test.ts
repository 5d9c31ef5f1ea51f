/**
 * A checkpoint's signing time and an announcement's stated time are the signers' own words: a
 * key revoked for compromise must not vouch for a checkpoint or an announcement its thief
 * backdates to before the revocation. Keys are judged at the stated time and now, as attestation
 * signatures are without a timestamp. A prover key pinned to one origin vouches for checkpoints of
 * that origin only.
 */
import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import {
  drandBinding,
  parseDrandChainInfo,
  parseDrandRound,
  verifyDrandRound,
} from "../../src/attest/beacon/mod.ts";
import { checkTrustInputs } from "../../src/attest/check_trust_inputs.ts";
import { checkpointBinding, signCheckpoint, verifyCheckpoint } from "../../src/attest/note/mod.ts";
import {
  announcedAuditId,
  announcementStatement,
  buildTrustRoot,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  parseTrustRoot,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { bytesToHex, canonicalJson } from "../../src/claims/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const info = parseDrandChainInfo(
  await Deno.readTextFile(new URL("demo/drand/quicknet-info.json", ROOT)),
);
const round = parseDrandRound(
  await Deno.readTextFile(new URL("demo/drand/quicknet-round-123.json", ROOT)),
);
const prover = await generateKeyPair();
const inspector = await generateKeyPair();
const doc = buildTrustRoot([inspector.publicKey], {
  start: "2020-01-01T00:00:00Z",
  provers: { keys: [prover.publicKey], start: "2020-01-01T00:00:00Z" },
  drand: [{ chainHash: info.hash, beaconId: "quicknet" }],
});
const root = new Uint8Array(32).fill(7);
// The checkpoint states 2023-08-23T15:15:00Z, before round 123 (15:15:33) and the revocation.
const note = await signCheckpoint(
  { origin: "victim.example/log", treeSize: 5, rootHash: root, extensions: [] },
  { privateKey: prover.privateKey, time: Date.parse("2023-08-23T15:15:00Z") / 1000 },
);
const cp = checkpointBinding(note, await verifyCheckpoint(note, [prover.publicKey]));
const drand = drandBinding(info, round);
const bodySha256 = bytesToHex(
  sha256(new TextEncoder().encode(note.slice(0, note.lastIndexOf("\n\n") + 1))),
);
const auditId = announcedAuditId({ bodySha256, chainHash: drand.chainHash, round: 123 });
const envelope = await signEnvelope(
  canonicalJson(announcementStatement({
    auditId,
    k: 1,
    checkpoint: { origin: cp.origin, treeSize: 5, rootHash: cp.rootHash, bodySha256 },
    beacon: { chainHash: drand.chainHash, round: 123, roundTime: drand.roundTime },
    announcedAt: "2023-08-23T15:15:10Z",
  })),
  { payloadType: IN_TOTO_PAYLOAD_TYPE, keys: [inspector] },
);

/**
 * The check lines for a trust root whose keys are revoked at `revoked` (or never) and whose
 * prover key is pinned to `origin` (or to none).
 */
async function checks(
  o: { revoked?: string; origin?: string } = {},
): Promise<Map<string, [boolean, string]>> {
  const d = structuredClone(doc);
  for (const k of d.keys) {
    if (o.revoked !== undefined) k.revoked = { time: o.revoked, reason: "key compromise" };
    if (o.origin !== undefined && k.role === "prover") k.origin = o.origin;
  }
  const out = new Map<string, [boolean, string]>();
  await checkTrustInputs({
    logRoot: bytesToHex(root),
    population: 5,
    auditId,
    k: 1,
    beacon: {
      source: "drand",
      round: 123,
      randomness: verifyDrandRound(info, round).randomness,
      drand,
    },
    checkpoint: cp,
    announcement: { envelope },
  }, { trustRoot: parseTrustRoot(JSON.stringify(d)), add: (c, ok, det) => out.set(c, [ok, det]) });
  return out;
}

Deno.test("checkTrustInputs(): unrevoked keys vouch for the checkpoint and the announcement at their stated times", async () => {
  const c = await checks();
  assert.deepEqual(c.get("checkpoint")?.[0], true, c.get("checkpoint")?.[1]);
  assert.deepEqual(c.get("announcement")?.[0], true, c.get("announcement")?.[1]);
});

Deno.test("checkTrustInputs(): keys revoked since do not vouch for a checkpoint or an announcement dated before the revocation", async () => {
  const c = await checks({ revoked: "2024-01-01T00:00:00Z" });
  assert.equal(c.get("checkpoint")?.[0], false);
  assert.match(c.get("checkpoint")![1], /prover key not valid at the verification time .*revoked/);
  assert.equal(c.get("announcement")?.[0], false);
  assert.match(c.get("announcement")![1], /and at the verification time signed the announcement/);
});

Deno.test("checkTrustInputs(): a prover key pinned to the checkpoint's origin vouches for it", async () => {
  const c = await checks({ origin: "victim.example/log" });
  assert.deepEqual(c.get("checkpoint")?.[0], true, c.get("checkpoint")?.[1]);
});

Deno.test("checkTrustInputs(): a prover key pinned to one origin does not vouch for its checkpoint of another", async () => {
  // The same records signed under a second name would be a second announced audit id.
  const c = await checks({ origin: "victim.example/other-log" });
  assert.equal(c.get("checkpoint")?.[0], false);
  assert.match(
    c.get("checkpoint")![1],
    /origin "victim\.example\/log" is not "victim\.example\/other-log", the one origin the trust root lets prover key [0-9a-f]{16}… sign/,
  );
});
