/**
 * What a time-stamp token's signer must have signed besides the TSTInfo's digest: the CMS content
 * type attribute, equal to the content type the caller requires (id-ct-TSTInfo, which the caller
 * also requires of the token's `eContentType`: RFC 5652 §11.1, otherwise the signature would hold
 * over the same bytes read as another kind of content), and the ESS attribute that
 * binds the signature to the TSA's certificate (RFC 3161 §2.4.1: `signingCertificate` with a
 * SHA-1 ESSCertID, RFC 2634 §5.4; or `signingCertificateV2`, RFC 5816 and RFC 5035 §3), whose
 * first certificate identifier must be the certificate that verified the signature: its hash, and
 * its issuer and serial number when given. Signed attributes appear at most once each.
 *
 * @module
 */
import * as asn1js from "asn1js";
import type * as pkijs from "pkijs";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { sha1 } from "@noble/hashes/legacy.js";
import { certificateFields } from "./_certificate_fields.ts";
import { equalBytes, readTlv, type Tlv, tlvChildren } from "./_der_tlv.ts";

const ID_CONTENT_TYPE = "1.2.840.113549.1.9.3";
const ID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4";
const ID_SIGNING_CERTIFICATE = "1.2.840.113549.1.9.16.2.12";
const ID_SIGNING_CERTIFICATE_V2 = "1.2.840.113549.1.9.16.2.47";
/** DER of the SHA-2 OIDs an ESSCertIDv2 may name (absent: SHA-256). */
const V2_HASHES: readonly [string, (m: Uint8Array) => Uint8Array][] = [
  ["0609608648016503040201", sha256],
  ["0609608648016503040202", sha384],
  ["0609608648016503040203", sha512],
];

/**
 * Why the signer's signed attributes do not bind the token to its content type and signer.
 *
 * @param signerInfo the token's one SignerInfo
 * @param o the content type the token must carry (the caller checks its `eContentType` against
 *   the same) and the certificate that verified the signature
 * @returns undefined when they do, else the reason
 * @example
 * ```ts ignore
 * const why = signedAttributesProblem(signed.signerInfos[0], { contentType, signer });
 * ```
 */
export function signedAttributesProblem(
  signerInfo: pkijs.SignerInfo,
  o: { contentType: string; signer: pkijs.Certificate },
): string | undefined {
  const attrs = signerInfo.signedAttrs?.attributes ?? [];
  if (attrs.length === 0) return "the token's signer has no signed attributes";
  const types = attrs.map((a) => a.type);
  if (new Set(types).size !== types.length) return "a signed attribute appears twice";
  const one = (type: string) => {
    const a = attrs.find((x) => x.type === type);
    return a === undefined ? undefined : a.values.length === 1 ? a.values[0] : null;
  };
  const contentType = one(ID_CONTENT_TYPE);
  if (
    !(contentType instanceof asn1js.ObjectIdentifier) ||
    contentType.getValue() !== o.contentType
  ) {
    return "the signed content type is not the token's content type";
  }
  if (!(one(ID_MESSAGE_DIGEST) instanceof asn1js.OctetString)) {
    return "the signed message digest is not one OCTET STRING";
  }
  const v1 = one(ID_SIGNING_CERTIFICATE);
  const v2 = one(ID_SIGNING_CERTIFICATE_V2);
  if (v1 === undefined && v2 === undefined) {
    return "the token names no signing certificate (ESS signingCertificate or signingCertificateV2)";
  }
  const signerDer = new Uint8Array(o.signer.toSchema().toBER());
  for (const [value, v2Form] of [[v1, false], [v2, true]] as const) {
    if (value === undefined) continue;
    if (value === null || !_identifiesSigner(value, { signerDer, signer: o.signer, v2Form })) {
      return "the token's ESS signing certificate is not the certificate that verified it";
    }
  }
  return undefined;
}

/**
 * SigningCertificate(V2) ::= SEQUENCE { certs SEQUENCE OF ESSCertID(v2), policies OPTIONAL };
 * ESSCertID ::= SEQUENCE { certHash OCTET STRING (SHA-1), issuerSerial IssuerSerial OPTIONAL };
 * ESSCertIDv2 ::= SEQUENCE { hashAlgorithm DEFAULT sha256, certHash, issuerSerial OPTIONAL }.
 */
function _identifiesSigner(
  value: asn1js.AsnType,
  o: { signerDer: Uint8Array; signer: pkijs.Certificate; v2Form: boolean },
): boolean {
  try {
    const der = new Uint8Array(value.toBER());
    const top = readTlv(der);
    const [certs, policies, ...more] = tlvChildren(top);
    if (top.tag !== 0x30 || certs?.tag !== 0x30 || more.length > 0) return false;
    if (policies !== undefined && policies.tag !== 0x30) return false;
    const [first] = tlvChildren(certs);
    if (first?.tag !== 0x30) return false;
    const parts = tlvChildren(first);
    let hash: (m: Uint8Array) => Uint8Array = o.v2Form ? sha256 : sha1;
    if (o.v2Form && parts[0]?.tag === 0x30) {
      const named = _v2Hash(parts.shift()!);
      if (named === undefined) return false;
      hash = named;
    }
    const [certHash, issuerSerial, ...rest] = parts;
    if (certHash?.tag !== 0x04 || rest.length > 0) return false;
    if (!equalBytes(certHash.content, hash(o.signerDer))) return false;
    return issuerSerial === undefined || _issuerSerialMatches(issuerSerial, o.signer);
  } catch {
    return false;
  }
}

/** AlgorithmIdentifier { algorithm, parameters NULL or absent } of SHA-256/384/512. */
function _v2Hash(alg: Tlv): ((m: Uint8Array) => Uint8Array) | undefined {
  const [oid, params, ...rest] = tlvChildren(alg);
  if (oid === undefined || rest.length > 0) return undefined;
  if (params !== undefined && !(params.tag === 0x05 && params.content.length === 0)) {
    return undefined;
  }
  const hex = [...oid.der].map((b) => b.toString(16).padStart(2, "0")).join("");
  return V2_HASHES.find(([h]) => h === hex)?.[1];
}

/** IssuerSerial ::= SEQUENCE { issuer GeneralNames, serialNumber }: one directoryName, equal. */
function _issuerSerialMatches(issuerSerial: Tlv, signer: pkijs.Certificate): boolean {
  const fields = certificateFields(signer);
  if (typeof fields === "string" || issuerSerial.tag !== 0x30) return false;
  const [names, serial, ...rest] = tlvChildren(issuerSerial);
  if (names?.tag !== 0x30 || serial?.tag !== 0x02 || rest.length > 0) return false;
  const [name, ...others] = tlvChildren(names);
  if (name?.tag !== 0xa4 || others.length > 0) return false; // [4] directoryName, explicit
  return equalBytes(name.content, fields.issuer) && equalBytes(serial.content, fields.serial);
}
