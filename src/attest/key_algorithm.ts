/**
 * The algorithm a PKCS#8 private key or a SubjectPublicKeyInfo public key is for, read from its DER
 * only to say what a refused key is: `PrivateKeyInfo ::= SEQUENCE { version INTEGER,
 * privateKeyAlgorithm AlgorithmIdentifier, ... }` (RFC 5208 §5, RFC 5958 §2),
 * `SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }`
 * (RFC 5280 §4.1.2.7), `AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER,
 * parameters ANY OPTIONAL }` (RFC 5280 §4.1.1.2); an EC key names its curve in the parameters
 * (RFC 5480 §2.1.1).
 *
 * @module
 */

/** Object identifiers of key algorithms, and how a message names them. */
const _ALGORITHMS: Readonly<Record<string, string>> = {
  "1.2.840.113549.1.1.1": "an RSA key",
  "1.2.840.113549.1.1.10": "an RSA-PSS key",
  "1.2.840.10040.4.1": "a DSA key",
  "1.2.840.10045.2.1": "an EC key",
  "1.3.101.110": "an X25519 key",
  "1.3.101.111": "an X448 key",
  "1.3.101.112": "an Ed25519 key",
  "1.3.101.113": "an Ed448 key",
};

/** Named curves of EC keys (RFC 5480 §2.1.1.1, SEC 2). */
const _CURVES: Readonly<Record<string, string>> = {
  "1.2.840.10045.3.1.7": "P-256",
  "1.3.132.0.34": "P-384",
  "1.3.132.0.35": "P-521",
  "1.3.132.0.10": "secp256k1",
};

/** The object identifier of Ed25519 (RFC 8410 §3). */
export const ED25519_OID = "1.3.101.112";

/** A key's algorithm: its object identifier in dotted form and how a message names the key. */
export interface KeyAlgorithm {
  /** The algorithm's object identifier, dotted (`1.2.840.10045.2.1`). */
  readonly oid: string;
  /** How a message names the key: "an RSA key", "an EC key (P-256)", "a key of algorithm 1.2.3". */
  readonly name: string;
}

/**
 * Reads which algorithm a PKCS#8 private key's DER names.
 *
 * @param der the DER bytes (anything: nothing is trusted)
 * @returns the algorithm, or undefined when the bytes do not start as a PKCS#8 structure or name
 *   an OID of over 32 bytes
 * @example
 * ```ts
 * import { pkcs8Algorithm } from "./key_algorithm.ts";
 * const x25519 = new Uint8Array(48);
 * x25519.set([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x04, 0x22]);
 * if (pkcs8Algorithm(x25519)?.name !== "an X25519 key") throw new Error();
 * ```
 */
export function pkcs8Algorithm(der: Uint8Array): KeyAlgorithm | undefined {
  const info = _tlv(der, 0, 0x30);
  const version = info && _tlv(der, info.start, 0x02);
  return version && _algorithmIdentifier(der, version.end);
}

/**
 * Reads which algorithm a SubjectPublicKeyInfo public key's DER names.
 *
 * @param der the DER bytes (anything: nothing is trusted)
 * @returns the algorithm, or undefined when the bytes do not start as a SubjectPublicKeyInfo or
 *   name an OID of over 32 bytes
 * @example
 * ```ts
 * import { spkiAlgorithm } from "./key_algorithm.ts";
 * const x25519 = new Uint8Array(44);
 * x25519.set([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00]);
 * if (spkiAlgorithm(x25519)?.name !== "an X25519 key") throw new Error();
 * ```
 */
export function spkiAlgorithm(der: Uint8Array): KeyAlgorithm | undefined {
  const info = _tlv(der, 0, 0x30);
  return info && _algorithmIdentifier(der, info.start);
}

/**
 * Why a key whose DER names another algorithm than Ed25519 is refused, in the one wording private
 * and public keys share: "it is an RSA key, not an Ed25519 key".
 *
 * @param algorithm what {@link pkcs8Algorithm} or {@link spkiAlgorithm} read
 * @returns the reason, or undefined when no algorithm was read or it is Ed25519
 * @example
 * ```ts
 * import { notEd25519 } from "./key_algorithm.ts";
 * const why = notEd25519({ oid: "1.2.840.113549.1.1.1", name: "an RSA key" });
 * if (why !== "it is an RSA key, not an Ed25519 key") throw new Error(why);
 * ```
 */
export function notEd25519(algorithm: KeyAlgorithm | undefined): string | undefined {
  return algorithm === undefined || algorithm.oid === ED25519_OID
    ? undefined
    : `it is ${algorithm.name}, not an Ed25519 key`;
}

/** The AlgorithmIdentifier at `at`: its OID and, for an EC key, the curve its parameters name. */
function _algorithmIdentifier(der: Uint8Array, at: number): KeyAlgorithm | undefined {
  const algorithm = _tlv(der, at, 0x30);
  const oid = algorithm && _tlv(der, algorithm.start, 0x06);
  if (oid === undefined || oid.end > algorithm!.end) return undefined;
  const dotted = _dotted(der.subarray(oid.start, oid.end));
  if (dotted === undefined) return undefined;
  const params = oid.end < algorithm!.end ? _tlv(der, oid.end, 0x06) : undefined;
  const curve = params && _dotted(der.subarray(params.start, params.end));
  const name = _ALGORITHMS[dotted] ?? `a key of algorithm ${dotted}`;
  const curveName = curve === undefined ? undefined : _CURVES[curve] ?? curve;
  return { oid: dotted, name: curveName === undefined ? name : `${name} (${curveName})` };
}

/**
 * One DER tag-length-value at `at` with the expected tag: where its contents start and end, or
 * undefined when the tag differs, the length is not definite DER, or it runs past the bytes.
 */
function _tlv(
  der: Uint8Array,
  at: number,
  tag: number,
): { start: number; end: number } | undefined {
  if (der[at] !== tag || at + 1 >= der.length) return undefined;
  let length = der[at + 1]!;
  let start = at + 2;
  if (length >= 0x80) {
    const n = length - 0x80;
    if (n < 1 || n > 3 || start + n > der.length) return undefined;
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + der[start + i]!;
    start += n;
  }
  const end = start + length;
  return end > der.length ? undefined : { start, end };
}

/**
 * Longest OBJECT IDENTIFIER contents read, in bytes: a key algorithm's or curve's takes at most
 * 9 (RSA's), and the dotted form of a longer one would be written into a message at up to twice
 * its length (a 40 kB OID in a key file made an 80 kB error line).
 */
const _MAX_OID_BYTES = 32;

/**
 * An OBJECT IDENTIFIER's contents in dotted form (X.690 §8.19), or undefined if malformed or
 * longer than {@link _MAX_OID_BYTES}.
 */
function _dotted(bytes: Uint8Array): string | undefined {
  if (bytes.length > _MAX_OID_BYTES) return undefined;
  const arcs: number[] = [];
  let value = 0;
  for (const [i, b] of bytes.entries()) {
    // A leading 0x80 pads an arc (not DER); an arc past 2^32 names no key algorithm.
    if ((value === 0 && b === 0x80) || value > 0xffffffff) return undefined;
    value = value * 128 + (b & 0x7f);
    if (b & 0x80) {
      if (i === bytes.length - 1) return undefined;
      continue;
    }
    arcs.push(value);
    value = 0;
  }
  if (arcs.length === 0) return undefined;
  const head = arcs[0]!;
  const first = head < 40 ? 0 : head < 80 ? 1 : 2;
  return [first, head - first * 40, ...arcs.slice(1)].join(".");
}
