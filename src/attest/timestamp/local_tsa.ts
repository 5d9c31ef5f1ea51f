/**
 * An in-process RFC 3161 time-stamp authority with a throw-away key: a self-signed CA certificate
 * (the anchor a trust root pins) and a TSA certificate it issued with the critical extended key
 * usage `timeStamping` (RFC 3161 §2.3); `stamp` returns a granted TimeStampResp whose token is a
 * CMS SignedData over a TSTInfo, signed with ECDSA P-256 / SHA-256 through WebCrypto and built with
 * PKI.js. The signed attributes carry content type, message digest and the ESS
 * `signingCertificateV2` attribute (RFC 3161 §2.4.1 as updated by RFC 5816) that `openssl ts
 * -verify` requires.
 *
 * Its clock is whatever the caller passes: it proves nothing against whoever runs it. It exists so
 * that a demonstration or a test can exercise the verification path offline without a subprocess.
 *
 * @module
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { sha256 } from "@noble/hashes/sha2.js";

/** A running in-process TSA. */
export interface LocalTsa {
  /** DER of the self-signed CA certificate: the anchor to pin in a trust root. */
  readonly anchor: Uint8Array;
  /** DER of the TSA (signer) certificate. */
  readonly certificate: Uint8Array;
  /**
   * Stamps `message` with a SHA-256 imprint at `time` (milliseconds since the epoch, truncated to
   * whole seconds).
   *
   * @throws {RangeError} when `time` is outside the certificates' validity
   */
  stamp(message: Uint8Array, options: { time: number }): Promise<Uint8Array>;
}

const ID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const ID_CT_TSTINFO = "1.2.840.113549.1.9.16.1.4";
const ID_SHA256 = "2.16.840.1.101.3.4.2.1";
const ID_CONTENT_TYPE = "1.2.840.113549.1.9.3";
const ID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4";
/** id-aa-signingCertificateV2 (RFC 5035 §3). */
const ID_SIGNING_CERTIFICATE_V2 = "1.2.840.113549.1.9.16.2.47";
const ID_KP_TIMESTAMPING = "1.3.6.1.5.5.7.3.8";
/** The TSA policy: an OID under the UUID arc 2.25 (ITU-T X.667), so no registry is needed. */
const POLICY = "2.25.204774893002915411155698801464285463930";
const EC = { name: "ECDSA", namedCurve: "P-256" } as const;

/**
 * Creates a TSA with fresh keys whose certificates are valid from `notBefore` to `notAfter`.
 *
 * @param options `name` (common name of the CA; the TSA is "<name> signer") and the validity
 *   window in milliseconds since the epoch
 * @returns the TSA
 * @throws {RangeError} when the window is empty
 * @example
 * ```ts
 * import { createLocalTsa } from "./local_tsa.ts";
 * import { verifyTimestampToken } from "./verify_timestamp_token.ts";
 * const now = Date.now();
 * const tsa = await createLocalTsa({ name: "example TSA", notBefore: now - 1e6, notAfter: now + 1e6 });
 * const message = new Uint8Array([1, 2, 3]);
 * const token = await tsa.stamp(message, { time: now });
 * const r = await verifyTimestampToken(token, { message, anchors: [tsa.anchor] });
 * if (!r.verified || r.time !== Math.floor(now / 1000) * 1000) throw new Error(r.reason);
 * ```
 */
export async function createLocalTsa(
  options: { name: string; notBefore: number; notAfter: number },
): Promise<LocalTsa> {
  const { name, notBefore, notAfter } = options;
  if (!(notBefore < notAfter)) throw new RangeError("Cannot create a TSA: empty validity window");
  const window = { notBefore, notAfter };
  const caKeys = await crypto.subtle.generateKey(EC, false, ["sign", "verify"]);
  const tsaKeys = await crypto.subtle.generateKey(EC, false, ["sign", "verify"]);
  const caName = _name(name);
  const ca = await _certificate({
    subject: caName,
    issuer: caName,
    publicKey: caKeys.publicKey,
    signingKey: caKeys.privateKey,
    ...window,
    extension: _extension(
      "2.5.29.19",
      new pkijs.BasicConstraints({ cA: true, pathLenConstraint: 0 }),
    ),
  });
  const tsa = await _certificate({
    subject: _name(`${name} signer`),
    issuer: caName,
    publicKey: tsaKeys.publicKey,
    signingKey: caKeys.privateKey,
    ...window,
    extension: _extension(
      "2.5.29.37",
      new pkijs.ExtKeyUsage({ keyPurposes: [ID_KP_TIMESTAMPING] }),
    ),
  });
  const tsaDer = new Uint8Array(tsa.toSchema(true).toBER());
  return {
    anchor: new Uint8Array(ca.toSchema(true).toBER()),
    certificate: tsaDer,
    stamp: async (message, { time }) => {
      const t = Math.floor(time / 1000) * 1000;
      if (!(t >= notBefore && t <= notAfter)) {
        throw new RangeError(
          `Cannot time-stamp at ${time}: outside the TSA certificate's validity`,
        );
      }
      return await _stamp(message, { time: t, signer: tsa, signerDer: tsaDer, key: tsaKeys });
    },
  };
}

async function _stamp(
  message: Uint8Array,
  o: { time: number; signer: pkijs.Certificate; signerDer: Uint8Array; key: CryptoKeyPair },
): Promise<Uint8Array> {
  const tst = new pkijs.TSTInfo({
    version: 1,
    policy: POLICY,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: ID_SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: sha256(message) }),
    }),
    serialNumber: new asn1js.Integer({ valueHex: _serial() }),
    genTime: new Date(o.time),
  });
  const tstDer = new Uint8Array(tst.toSchema().toBER());
  // ESSCertIDv2 with the default hash (SHA-256, so omitted) of the signer certificate.
  const signingCertificate = new asn1js.Sequence({
    value: [
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({
            value: [new asn1js.OctetString({ valueHex: sha256(o.signerDer) })],
          }),
        ],
      }),
    ],
  });
  const attributes = [
    new pkijs.Attribute({
      type: ID_CONTENT_TYPE,
      values: [new asn1js.ObjectIdentifier({ value: ID_CT_TSTINFO })],
    }),
    new pkijs.Attribute({
      type: ID_MESSAGE_DIGEST,
      values: [new asn1js.OctetString({ valueHex: sha256(tstDer) })],
    }),
    new pkijs.Attribute({ type: ID_SIGNING_CERTIFICATE_V2, values: [signingCertificate] }),
  ];
  const encapContentInfo = new pkijs.EncapsulatedContentInfo({ eContentType: ID_CT_TSTINFO });
  // Set apart: PKI.js's constructor re-encodes an eContent as a constructed (BER-only) OCTET
  // STRING, which a DER token may not hold and the verifier refuses.
  encapContentInfo.eContent = new asn1js.OctetString({ valueHex: tstDer });
  const signed = new pkijs.SignedData({
    version: 3,
    encapContentInfo,
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: o.signer.issuer,
          serialNumber: o.signer.serialNumber,
        }),
        // DER orders a SET OF by encoding; verifiers that re-encode (OpenSSL) sign-check that order.
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({
          type: 0,
          attributes: _derOrder(attributes),
        }),
      }),
    ],
    certificates: [o.signer],
  });
  await signed.sign(o.key.privateKey, 0, "SHA-256");
  const token = new pkijs.ContentInfo({
    contentType: ID_SIGNED_DATA,
    content: signed.toSchema(true),
  });
  const resp = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: token,
  });
  return new Uint8Array(resp.toSchema().toBER());
}

async function _certificate(o: {
  subject: pkijs.RelativeDistinguishedNames;
  issuer: pkijs.RelativeDistinguishedNames;
  publicKey: CryptoKey;
  signingKey: CryptoKey;
  notBefore: number;
  notAfter: number;
  extension: pkijs.Extension;
}): Promise<pkijs.Certificate> {
  const c = new pkijs.Certificate({
    version: 2,
    serialNumber: new asn1js.Integer({ valueHex: _serial() }),
    subject: o.subject,
    issuer: o.issuer,
    notBefore: new pkijs.Time({ type: 0, value: new Date(o.notBefore) }),
    notAfter: new pkijs.Time({ type: 0, value: new Date(o.notAfter) }),
    extensions: [o.extension],
  });
  await c.subjectPublicKeyInfo.importKey(o.publicKey);
  await c.sign(o.signingKey, "SHA-256");
  return c;
}

function _extension(
  extnID: string,
  value: pkijs.BasicConstraints | pkijs.ExtKeyUsage,
): pkijs.Extension {
  return new pkijs.Extension({
    extnID,
    critical: true,
    extnValue: value.toSchema().toBER(false),
    parsedValue: value,
  });
}

function _name(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [
      new pkijs.AttributeTypeAndValue({
        type: "2.5.4.3",
        value: new asn1js.Utf8String({ value: commonName }),
      }),
    ],
  });
}

/** A positive 16-byte serial number (top bit clear). */
function _serial(): Uint8Array {
  const s = crypto.getRandomValues(new Uint8Array(16));
  s[0] = (s[0]! & 0x7f) | 0x01;
  return s;
}

function _derOrder(attrs: readonly pkijs.Attribute[]): pkijs.Attribute[] {
  const enc = new Map(attrs.map((a) => [a, new Uint8Array(a.toSchema().toBER())]));
  const cmp = (x: Uint8Array, y: Uint8Array) => {
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i]! - y[i]!;
    }
    return x.length - y.length;
  };
  return [...attrs].sort((a, b) => cmp(enc.get(a)!, enc.get(b)!));
}
