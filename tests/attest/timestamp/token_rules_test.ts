/**
 * The rules a time-stamp token is held to beyond its signature, on tokens forged by hand: its
 * accuracy and `genTime` read from the bytes the TSA signed (RFC 3161 §2.4.2), certificate
 * validity times in RFC 5280's forms, strict DER for the token and its TSTInfo, the signed
 * content type and ESS signing certificate (RFC 5652 §11.1, RFC 2634, RFC 5816), RFC 5280's path
 * rules, and a token without certificates whose signer is pinned.
 */
import assert from "node:assert/strict";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { verifyTimestampToken } from "../../../src/attest/timestamp/verify_timestamp_token.ts";
import {
  CA,
  der,
  encodeDer,
  extension,
  GEN,
  handCert,
  handPki,
  handToken,
  type HandTokenOptions,
  KEY_USAGE,
  keys,
  parseDer,
  tlv,
  TSA,
} from "./_hand_token.ts";

const message = new Uint8Array([1, 2, 3]);
const { rootKeys, root, tsaKeys, tsaCert, signer } = await handPki();
const midKeys = await keys();

/** Verifies a token from `signer` (carrying its certificate unless told) against `anchors`. */
async function verify(
  o: HandTokenOptions = {},
  anchors: pkijs.Certificate[] = [root],
  by: { cert: pkijs.Certificate; key: CryptoKey } = signer,
) {
  const t = await handToken(message, by, { certificates: [by.cert], ...o });
  return await verifyTimestampToken(t, { message, anchors: anchors.map(der) });
}

/** An Accuracy of the given DER fields. */
const accuracy = (...fields: number[][]) => tlv(0x30, fields.flat());

Deno.test("verifyTimestampToken() adds an accuracy of four bytes and more to genTime (it had read as none)", async () => {
  const cases: [number[][], number][] = [
    [[[0x02, 0x04, 0x00, 0x80, 0x00, 0x00]], 8_388_608_000],
    [[[0x02, 0x04, 0x00, 0x98, 0x96, 0x80]], 10_000_000_000],
    [[[0x02, 0x04, 0x01, 0xe1, 0x33, 0x80]], 31_536_000_000], // a year, the loosest accepted
    [[[0x02, 0x01, 0x1e], [0x80, 0x01, 0x05]], 30_005],
    [[[0x80, 0x02, 0x03, 0xe7], [0x81, 0x01, 0x01]], 1000], // 999 ms and 1 us: 1000 ms
    [[], 0],
  ];
  for (const [fields, slack] of cases) {
    const r = await verify({ accuracy: accuracy(...fields) });
    assert.equal(r.verified, true, `${fields}: ${r.reason}`);
    assert.equal(r.time, GEN + slack, `${fields}`);
  }
});

Deno.test("verifyTimestampToken() refuses an accuracy that is negative, padded, looser than a year, or whose millis or micros leave 1..999", async () => {
  const cases: number[][][] = [
    [[0x02, 0x01, 0xff]], // -1 s
    [[0x02, 0x02, 0x00, 0x05]], // 5 s, not minimal
    [[0x02, 0x04, 0x01, 0xe1, 0x33, 0x81]], // a year and a second
    [[0x02, 0x06, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]], // 2^40 s
    [[0x80, 0x01, 0x00]], // 0 ms
    [[0x80, 0x02, 0x03, 0xe8]], // 1000 ms
    [[0x81, 0x01, 0x00]], // 0 us
    [[0x81, 0x02, 0x03, 0xe8]], // 1000 us
    [[0x80, 0x01, 0x05], [0x02, 0x01, 0x01]], // millis before seconds
    [[0x82, 0x01, 0x01]], // no such field
  ];
  for (const fields of cases) {
    const r = await verify({ accuracy: accuracy(...fields) });
    assert.equal(r.verified, false, `${fields}`);
    assert.match(r.reason ?? "", /accuracy|not one DER value/, `${fields}`);
  }
});

Deno.test("verifyTimestampToken() reads genTime only in RFC 3161's form, every field in range", async () => {
  for (
    const [text, at] of [
      ["20260101000000Z", GEN],
      ["20260101000000.5Z", GEN + 500],
      ["20260101000000.0001Z", GEN + 1], // finer than a millisecond: rounded up
      ["20280229120000Z", Date.UTC(2028, 1, 29, 12)],
    ] as const
  ) {
    const r = await verify({ genTime: text });
    assert.equal(r.verified, true, `${text}: ${r.reason}`);
    assert.equal(r.time, at, text);
  }
  for (
    const text of [
      "20260101000000", // no Z: the reader took it for local time
      "20260101000000+0100",
      "20261301000000Z", // month 13
      "20260631000000Z", // 31 June
      "20270229000000Z", // 29 February of a common year
      "20260101240000Z",
      "20260101000060Z", // second 60
      "2026010100Z",
      "202601010000Z",
      "20260101000000.50Z", // a trailing zero
      "20260101000000.Z",
      "20260101000000,5Z",
    ]
  ) {
    const r = await verify({ genTime: text });
    assert.equal(r.verified, false, text);
    assert.match(r.reason ?? "", /genTime is not a UTC time of RFC 3161's form/, text);
  }
});

Deno.test("verifyTimestampToken() reads certificate validity only in RFC 5280's forms", async () => {
  const text = (tag: number, s: string) => tlv(tag, [...new TextEncoder().encode(s)]);
  const tsaWith = (validity: [Uint8Array, Uint8Array]) =>
    handCert("TSA", "Root", {
      pub: tsaKeys.publicKey,
      by: rootKeys.privateKey,
      extensions: [TSA()],
      validity,
    });
  const good = await tsaWith([text(0x17, "200101000000Z"), text(0x18, "20500101000000Z")]);
  const r = await verify({}, [root], { cert: good, key: tsaKeys.privateKey });
  assert.equal(r.verified, true, r.reason);
  for (
    const validity of [
      [text(0x17, "201301000000Z"), text(0x17, "300101000000Z")], // month 13
      [text(0x17, "200101000000"), text(0x17, "300101000000Z")], // no Z
      [text(0x17, "2001010000Z"), text(0x17, "300101000000Z")], // no seconds
      [text(0x17, "200101000000Z"), text(0x17, "300101000000+0000")],
      [text(0x18, "20200101000000.5Z"), text(0x17, "300101000000Z")], // a fraction
      [text(0x17, "200101000000Z"), text(0x17, "290229000000Z")], // 29 February 2029
    ] as [Uint8Array, Uint8Array][]
  ) {
    const cert = await tsaWith(validity);
    const bad = await verify({}, [root], { cert, key: tsaKeys.privateKey });
    const what = new TextDecoder().decode(new Uint8Array([...validity[0], ...validity[1]]));
    assert.equal(bad.verified, false, what);
    assert.match(
      bad.reason ?? "",
      /validity is not a UTCTime or GeneralizedTime of RFC 5280/,
      what,
    );
  }
  // UTCTime 50-99 is the 1900s: a TSA certificate "until 2060" written as UTCTime ended in 1960.
  const cert = await tsaWith([text(0x17, "200101000000Z"), text(0x17, "600101000000Z")]);
  const expired = await verify({}, [root], { cert, key: tsaKeys.privateKey });
  assert.match(expired.reason ?? "", /not valid at the token's time/);
});

Deno.test("verifyTimestampToken() refuses what strict DER forbids in the token and in its TSTInfo", async () => {
  const token = await handToken(message, signer, { certificates: [tsaCert] });
  const ok = await verifyTimestampToken(token, { message, anchors: [der(root)] });
  assert.equal(ok.verified, true, ok.reason);
  // SignedData version 3 as 02 02 00 03 (not signed over: only DER's rule refuses it).
  const tree = parseDer(token);
  tree.children![1]!.children![0]!.children![0]!.value = new Uint8Array([0x00, 0x03]);
  const padded = await verifyTimestampToken(encodeDer(tree), { message, anchors: [der(root)] });
  assert.match(padded.reason ?? "", /not one DER value/);
  const constructed = await verify({ constructedContent: true });
  assert.match(constructed.reason ?? "", /not one DER value/);
  const tstEdits: [string, (d: Uint8Array) => Uint8Array, RegExp][] = [
    ["trailing bytes", (d) => new Uint8Array([...d, 0x05, 0x00]), /not one DER value/],
    ["a long-form length", (d) => new Uint8Array([0x30, 0x81, ...d.slice(1)]), /not one DER/],
    ["a primitive SEQUENCE", (d) => new Uint8Array([0x10, ...d.slice(1)]), /not one DER value/],
    ["version 02 02 00 01", (d) => _editTst(d, 0, [0x00, 0x01]), /not one DER value/],
    ["version 2", (d) => _editTst(d, 0, [0x02]), /version is not 1/],
    ["an unknown field", (d) => _appendTst(d, tlv(0x04, [1])), /fields are not those/],
    ["a nonce before the accuracy", (d) => _appendTst(d, tlv(0x02, [7]), accuracy()), /fields/],
  ];
  for (const [what, edit, reason] of tstEdits) {
    const r = await verify({ tstInfo: edit });
    assert.equal(r.verified, false, what);
    assert.match(r.reason ?? "", reason, what);
  }
});

Deno.test("verifyTimestampToken() requires the signed content type to be id-ct-TSTInfo and an ESS signing certificate naming the signer", async () => {
  const idData = await verify({ contentType: "1.2.840.113549.1.7.1" });
  assert.match(idData.reason ?? "", /signed content type is not the token's content type/);
  const none = await verify({ ess: "none" });
  assert.match(none.reason ?? "", /names no signing certificate/);
  const other = await verify({ ess: { v2Of: der(root) } });
  assert.match(other.reason ?? "", /ESS signing certificate is not the certificate/);
  for (const ess of ["v1", "v2"] as const) {
    const r = await verify({ ess });
    assert.equal(r.verified, true, `${ess}: ${r.reason}`);
  }
});

Deno.test("verifyTimestampToken() holds the path to pathLenConstraint, keyCertSign, CA anchors and known critical extensions", async () => {
  const path = async (
    o: { root: pkijs.Extension[]; mid: pkijs.Extension[]; tsa?: pkijs.Extension[] },
  ) => {
    const r = await handCert("Root", "Root", {
      pub: rootKeys.publicKey,
      by: rootKeys.privateKey,
      extensions: o.root,
    });
    const m = await handCert("Mid", "Root", {
      pub: midKeys.publicKey,
      by: rootKeys.privateKey,
      extensions: o.mid,
    });
    const s = await handCert("TSA", "Mid", {
      pub: tsaKeys.publicKey,
      by: midKeys.privateKey,
      extensions: o.tsa ?? [TSA()],
    });
    const t = await handToken(message, { cert: s, key: tsaKeys.privateKey }, {
      certificates: [s, m],
    });
    return await verifyTimestampToken(t, { message, anchors: [der(r)] });
  };
  const unknown = extension("1.3.6.1.4.1.99999.1", tlv(0x05, []));
  const good: [string, Parameters<typeof path>[0]][] = [
    ["pathLen 1 over one CA", { root: [CA(1)], mid: [CA(0)] }],
    ["keyCertSign", { root: [CA(), KEY_USAGE(0x06)], mid: [CA(), KEY_USAGE(0x04)] }],
    ["an unknown extension, not critical", {
      root: [CA()],
      mid: [CA()],
      tsa: [TSA(), extension("1.3.6.1.4.1.99999.1", tlv(0x05, []), false)],
    }],
    ["a signing key usage on the TSA", {
      root: [CA()],
      mid: [CA()],
      tsa: [TSA(), KEY_USAGE(0x80)],
    }],
  ];
  for (const [what, o] of good) {
    const r = await path(o);
    assert.equal(r.verified, true, `${what}: ${r.reason}`);
  }
  const bad: [string, Parameters<typeof path>[0], RegExp][] = [
    ["the root's pathLen 0 over a CA", { root: [CA(0)], mid: [CA()] }, /pathLenConstraint/],
    ["an intermediate without keyCertSign", {
      root: [CA()],
      mid: [CA(), KEY_USAGE(0x80)],
    }, /keyCertSign/],
    ["a root without keyCertSign", { root: [CA(), KEY_USAGE(0x02)], mid: [CA()] }, /keyCertSign/],
    ["an anchor that is no CA", { root: [], mid: [CA()] }, /not a CA/],
    ["an unknown critical extension on the TSA", {
      root: [CA()],
      mid: [CA()],
      tsa: [TSA(), unknown],
    }, /critical extension this check does not process \(1\.3\.6\.1\.4\.1\.99999\.1\)/],
    ["an unknown critical extension on the CA", {
      root: [CA()],
      mid: [CA(), unknown],
    }, /critical extension/],
    ["a TSA key for certificates only", {
      root: [CA()],
      mid: [CA()],
      tsa: [TSA(), KEY_USAGE(0x04)],
    }, /allows no digital signature/],
  ];
  for (const [what, o, reason] of bad) {
    const r = await path(o);
    assert.equal(r.verified, false, what);
    assert.match(r.reason ?? "", reason, what);
  }
});

Deno.test("verifyTimestampToken() finds the signer of a token without certificates among the pinned ones", async () => {
  const t = await handToken(message, signer, {});
  const pinned = await verifyTimestampToken(t, { message, anchors: [der(tsaCert)] });
  assert.equal(pinned.verified, true, pinned.reason);
  assert.equal(pinned.time, GEN);
  const both = await verifyTimestampToken(t, { message, anchors: [der(root), der(tsaCert)] });
  assert.equal(both.verified, true, both.reason);
  // Only its CA pinned: the token does not say who signed it, so nothing verifies.
  const caOnly = await verifyTimestampToken(t, { message, anchors: [der(root)] });
  assert.equal(caOnly.verified, false);
  assert.match(caOnly.reason ?? "", /signer certificate/);
});

/** The TSTInfo with its `i`th field's contents replaced. */
function _editTst(d: Uint8Array, i: number, content: number[]): Uint8Array {
  const tree = parseDer(d);
  tree.children![i]!.value = new Uint8Array(content);
  return encodeDer(tree);
}

/** The TSTInfo with fields appended. */
function _appendTst(d: Uint8Array, ...fields: Uint8Array[]): Uint8Array {
  const tree = parseDer(d);
  tree.children!.push(...fields.map(parseDer));
  return encodeDer(tree);
}

Deno.test("verifyTimestampToken() links a certificate to its issuer only when the issuer's key verifies its signature, not by name", async () => {
  const otherKeys = await keys();
  // The pinned anchor's name as issuer, another key's signature.
  const forged = await handCert("TSA", "Root", {
    pub: tsaKeys.publicKey,
    by: otherKeys.privateKey,
    extensions: [TSA()],
  });
  const direct = await verify({}, [root], { cert: forged, key: tsaKeys.privateKey });
  assert.equal(direct.verified, false);
  assert.match(direct.reason ?? "", /no path to a pinned TSA anchor/);
  // A genuine intermediate carried, the TSA certificate naming it but signed by another key.
  const mid = await handCert("Mid", "Root", {
    pub: midKeys.publicKey,
    by: rootKeys.privateKey,
    extensions: [CA()],
  });
  const underMid = await handCert("TSA", "Mid", {
    pub: tsaKeys.publicKey,
    by: otherKeys.privateKey,
    extensions: [TSA()],
  });
  const viaMid = await verify({ certificates: [underMid, mid] }, [root], {
    cert: underMid,
    key: tsaKeys.privateKey,
  });
  assert.equal(viaMid.verified, false);
  assert.match(viaMid.reason ?? "", /no path to a pinned TSA anchor/);
  // The same paths signed by the right keys verify.
  const genuine = await handCert("TSA", "Mid", {
    pub: tsaKeys.publicKey,
    by: midKeys.privateKey,
    extensions: [TSA()],
  });
  const good = await verify({ certificates: [genuine, mid] }, [root], {
    cert: genuine,
    key: tsaKeys.privateKey,
  });
  assert.equal(good.verified, true, good.reason);
});

Deno.test("verifyTimestampToken() takes a signer as pinned only when its DER is a pinned certificate's, not its subject name", async () => {
  const otherKeys = await keys();
  // Self-signed, the anchor's subject and issuer, another key.
  const twin = await handCert("Root", "Root", {
    pub: otherKeys.publicKey,
    by: otherKeys.privateKey,
    extensions: [TSA()],
  });
  const r = await verify({}, [root], { cert: twin, key: otherKeys.privateKey });
  assert.equal(r.verified, false);
  assert.match(r.reason ?? "", /no path to a pinned TSA anchor/);
  // Pinned itself, the same certificate verifies.
  const pinned = await verify({}, [twin], { cert: twin, key: otherKeys.privateKey });
  assert.equal(pinned.verified, true, pinned.reason);
});

Deno.test("verifyTimestampToken() requires the signer certificate's extended key usage to be critical and timeStamping alone (RFC 3161 §2.3)", async () => {
  const TIME_STAMPING = "1.3.6.1.5.5.7.3.8";
  const CODE_SIGNING = "1.3.6.1.5.5.7.3.3";
  const eku = (purposes: string[], critical: boolean) =>
    extension("2.5.29.37", new pkijs.ExtKeyUsage({ keyPurposes: purposes }), critical);
  const cases: [string, pkijs.Extension[]][] = [
    ["no extended key usage", []],
    ["timeStamping, not critical", [eku([TIME_STAMPING], false)]],
    ["timeStamping and codeSigning", [eku([TIME_STAMPING, CODE_SIGNING], true)]],
    ["codeSigning and timeStamping", [eku([CODE_SIGNING, TIME_STAMPING], true)]],
  ];
  for (const [what, extensions] of cases) {
    const cert = await handCert("TSA", "Root", {
      pub: tsaKeys.publicKey,
      by: rootKeys.privateKey,
      extensions,
    });
    const r = await verify({}, [root], { cert, key: tsaKeys.privateKey });
    assert.equal(r.verified, false, what);
    assert.match(r.reason ?? "", /lacks the critical timeStamping key usage/, what);
  }
});

Deno.test("verifyTimestampToken() refuses a TSA certificate not yet valid at the token's time", async () => {
  const from = (notBefore: string) =>
    handCert("TSA", "Root", {
      pub: tsaKeys.publicKey,
      by: rootKeys.privateKey,
      extensions: [TSA()],
      validity: [
        tlv(0x17, [...new TextEncoder().encode(notBefore)]),
        tlv(0x17, [...new TextEncoder().encode("300101000000Z")]),
      ],
    });
  // genTime is 2026-01-01T00:00:00Z: valid from that instant, not from the second after.
  const atGen = await from("260101000000Z");
  const ok = await verify({}, [root], { cert: atGen, key: tsaKeys.privateKey });
  assert.equal(ok.verified, true, ok.reason);
  for (const notBefore of ["260101000001Z", "270101000000Z"]) {
    const cert = await from(notBefore);
    const r = await verify({}, [root], { cert, key: tsaKeys.privateKey });
    assert.equal(r.verified, false, notBefore);
    assert.match(r.reason ?? "", /not valid at the token's time/, notBefore);
  }
});

Deno.test("verifyTimestampToken() refuses an anchor whose basic constraints say cA FALSE as the TSA certificate's issuer", async () => {
  for (
    const [what, value] of [
      ["cA FALSE written out", tlv(0x30, [0x01, 0x01, 0x00])],
      ["cA FALSE by default", tlv(0x30, [])],
    ] as const
  ) {
    const anchor = await handCert("Root", "Root", {
      pub: rootKeys.publicKey,
      by: rootKeys.privateKey,
      extensions: [extension("2.5.29.19", value)],
    });
    const r = await verify({}, [anchor]);
    assert.equal(r.verified, false, what);
    assert.match(r.reason ?? "", /TSA issuer certificate is not a CA/, what);
  }
});

Deno.test("verifyTimestampToken() refuses a token with a second SignerInfo beside the TSA's (RFC 3161 §2.4.2)", async () => {
  const token = await handToken(message, signer, { certificates: [tsaCert] });
  const info = pkijs.ContentInfo.fromBER(token.slice().buffer);
  const sd = new pkijs.SignedData({ schema: info.content });
  const copy = pkijs.SignerInfo.fromBER(sd.signerInfos[0]!.toSchema().toBER());
  copy.signature = new asn1js.OctetString({ valueHex: new Uint8Array(64) });
  sd.signerInfos.push(copy);
  const two = new Uint8Array(
    new pkijs.ContentInfo({ contentType: info.contentType, content: sd.toSchema(true) })
      .toSchema().toBER(),
  );
  const r = await verifyTimestampToken(two, { message, anchors: [der(root)] });
  assert.equal(r.verified, false);
  assert.match(r.reason ?? "", /not exactly one signer/);
});

Deno.test("verifyTimestampToken() unwraps a TimeStampResp only when its status is granted or grantedWithMods", async () => {
  const token = await handToken(message, signer, { certificates: [tsaCert] });
  const response = (status: number) =>
    new Uint8Array(
      new pkijs.TimeStampResp({
        status: new pkijs.PKIStatusInfo({ status }),
        timeStampToken: pkijs.ContentInfo.fromBER(token.slice().buffer),
      }).toSchema().toBER(),
    );
  for (const status of [0, 1]) {
    const r = await verifyTimestampToken(response(status), { message, anchors: [der(root)] });
    assert.equal(r.verified, true, `status ${status}: ${r.reason}`);
  }
  // rejection, waiting, revocationWarning, revocationNotification: the token inside is not given.
  for (const status of [2, 3, 4, 5]) {
    const r = await verifyTimestampToken(response(status), { message, anchors: [der(root)] });
    assert.equal(r.verified, false, `status ${status}`);
    assert.match(r.reason ?? "", /status not granted/, `status ${status}`);
  }
});

Deno.test("verifyTimestampToken() refuses a signer certificate that repeats its extended key usage extension", async () => {
  const cert = await handCert("TSA", "Root", {
    pub: tsaKeys.publicKey,
    by: rootKeys.privateKey,
    extensions: [TSA(), TSA()],
  });
  const r = await verify({}, [root], { cert, key: tsaKeys.privateKey });
  assert.equal(r.verified, false);
  assert.match(r.reason ?? "", /repeats an extension/);
});
