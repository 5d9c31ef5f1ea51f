/**
 * A drand binding carried in an attestation is re-read with a relay document's ranges: a period
 * beyond 32 bits (which wraps in the chain hash and moves every round time by centuries) and a
 * beacon id whose bytes were moved into the genesis seed (same hash, another name) are refused,
 * on the real pinned quicknet round the demo binds.
 */
import assert from "node:assert/strict";
import {
  drandBinding,
  parseDrandChainInfo,
  parseDrandRound,
  reverifyDrandBinding,
} from "../../../src/attest/beacon/mod.ts";
import { checkTrustInputs } from "../../../src/attest/check_trust_inputs.ts";
import { buildTrustRoot, generateKeyPair, parseTrustRoot } from "../../../src/attest/mod.ts";
import { bytesToHex } from "../../../src/claims/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const info = parseDrandChainInfo(
  await Deno.readTextFile(new URL("demo/drand/quicknet-info.json", ROOT)),
);
const round = parseDrandRound(
  await Deno.readTextFile(new URL("demo/drand/quicknet-round-123.json", ROOT)),
);
const honest = drandBinding(info, round);
const inspector = await generateKeyPair();
const trustRoot = parseTrustRoot(JSON.stringify(buildTrustRoot([inspector.publicKey], {
  start: "2020-01-01T00:00:00Z",
  drand: [{ chainHash: info.hash, beaconId: "quicknet" }],
})));

/** The `beacon` check line for a binding, as `check` computes it. */
async function beaconCheck(drand: Record<string, unknown>): Promise<[boolean, string]> {
  const lines: [boolean, string][] = [];
  await checkTrustInputs({
    logRoot: "00".repeat(32),
    population: 5,
    auditId: "a",
    k: 1,
    beacon: {
      source: "drand",
      round: 123,
      randomness: reverifyDrandBinding(honest).verification.randomness,
      drand,
    },
  }, { trustRoot, add: (c, ok, d) => c === "beacon" && lines.push([ok, d]) });
  return lines[0]!;
}

Deno.test("the demo's quicknet binding checks as it is", async () => {
  const [ok, detail] = await beaconCheck({ ...honest });
  assert.ok(ok, detail);
  assert.match(detail, /^drand quicknet round 123: BLS signature verified, chain pinned/);
});

Deno.test("a period of 3 + 2^32 (the same chain hash, round times centuries later) is refused", async () => {
  const period = honest.period + 2 ** 32;
  const t = honest.genesisTime + 122 * period;
  const roundTime = new Date(t * 1000).toISOString().replace(/\.000Z$/, "Z");
  const [ok, detail] = await beaconCheck({ ...honest, period, roundTime });
  assert.equal(ok, false);
  assert.match(detail, /malformed drand binding .*period/);
});

Deno.test("beacon id bytes moved into the genesis seed (same hash, another name) are refused", async () => {
  const idHex = bytesToHex(new TextEncoder().encode("quicknet"));
  for (
    const forged of [
      { groupHash: honest.groupHash + idHex, beaconId: "default" },
      { groupHash: honest.groupHash + idHex.slice(0, 10), beaconId: "net" },
    ]
  ) {
    const [ok, detail] = await beaconCheck({ ...honest, ...forged });
    assert.equal(ok, false, detail);
    assert.match(detail, /is not the pinned chain's 'quicknet'/);
  }
});
