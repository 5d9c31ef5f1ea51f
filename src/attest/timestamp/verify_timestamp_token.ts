/**
 * RFC 3161 time-stamp tokens verified offline against pinned TSA trust anchors, with PKI.js (CMS
 * SignedData, TSTInfo, certificate paths) rather than hand parsing.
 *
 * Checks, in order: the token is a CMS SignedData whose content is a TSTInfo (a full
 * TimeStampResp with status granted is unwrapped); the message imprint is SHA-256, SHA-384 or
 * SHA-512 of the given message; the CMS signature verifies and the signer certificate chains to a
 * trusted anchor; every certificate of that path was within its validity window at the token's
 * `genTime`; the signer certificate carries the critical extended key usage `timeStamping`
 * (RFC 3161 §2.3). Anything else is a result with a reason.
 *
 * @module
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { sha256, sha384, sha512 } from "@noble/hashes/sha2.js";
import { isStrictDer } from "./_strict_der.ts";

/** Upper bound on a token's size in bytes (real tokens are a few KiB). */
export const MAX_TIMESTAMP_TOKEN_BYTES = 64 * 1024;
/** Most certificates a token may carry (a TSA sends its own and perhaps an intermediate or two). */
const MAX_TOKEN_CERTIFICATES = 8;
/** Most certificates between the signer and a pinned anchor. */
const MAX_PATH_DEPTH = 4;
const ID_BASIC_CONSTRAINTS = "2.5.29.19";

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
  const acc = tst.accuracy;
  const slack = acc === undefined
    ? 0
    : (acc.seconds ?? 0) * 1000 + (acc.millis ?? 0) + Math.ceil((acc.micros ?? 0) / 1000);
  if (!Number.isSafeInteger(slack) || slack < 0) return _no("the token's accuracy is malformed");
  const time = tst.genTime.getTime() + slack;
  const imprint = _imprintMismatch(tst, options.message);
  if (imprint !== undefined) return _no(imprint, time);
  let anchors: pkijs.Certificate[];
  try {
    anchors = options.anchors.map((der) => pkijs.Certificate.fromBER(der.slice().buffer));
  } catch {
    return _no("a TSA anchor certificate is malformed", time);
  }
  const carried = signed.certificates ?? [];
  if (carried.length > MAX_TOKEN_CERTIFICATES) {
    return _no(`the token carries more than ${MAX_TOKEN_CERTIFICATES} certificates`, time);
  }
  let path: pkijs.Certificate[];
  let signer: pkijs.Certificate | null | undefined;
  try {
    // The CMS signature only: PKI.js's own path building follows the token's certificates without
    // a bound (two CAs issuing each other never end), so the path is built here (`_path`).
    const r = await signed.verify({
      signer: 0,
      trustedCerts: anchors, // where the signer's certificate may be found, if the token has none
      checkChain: false,
      extendedMode: true,
      data: options.message.slice().buffer,
    });
    if (!r.signatureVerified || !r.signerCertificate) {
      return _no(`the CMS signature does not verify`, time);
    }
    signer = r.signerCertificate;
    const built = await _path(signer, {
      carried: carried.filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate),
      anchors,
      pinned: options.anchors,
    });
    if (typeof built === "string") {
      return _no(`the certificate path does not verify (${built})`, time);
    }
    path = built;
  } catch (e) {
    return _no(`the CMS signature or its certificate path does not verify (${_msg(e)})`, time);
  }
  // PKI.js does not hold every certificate of the path to genTime: check the windows here.
  for (const c of [...path, ...(signer ? [signer] : [])]) {
    if (c.notBefore.value.getTime() > time || c.notAfter.value.getTime() < time) {
      return _no("a TSA certificate was not valid at the token's time", time);
    }
  }
  if (!signer || !_timestampingOnly(signer)) {
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

function _readToken(token: Uint8Array): { signed: pkijs.SignedData; tst: pkijs.TSTInfo } | string {
  if (token.length > MAX_TIMESTAMP_TOKEN_BYTES) return "the token is too large";
  try {
    const signed = _signedData(token);
    if (signed.encapContentInfo.eContentType !== ID_CT_TSTINFO) return "not a TSTInfo";
    const content = signed.encapContentInfo.eContent;
    if (content === undefined) return "no TSTInfo content";
    return { signed, tst: pkijs.TSTInfo.fromBER(content.getValue()) };
  } catch (e) {
    return `not a time-stamp token (${(e as Error).message})`;
  }
}

function _imprintMismatch(tst: pkijs.TSTInfo, message: Uint8Array): string | undefined {
  const hash = HASHES[tst.messageImprint.hashAlgorithm.algorithmId];
  if (hash === undefined) return "unsupported message imprint hash";
  const imprint = new Uint8Array(tst.messageImprint.hashedMessage.valueBlock.valueHexView);
  return _equal(imprint, hash(message)) ? undefined : "the token is for another message";
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

function _equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function _msg(e: unknown): string {
  return e instanceof Error ? e.message : String((e as { message?: unknown })?.message ?? e);
}

function _no(reason: string, time?: number): TimestampVerification {
  return time === undefined ? { verified: false, reason } : { verified: false, reason, time };
}

/**
 * Builds the path from the signer to a pinned anchor over the token's own certificates, each link
 * an issuer whose subject names the certificate's issuer and whose key verifies its signature;
 * every issuer other than the anchor must be a CA (basic constraints). Bounded in depth and never
 * revisiting a certificate.
 */
async function _path(
  signer: pkijs.Certificate,
  o: {
    carried: readonly pkijs.Certificate[];
    anchors: readonly pkijs.Certificate[];
    pinned: readonly Uint8Array[];
  },
): Promise<pkijs.Certificate[] | string> {
  const own = new Uint8Array(signer.toSchema().toBER());
  if (o.pinned.some((der) => _equal(der, own))) return [signer]; // a pinned signer
  const path = [signer];
  let current = signer;
  for (let depth = 0; depth <= MAX_PATH_DEPTH; depth++) {
    for (const anchor of o.anchors) {
      if (current.issuer.isEqual(anchor.subject) && await current.verify(anchor)) {
        return [...path, anchor];
      }
    }
    let next: pkijs.Certificate | undefined;
    for (const c of o.carried) {
      if (path.includes(c) || !current.issuer.isEqual(c.subject) || !_isCa(c)) continue;
      if (await current.verify(c)) {
        next = c;
        break;
      }
    }
    if (next === undefined) return "no path to a pinned TSA anchor";
    path.push(next);
    current = next;
  }
  return `no pinned TSA anchor within ${MAX_PATH_DEPTH} certificates`;
}

function _isCa(cert: pkijs.Certificate): boolean {
  const bc = cert.extensions?.find((x) => x.extnID === ID_BASIC_CONSTRAINTS);
  return (bc?.parsedValue as pkijs.BasicConstraints | undefined)?.cA === true;
}
