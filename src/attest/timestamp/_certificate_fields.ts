/**
 * What path checking reads from a certificate, taken from the bytes it was signed over (its
 * TBSCertificate, RFC 5280 §4.1) rather than from the ASN.1 library's reading: the serial number
 * and issuer name as encoded (the ESS identifiers compare them), the validity window read
 * strictly ({@link certificateTimeMillis}), and its extensions with their values' bytes.
 *
 * @module
 */
import type * as pkijs from "pkijs";
import { certificateTimeMillis } from "./_asn1_time.ts";
import { readTlv, tlvChildren } from "./_der_tlv.ts";

/** One extension of a certificate. */
export interface CertificateExtension {
  /** Its OID, dotted. */
  readonly id: string;
  /** Whether it is marked critical. */
  readonly critical: boolean;
  /** The DER inside `extnValue`. */
  readonly value: Uint8Array;
}

/** The fields of a certificate that path checking uses. */
export interface CertificateFields {
  /** The serial number's INTEGER content bytes. */
  readonly serial: Uint8Array;
  /** The issuer Name's DER. */
  readonly issuer: Uint8Array;
  /** `notBefore` in ms since the epoch. */
  readonly notBefore: number;
  /** `notAfter` in ms since the epoch. */
  readonly notAfter: number;
  /** The extensions in their order. */
  readonly extensions: readonly CertificateExtension[];
}

/**
 * Reads a certificate's fields.
 *
 * @param cert a certificate read by PKI.js (its `tbsView` holds the signed bytes)
 * @returns the fields, or why they cannot be read
 * @example
 * ```ts ignore
 * const f = certificateFields(pkijs.Certificate.fromBER(der));
 * if (typeof f !== "string") console.log(new Date(f.notAfter));
 * ```
 */
export function certificateFields(cert: pkijs.Certificate): CertificateFields | string {
  let fields;
  try {
    fields = tlvChildren(readTlv(cert.tbsView));
  } catch {
    return "a TSA certificate is malformed";
  }
  if (fields[0]?.tag === 0xa0) fields = fields.slice(1); // [0] version
  const [serial, , issuer, validity] = fields;
  if (serial?.tag !== 0x02 || issuer?.tag !== 0x30 || validity?.tag !== 0x30) {
    return "a TSA certificate is malformed";
  }
  let times;
  try {
    times = tlvChildren(validity);
  } catch {
    return "a TSA certificate is malformed";
  }
  const [notBefore, notAfter] = times.map((t) => certificateTimeMillis(t.tag, t.content));
  if (times.length !== 2 || notBefore === undefined || notAfter === undefined) {
    return "a TSA certificate's validity is not a UTCTime or GeneralizedTime of RFC 5280's form";
  }
  const extensions = (cert.extensions ?? []).map((x) => ({
    id: x.extnID,
    critical: x.critical,
    value: new Uint8Array(x.extnValue.valueBlock.valueHexView),
  }));
  return { serial: serial.content, issuer: issuer.der, notBefore, notAfter, extensions };
}
