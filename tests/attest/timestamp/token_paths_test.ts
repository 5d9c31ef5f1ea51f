/**
 * Tokens built by hand (no TSA software): a token anyone can make whose certificates issue each
 * other in a cycle is refused at once (path building is bounded and never revisits a
 * certificate), and a token's accuracy moves its time to the latest instant it allows.
 */
import assert from "node:assert/strict";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { sha256 } from "@noble/hashes/sha2.js";
import { verifyTimestampToken } from "../../../src/attest/timestamp/verify_timestamp_token.ts";

const EC = { name: "ECDSA", namedCurve: "P-256" } as const;
const GEN = Date.UTC(2026, 0, 1);
const message = new Uint8Array([1, 2, 3]);

const keys = () =>
  crypto.subtle.generateKey(EC, false, ["sign", "verify"]) as Promise<CryptoKeyPair>;
const serial = () => {
  const s = crypto.getRandomValues(new Uint8Array(16));
  s[0] = (s[0]! & 0x7f) | 1;
  return new asn1js.Integer({ valueHex: s });
};
const dn = (cn: string) =>
  new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({
        type: "2.5.4.3",
        value: new asn1js.Utf8String({ value: cn }),
      }),
    ],
  });
const critical = (extnID: string, v: { toSchema(): asn1js.BaseBlock }) =>
  new pkijs.Extension({
    extnID,
    critical: true,
    extnValue: v.toSchema().toBER(false),
    parsedValue: v,
  });
const CA = () => critical("2.5.29.19", new pkijs.BasicConstraints({ cA: true }));
const TSA = () =>
  critical("2.5.29.37", new pkijs.ExtKeyUsage({ keyPurposes: ["1.3.6.1.5.5.7.3.8"] }));

async function cert(
  subject: string,
  issuer: string,
  o: { pub: CryptoKey; by: CryptoKey; extensions: pkijs.Extension[] },
): Promise<pkijs.Certificate> {
  const c = new pkijs.Certificate({
    version: 2,
    serialNumber: serial(),
    subject: dn(subject),
    issuer: dn(issuer),
    notBefore: new pkijs.Time({ type: 0, value: new Date(Date.UTC(2020, 0, 1)) }),
    notAfter: new pkijs.Time({ type: 0, value: new Date(Date.UTC(2030, 0, 1)) }),
    extensions: o.extensions,
  });
  await c.subjectPublicKeyInfo.importKey(o.pub);
  await c.sign(o.by, "SHA-256");
  return c;
}

/** A TimeStampToken over `message` signed by `signer`, carrying `certificates`. */
async function token(
  signer: { cert: pkijs.Certificate; key: CryptoKey },
  o: { certificates: pkijs.Certificate[]; accuracy?: pkijs.Accuracy },
): Promise<Uint8Array> {
  const tst = new pkijs.TSTInfo({
    version: 1,
    policy: "1.2.3.4.1",
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: "2.16.840.1.101.3.4.2.1" }),
      hashedMessage: new asn1js.OctetString({ valueHex: sha256(message) }),
    }),
    serialNumber: serial(),
    genTime: new Date(GEN),
    ...(o.accuracy === undefined ? {} : { accuracy: o.accuracy }),
  });
  const tstDer = new Uint8Array(tst.toSchema().toBER());
  const sd = new pkijs.SignedData({
    version: 3,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: "1.2.840.113549.1.9.16.1.4",
      eContent: new asn1js.OctetString({ valueHex: tstDer }),
    }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: signer.cert.issuer,
          serialNumber: signer.cert.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: [
            new pkijs.Attribute({
              type: "1.2.840.113549.1.9.3",
              values: [new asn1js.ObjectIdentifier({ value: "1.2.840.113549.1.9.16.1.4" })],
            }),
            new pkijs.Attribute({
              type: "1.2.840.113549.1.9.4",
              values: [new asn1js.OctetString({ valueHex: sha256(tstDer) })],
            }),
          ],
        }),
      }),
    ],
    certificates: o.certificates,
  });
  await sd.sign(signer.key, 0, "SHA-256");
  return new Uint8Array(
    new pkijs.ContentInfo({ contentType: "1.2.840.113549.1.7.2", content: sd.toSchema(true) })
      .toSchema().toBER(),
  );
}

const der = (c: pkijs.Certificate) => new Uint8Array(c.toSchema().toBER());

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
  const accuracy = new pkijs.Accuracy({ seconds: 30, millis: 5 });
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
