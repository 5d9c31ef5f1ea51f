/**
 * RFC 3161 time-stamp tokens verified offline against pinned TSA trust anchors, with PKI.js (CMS
 * SignedData, certificate signatures) for the cryptography and the fields that decide the
 * verdict read from their bytes here.
 *
 * Checks, in order: the token is strict DER (X.690 §10: definite minimal lengths, minimal
 * INTEGERs, no constructed strings) and a CMS SignedData whose content is a TSTInfo (a full
 * TimeStampResp with status granted is unwrapped); the TSTInfo is strict DER too, its fields
 * those of RFC 3161 §2.4.2 in order, its `genTime` in the `YYYYMMDDhhmmss[.s...]Z` form with
 * every field in range, its accuracy at most a year with millis and micros in 1..999; the
 * message imprint is SHA-256, SHA-384 or SHA-512 of the given message; the token has one signer,
 * found among its certificates or, when it carries none (certReq false), among the pinned ones;
 * the CMS signature verifies; the signed content type is id-ct-TSTInfo and an ESS
 * `signingCertificate` or `signingCertificateV2` names the certificate that verified the
 * signature; that certificate is pinned or chains to a pinned anchor under RFC 5280's rules
 * (CA issuers, `pathLenConstraint`, `keyCertSign`, no unprocessed critical extension), every
 * certificate of the path valid at the token's time; the signer certificate carries the critical
 * extended key usage `timeStamping` and nothing else (RFC 3161 §2.3). The token's time is
 * `genTime` plus its accuracy, the latest instant it allows. Anything else is a result with a
 * reason.
 *
 * @module
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { equalBytes } from "./_der_tlv.ts";
import { isStrictDer } from "./_strict_der.ts";
import { signedAttributesProblem } from "./_signer_attributes.ts";
import { tsaCertificatePath } from "./_tsa_certificate_path.ts";
import { tstInfoTime } from "./_tst_info_time.ts";

/** Upper bound on a token's size in bytes (real tokens are a few KiB). */
export const MAX_TIMESTAMP_TOKEN_BYTES = 64 * 1024;
/** Most certificates a token may carry (a TSA sends its own and perhaps an intermediate or two). */
const MAX_TOKEN_CERTIFICATES = 8;

/** Outcome of {@link verifyTimestampToken}. */
export interface TimestampVerification {
  /** True only when every check passed. */
  readonly verified: boolean;
  /** Why not (set when `verified` is false). */
  readonly reason?: string;
  /** The token's `genTime` in milliseconds since the epoch, when the token could be read. */
  readonly time?: number;
}

const ID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const ID_CT_TSTINFO = "1.2.840.113549.1.9.16.1.4";
const ID_EKU = "2.5.29.37";
const ID_KP_TIMESTAMPING = "1.3.6.1.5.5.7.3.8";
const HASHES: Readonly<Record<string, (m: Uint8Array) => Uint8Array>> = {
  "2.16.840.1.101.3.4.2.1": sha256,
  "2.16.840.1.101.3.4.2.2": sha384,
  "2.16.840.1.101.3.4.2.3": sha512,
};

/**
 * Verifies an RFC 3161 time-stamp token over `message`.
 *
 * @param token DER of a TimeStampToken (CMS ContentInfo) or of a TimeStampResp
 * @param options the stamped `message` bytes and the trusted TSA `anchors` (DER certificates)
 * @returns the verification with the token time
 * @example
 * ```ts
 * import { verifyTimestampToken } from "./verify_timestamp_token.ts";
 * const r = await verifyTimestampToken(new Uint8Array([0x30, 0x00]), {
 *   message: new Uint8Array(1), anchors: [],
 * });
 * if (r.verified) throw new Error();
 * ```
 */
export async function verifyTimestampToken(
  token: Uint8Array,
  options: { message: Uint8Array; anchors: readonly Uint8Array[] },
): Promise<TimestampVerification> {
  const read = _readToken(token);
  if (typeof read === "string") return _no(read);
  const { signed, tst } = read;
  // The stamping instant lies within genTime +- accuracy (RFC 3161 2.4.2): the latest one is what
  // the token shows the message existed by, and what keys and rounds are judged against.
  const time = read.time;
  const imprint = _imprintMismatch(tst, options.message);
  if (imprint !== undefined) return _no(imprint, time);
  let anchors: pkijs.Certificate[];
  try {
    anchors = options.anchors.map((der) => pkijs.Certificate.fromBER(der.slice().buffer));
  } catch {
    return _no("a TSA anchor certificate is malformed", time);
  }
  const carried = (signed.certificates ?? []).filter((c): c is pkijs.Certificate =>
    c instanceof pkijs.Certificate
  );
  if ((signed.certificates ?? []).length > MAX_TOKEN_CERTIFICATES) {
    return _no(`the token carries more than ${MAX_TOKEN_CERTIFICATES} certificates`, time);
  }
  // RFC 3161 2.4.2: the TSA's signature is the token's only one.
  if (signed.signerInfos.length !== 1) return _no("the token has not exactly one signer", time);
  let signer: pkijs.Certificate;
  try {
    // PKI.js looks for the signer among the token's certificates only; a token asked for without
    // them (certReq false, RFC 3161 2.4.1) has none, and its signer may be a pinned certificate:
    // search the token's first, then the pinned ones. The CMS signature only: PKI.js's own path
    // building follows the token's certificates without a bound (two CAs issuing each other never
    // end), so the path is built and checked in `tsaCertificatePath`.
    signed.certificates = [...carried, ...anchors];
    const r = await signed.verify({
      signer: 0,
      checkChain: false,
      extendedMode: true,
      data: options.message.slice().buffer,
    });
    if (!r.signatureVerified || !r.signerCertificate) {
      return _no(`the CMS signature does not verify`, time);
    }
    signer = r.signerCertificate;
  } catch (e) {
    return _no(`the CMS signature or its certificate path does not verify (${_msg(e)})`, time);
  }
  const attributes = signedAttributesProblem(signed.signerInfos[0]!, {
    contentType: ID_CT_TSTINFO,
    signer,
  });
  if (attributes !== undefined) return _no(attributes, time);
  let path: pkijs.Certificate[] | string;
  try {
    path = await tsaCertificatePath(signer, { carried, anchors, pinned: options.anchors, time });
  } catch (e) {
    return _no(`the certificate path does not verify (${_msg(e)})`, time);
  }
  if (typeof path === "string") return _no(path, time);
  if (!_timestampingOnly(signer)) {
    return _no("the signer certificate lacks the critical timeStamping key usage", time);
  }
  return { verified: true, time };
}

/**
 * Why an RFC 3161 token's message imprint is not the hash of `message` (its signature and
 * certificates are not looked at: {@link verifyTimestampToken} does that against a trust root).
 * What a bundle writer checks so that it never ships a token over something else.
 *
 * @param token DER of a TimeStampToken or TimeStampResp
 * @param message the bytes the token should be over
 * @returns undefined when the imprint matches, else the reason
 * @example
 * ```ts
 * import { timestampImprintMismatch } from "./verify_timestamp_token.ts";
 * if (timestampImprintMismatch(new Uint8Array([0x30, 0x00]), new Uint8Array(1)) === undefined) {
 *   throw new Error("an empty SEQUENCE matched");
 * }
 * ```
 */
export function timestampImprintMismatch(
  token: Uint8Array,
  message: Uint8Array,
): string | undefined {
  const read = _readToken(token);
  return typeof read === "string" ? read : _imprintMismatch(read.tst, message);
}

function _readToken(
  token: Uint8Array,
): { signed: pkijs.SignedData; tst: pkijs.TSTInfo; time: number } | string {
  if (token.length > MAX_TIMESTAMP_TOKEN_BYTES) return "the token is too large";
  try {
    const signed = _signedData(token);
    if (signed.encapContentInfo.eContentType !== ID_CT_TSTINFO) return "not a TSTInfo";
    const content = signed.encapContentInfo.eContent;
    if (content === undefined) return "no TSTInfo content";
    // What the TSA signed is read as strictly as the token around it, its time from its bytes.
    const der = new Uint8Array(content.getValue());
    if (!isStrictDer(der)) return "the TSTInfo is not one DER value";
    const time = tstInfoTime(der);
    if (typeof time === "string") return time;
    return { signed, tst: pkijs.TSTInfo.fromBER(der.slice().buffer), time };
  } catch (e) {
    return `not a time-stamp token (${_msg(e)})`;
  }
}

function _imprintMismatch(tst: pkijs.TSTInfo, message: Uint8Array): string | undefined {
  const hash = HASHES[tst.messageImprint.hashAlgorithm.algorithmId];
  if (hash === undefined) return "unsupported message imprint hash";
  const imprint = new Uint8Array(tst.messageImprint.hashedMessage.valueBlock.valueHexView);
  return equalBytes(imprint, hash(message)) ? undefined : "the token is for another message";
}

function _signedData(token: Uint8Array): pkijs.SignedData {
  if (!isStrictDer(token)) throw new Error("not one DER value");
  const parsed = asn1js.fromBER(token.slice().buffer);
  if (parsed.offset === -1 || parsed.offset !== token.length) throw new Error("not one DER value");
  let info: pkijs.ContentInfo;
  const seq = parsed.result as asn1js.Sequence;
  const first = seq.valueBlock?.value?.[0];
  if (first instanceof asn1js.ObjectIdentifier) {
    info = new pkijs.ContentInfo({ schema: parsed.result });
  } else {
    const resp = new pkijs.TimeStampResp({ schema: parsed.result });
    if (resp.status.status !== 0 && resp.status.status !== 1) throw new Error("status not granted");
    if (resp.timeStampToken === undefined) throw new Error("no token in the response");
    info = resp.timeStampToken;
  }
  if (info.contentType !== ID_SIGNED_DATA) throw new Error("not CMS SignedData");
  return new pkijs.SignedData({ schema: info.content });
}

function _timestampingOnly(cert: pkijs.Certificate): boolean {
  const eku = cert.extensions?.find((x) => x.extnID === ID_EKU);
  if (eku === undefined || !eku.critical) return false;
  const usages = (eku.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  return usages.length === 1 && usages[0] === ID_KP_TIMESTAMPING;
}

function _msg(e: unknown): string {
  return e instanceof Error ? e.message : String((e as { message?: unknown })?.message ?? e);
}

function _no(reason: string, time?: number): TimestampVerification {
  return time === undefined ? { verified: false, reason } : { verified: false, reason, time };
}
