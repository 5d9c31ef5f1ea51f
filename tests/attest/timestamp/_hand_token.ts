/**
 * RFC 3161 tokens and certificates built by hand with PKI.js and WebCrypto (no TSA software), each
 * part open to change: the TSTInfo's bytes, the signed attributes, the certificates' validity
 * encodings and extensions. What the tests of the token rules forge.
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { sha256 } from "@noble/hashes/sha2.js";
import { sha1 } from "@noble/hashes/legacy.js";

const EC = { name: "ECDSA", namedCurve: "P-256" } as const;
/** The default `genTime` of {@link handToken}. */
export const GEN = Date.UTC(2026, 0, 1);
const ID_CT_TSTINFO = "1.2.840.113549.1.9.16.1.4";

/** A fresh P-256 key pair. */
export const keys = (): Promise<CryptoKeyPair> =>
  crypto.subtle.generateKey(EC, false, ["sign", "verify"]) as Promise<CryptoKeyPair>;

/** A DER tag-length-value. */
export function tlv(tag: number, content: Uint8Array | number[]): Uint8Array {
  const n = content.length;
  const len = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return new Uint8Array([tag, ...len, ...content]);
}

/** A parsed TLV tree: constructed values hold children, primitive ones their contents. */
export interface Node {
  tag: number;
  children?: Node[];
  value?: Uint8Array;
}

/** Parses DER (low tag numbers, definite lengths) into a tree. */
export function parseDer(b: Uint8Array): Node {
  const read = (at: number): [Node, number] => {
    const tag = b[at]!;
    let len = b[at + 1]!;
    let i = at + 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + b[i++]!;
    }
    const end = i + len;
    if ((tag & 0x20) === 0) return [{ tag, value: b.slice(i, end) }, end];
    const children: Node[] = [];
    while (i < end) {
      const [c, next] = read(i);
      children.push(c);
      i = next;
    }
    return [{ tag, children }, end];
  };
  return read(0)[0];
}

/** Encodes a tree as DER. */
export function encodeDer(n: Node): Uint8Array {
  if (n.children === undefined) return tlv(n.tag, n.value!);
  return tlv(n.tag, n.children.flatMap((c) => [...encodeDer(c)]));
}

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

/** An extension (critical unless told) with the DER of `v` as its value. */
export function extension(
  extnID: string,
  v: { toSchema(): asn1js.BaseBlock } | Uint8Array,
  critical = true,
): pkijs.Extension {
  const value = v instanceof Uint8Array ? v : new Uint8Array(v.toSchema().toBER(false));
  return new pkijs.Extension({ extnID, critical, extnValue: value.slice().buffer });
}
/** Critical basic constraints of a CA, with a path length when given. */
export const CA = (pathLen?: number): pkijs.Extension =>
  extension(
    "2.5.29.19",
    new pkijs.BasicConstraints(
      pathLen === undefined ? { cA: true } : { cA: true, pathLenConstraint: pathLen },
    ),
  );
/** The critical extended key usage `timeStamping` alone. */
export const TSA = (): pkijs.Extension =>
  extension("2.5.29.37", new pkijs.ExtKeyUsage({ keyPurposes: ["1.3.6.1.5.5.7.3.8"] }));
/** A critical key usage whose first byte of bits is `bits` (0x04 keyCertSign, 0x80 signing). */
export const KEY_USAGE = (bits: number): pkijs.Extension =>
  extension("2.5.29.15", tlv(0x03, [0x01, bits]));

/**
 * A certificate of `subject` issued by `issuer`, valid 2020 to 2030 (UTCTime) unless `validity`
 * gives the DER of its Validity's two Times.
 */
export async function handCert(
  subject: string,
  issuer: string,
  o: {
    pub: CryptoKey;
    by: CryptoKey;
    extensions: pkijs.Extension[];
    validity?: [Uint8Array, Uint8Array];
  },
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
  if (o.validity === undefined) return c;
  // Re-sign a TBSCertificate whose Validity holds the given encodings.
  const tbs = parseDer(c.tbsView);
  tbs.children![4] = parseDer(tlv(0x30, [...o.validity[0], ...o.validity[1]]));
  const tbsDer = encodeDer(tbs);
  const p1363 = new Uint8Array(
    await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, o.by, tbsDer.slice()),
  );
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    const v = b.subarray(i);
    return tlv(0x02, v[0]! & 0x80 ? [0, ...v] : [...v]);
  };
  const sig = tlv(0x30, [...int(p1363.subarray(0, 32)), ...int(p1363.subarray(32))]);
  const alg = new Uint8Array(c.signatureAlgorithm.toSchema().toBER());
  const certDer = tlv(0x30, [...tbsDer, ...alg, ...tlv(0x03, [0, ...sig])]);
  return pkijs.Certificate.fromBER(certDer.slice().buffer);
}

/** A certificate's DER. */
export const der = (c: pkijs.Certificate): Uint8Array => new Uint8Array(c.toSchema().toBER());

/** A self-signed CA certificate "Root", the TSA certificate "TSA" it issues, and their keys. */
export interface HandPki {
  /** The root CA's key pair. */
  readonly rootKeys: CryptoKeyPair;
  /** The root CA's certificate (the anchor to pin). */
  readonly root: pkijs.Certificate;
  /** The TSA's key pair. */
  readonly tsaKeys: CryptoKeyPair;
  /** The TSA's certificate: the TSA extension, issued and signed by the root. */
  readonly tsaCert: pkijs.Certificate;
  /** The TSA's certificate and private key, as {@link handToken} takes its signer. */
  readonly signer: { cert: pkijs.Certificate; key: CryptoKey };
}

/** Fresh keys, a root CA and a TSA certificate under it: a well-formed anchor and signer. */
export async function handPki(): Promise<HandPki> {
  const [rootKeys, tsaKeys] = await Promise.all([keys(), keys()]);
  const root = await handCert("Root", "Root", {
    pub: rootKeys.publicKey,
    by: rootKeys.privateKey,
    extensions: [CA()],
  });
  const tsaCert = await handCert("TSA", "Root", {
    pub: tsaKeys.publicKey,
    by: rootKeys.privateKey,
    extensions: [TSA()],
  });
  return { rootKeys, root, tsaKeys, tsaCert, signer: { cert: tsaCert, key: tsaKeys.privateKey } };
}

/** How {@link handToken} departs from a well-formed token. */
export interface HandTokenOptions {
  /** The certificates the token carries (none when absent). */
  certificates?: pkijs.Certificate[];
  /** The GeneralizedTime contents of `genTime` (default "20260101000000Z", {@link GEN}). */
  genTime?: string;
  /** The DER of the TSTInfo's accuracy (none when absent). */
  accuracy?: Uint8Array;
  /** Edits the TSTInfo's DER before it is signed. */
  tstInfo?: (der: Uint8Array) => Uint8Array;
  /** The signed content-type attribute's OID (default id-ct-TSTInfo). */
  contentType?: string;
  /** The ESS attribute: v2 (SHA-256, default), v1 (SHA-1), none, or v2 over other bytes. */
  ess?: "v1" | "v2" | "none" | { v2Of: Uint8Array };
  /** Encode the eContent as a constructed OCTET STRING (PKI.js's default, BER only). */
  constructedContent?: boolean;
}

/** A TimeStampToken over `message` signed by `signer`. */
export async function handToken(
  message: Uint8Array,
  signer: { cert: pkijs.Certificate; key: CryptoKey },
  o: HandTokenOptions = {},
): Promise<Uint8Array> {
  const oid = (v: string) => new Uint8Array(new asn1js.ObjectIdentifier({ value: v }).toBER());
  let tstDer: Uint8Array = tlv(0x30, [
    ...tlv(0x02, [1]),
    ...oid("1.2.3.4.1"),
    ...tlv(0x30, [...tlv(0x30, [...oid("2.16.840.1.101.3.4.2.1")]), ...tlv(0x04, sha256(message))]),
    ...tlv(0x02, [0x01, ...crypto.getRandomValues(new Uint8Array(8))]),
    ...tlv(0x18, [...new TextEncoder().encode(o.genTime ?? "20260101000000Z")]),
    ...(o.accuracy ?? []),
  ]);
  if (o.tstInfo !== undefined) tstDer = o.tstInfo(tstDer);
  const signerDer = der(signer.cert);
  const essCertId = (hash: Uint8Array) =>
    new asn1js.Sequence({
      value: [
        new asn1js.Sequence({
          value: [new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: hash })] })],
        }),
      ],
    });
  const ess = o.ess ?? "v2";
  const essAttr = ess === "none" ? [] : ess === "v1"
    ? [
      new pkijs.Attribute({
        type: "1.2.840.113549.1.9.16.2.12",
        values: [essCertId(sha1(signerDer))],
      }),
    ]
    : [
      new pkijs.Attribute({
        type: "1.2.840.113549.1.9.16.2.47",
        values: [essCertId(sha256(ess === "v2" ? signerDer : ess.v2Of))],
      }),
    ];
  const encap = new pkijs.EncapsulatedContentInfo({
    eContentType: ID_CT_TSTINFO,
    ...(o.constructedContent ? { eContent: new asn1js.OctetString({ valueHex: tstDer }) } : {}),
  });
  if (!o.constructedContent) encap.eContent = new asn1js.OctetString({ valueHex: tstDer });
  const sd = new pkijs.SignedData({
    version: 3,
    encapContentInfo: encap,
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
              values: [new asn1js.ObjectIdentifier({ value: o.contentType ?? ID_CT_TSTINFO })],
            }),
            new pkijs.Attribute({
              type: "1.2.840.113549.1.9.4",
              values: [new asn1js.OctetString({ valueHex: sha256(tstDer) })],
            }),
            ...essAttr,
          ],
        }),
      }),
    ],
    ...(o.certificates === undefined ? {} : { certificates: o.certificates }),
  });
  await sd.sign(signer.key, 0, "SHA-256");
  return new Uint8Array(
    new pkijs.ContentInfo({ contentType: "1.2.840.113549.1.7.2", content: sd.toSchema(true) })
      .toSchema().toBER(),
  );
}
