/**
 * Tokens built by hand (no TSA software): a token anyone can make whose certificates issue each
 * other in a cycle is refused at once (path building is bounded and never revisits a
 * certificate), and a token's accuracy moves its time to the latest instant it allows.
 */
import assert from "node:assert/strict";
import * as pkijs from "pkijs";
import { verifyTimestampToken } from "../../../src/attest/timestamp/verify_timestamp_token.ts";
import {
  CA,
  der,
  GEN,
  handCert as cert,
  handToken,
  type HandTokenOptions,
  keys,
  TSA,
} from "./_hand_token.ts";

const message = new Uint8Array([1, 2, 3]);

/** A token over `message` signed by `signer`. */
const token = (signer: { cert: pkijs.Certificate; key: CryptoKey }, o: HandTokenOptions) =>
  handToken(message, signer, o);

Deno.test("verifyTimestampToken() refuses a token whose certificates issue each other in a cycle, at once", async () => {
  const [a, b, s, root] = await Promise.all([keys(), keys(), keys(), keys()]);
  const A = await cert("A", "B", { pub: a.publicKey, by: b.privateKey, extensions: [CA()] });
  const B = await cert("B", "A", { pub: b.publicKey, by: a.privateKey, extensions: [CA()] });
  const S = await cert("S", "A", { pub: s.publicKey, by: a.privateKey, extensions: [TSA()] });
  const anchor = await cert("Root", "Root", {
    pub: root.publicKey,
    by: root.privateKey,
    extensions: [CA()],
  });
  const t = await token({ cert: S, key: s.privateKey }, { certificates: [S, A, B] });
  const r = await verifyTimestampToken(t, { message, anchors: [der(anchor)] });
  assert.equal(r.verified, false);
  assert.match(r.reason ?? "", /no path to a pinned TSA anchor/);
});

Deno.test("verifyTimestampToken() follows a path through an intermediate CA and adds the token's accuracy to its time", async () => {
  const [root, mid, s] = await Promise.all([keys(), keys(), keys()]);
  const R = await cert("Root", "Root", {
    pub: root.publicKey,
    by: root.privateKey,
    extensions: [CA()],
  });
  const M = await cert("Mid", "Root", {
    pub: mid.publicKey,
    by: root.privateKey,
    extensions: [CA()],
  });
  const S = await cert("TSA", "Mid", { pub: s.publicKey, by: mid.privateKey, extensions: [TSA()] });
  const signer = { cert: S, key: s.privateKey };
  const plain = await verifyTimestampToken(await token(signer, { certificates: [S, M] }), {
    message,
    anchors: [der(R)],
  });
  assert.equal(plain.verified, true, plain.reason);
  assert.equal(plain.time, GEN);
  const accuracy = new Uint8Array(
    new pkijs.Accuracy({ seconds: 30, millis: 5 }).toSchema().toBER(),
  );
  const loose = await verifyTimestampToken(
    await token(signer, { certificates: [S, M], accuracy }),
    { message, anchors: [der(R)] },
  );
  assert.equal(loose.verified, true, loose.reason);
  assert.equal(loose.time, GEN + 30_005);
  // Without the intermediate there is no path; an intermediate that is no CA is no link.
  const gap = await verifyTimestampToken(await token(signer, { certificates: [S] }), {
    message,
    anchors: [der(R)],
  });
  assert.equal(gap.verified, false);
  const M2 = await cert("Mid", "Root", { pub: mid.publicKey, by: root.privateKey, extensions: [] });
  const notCa = await verifyTimestampToken(await token(signer, { certificates: [S, M2] }), {
    message,
    anchors: [der(R)],
  });
  assert.equal(notCa.verified, false);
});
