/**
 * The certificate path from a time-stamp token's signer to a pinned TSA anchor, and the RFC 5280
 * §6.1 rules it must keep at the token's time: built over the token's own certificates, each link
 * an issuer whose subject names the certificate's issuer and whose key verifies its signature,
 * bounded in depth and never revisiting a certificate; then every certificate within its
 * validity window at that time, every issuer (the anchor included) a CA by basic constraints
 * whose `pathLenConstraint` allows the CA certificates below it and whose key usage, when
 * present, includes `keyCertSign`, no extension twice, and no critical extension this check does
 * not process.
 *
 * @module
 */
import type * as pkijs from "pkijs";
import { type CertificateFields, certificateFields } from "./_certificate_fields.ts";
import { derIntegerValue, equalBytes, readTlv, tlvChildren } from "./_der_tlv.ts";

/** Most certificates between the signer and a pinned anchor. */
const MAX_PATH_DEPTH = 4;

const ID_BASIC_CONSTRAINTS = "2.5.29.19";
const ID_KEY_USAGE = "2.5.29.15";
/** Extensions whose criticality is honoured: processed here or by the caller, or inert here. */
const UNDERSTOOD = new Set([
  ID_BASIC_CONSTRAINTS,
  ID_KEY_USAGE,
  "2.5.29.37", // extended key usage (the caller requires timeStamping on the signer)
  "2.5.29.14", // subject key identifier
  "2.5.29.35", // authority key identifier
  "2.5.29.17", // subject alternative name (names are not constrained here)
]);

/**
 * Builds and checks the path from `signer` to a pinned anchor at `time`.
 *
 * @param signer the certificate whose key verified the token's signature
 * @param o the token's certificates, the parsed anchors, their DER, and the time (ms)
 * @returns the path, signer first (alone when the signer itself is pinned), or why not
 * @example
 * ```ts ignore
 * const path = await tsaCertificatePath(signer, { carried, anchors, pinned, time });
 * ```
 */
export async function tsaCertificatePath(
  signer: pkijs.Certificate,
  o: {
    carried: readonly pkijs.Certificate[];
    anchors: readonly pkijs.Certificate[];
    pinned: readonly Uint8Array[];
    time: number;
  },
): Promise<pkijs.Certificate[] | string> {
  const path = await _build(signer, o);
  if (typeof path === "string") return `the certificate path does not verify (${path})`;
  for (const [i, cert] of path.entries()) {
    const fields = certificateFields(cert);
    if (typeof fields === "string") return fields;
    if (fields.notBefore > o.time || fields.notAfter < o.time) {
      return "a TSA certificate was not valid at the token's time";
    }
    const why = _extensionsProblem(fields, i);
    if (why !== undefined) return why;
  }
  return path;
}

/** Why a certificate's extensions break the rules at its place `i` in the path (0: the signer). */
function _extensionsProblem(fields: CertificateFields, i: number): string | undefined {
  const ids = fields.extensions.map((x) => x.id);
  if (new Set(ids).size !== ids.length) return "a TSA certificate repeats an extension";
  const unknown = fields.extensions.find((x) => x.critical && !UNDERSTOOD.has(x.id));
  if (unknown !== undefined) {
    const id = /^[0-9.]{1,64}$/.test(unknown.id) ? unknown.id : "?";
    return `a TSA certificate has a critical extension this check does not process (${id})`;
  }
  const usage = _keyUsage(fields);
  if (usage === "malformed") return "a TSA certificate is malformed";
  if (i === 0) {
    // RFC 3161 §2.3 and OpenSSL's timestamp purpose: a key usage, when present, signs.
    if (usage !== undefined && (usage & 0xc0) === 0) {
      return "the signer certificate's key usage allows no digital signature";
    }
    return undefined;
  }
  const bc = _basicConstraints(fields);
  if (bc === "malformed") return "a TSA certificate is malformed";
  if (bc === undefined || !bc.ca) return "a TSA issuer certificate is not a CA";
  if (usage !== undefined && (usage & 0x04) === 0) {
    return "a TSA issuer certificate's key usage lacks keyCertSign";
  }
  // The CA certificates between this one and the signer: path[1 .. i-1].
  if (bc.pathLen !== undefined && bc.pathLen < BigInt(i - 1)) {
    return "a TSA issuer certificate's pathLenConstraint is exceeded";
  }
  return undefined;
}

/** The first byte of the key usage bits (digitalSignature 0x80 ... keyCertSign 0x04). */
function _keyUsage(fields: CertificateFields): number | "malformed" | undefined {
  const x = fields.extensions.find((e) => e.id === ID_KEY_USAGE);
  if (x === undefined) return undefined;
  try {
    const bits = readTlv(x.value);
    if (bits.tag !== 0x03 || bits.der.length !== x.value.length || bits.content.length < 2) {
      return "malformed";
    }
    return bits.content[1]!;
  } catch {
    return "malformed";
  }
}

/** BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER OPTIONAL }. */
function _basicConstraints(
  fields: CertificateFields,
): { ca: boolean; pathLen?: bigint } | "malformed" | undefined {
  const x = fields.extensions.find((e) => e.id === ID_BASIC_CONSTRAINTS);
  if (x === undefined) return undefined;
  try {
    const seq = readTlv(x.value);
    if (seq.tag !== 0x30 || seq.der.length !== x.value.length) return "malformed";
    const parts = tlvChildren(seq);
    let at = 0;
    let ca = false;
    if (parts[at]?.tag === 0x01) ca = parts[at++]!.content[0] === 0xff;
    if (parts[at]?.tag !== 0x02) return at === parts.length ? { ca } : "malformed";
    const pathLen = derIntegerValue(parts[at]!.content);
    return at + 1 === parts.length && pathLen >= 0n ? { ca, pathLen } : "malformed";
  } catch {
    return "malformed";
  }
}

/** Whether the certificate is a CA by its basic constraints. */
function _isCa(cert: pkijs.Certificate): boolean {
  const fields = certificateFields(cert);
  if (typeof fields === "string") return false;
  const bc = _basicConstraints(fields);
  return bc !== undefined && bc !== "malformed" && bc.ca;
}

/** The path, signer first, ending at an anchor (or the signer alone when pinned). */
async function _build(
  signer: pkijs.Certificate,
  o: {
    carried: readonly pkijs.Certificate[];
    anchors: readonly pkijs.Certificate[];
    pinned: readonly Uint8Array[];
  },
): Promise<pkijs.Certificate[] | string> {
  const own = new Uint8Array(signer.toSchema().toBER());
  if (o.pinned.some((der) => equalBytes(der, own))) return [signer]; // a pinned signer
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
