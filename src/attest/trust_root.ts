/**
 * The trust root: the out-of-band list of keys a third party accepts, with validity windows and
 * revocations (modelled on Sigstore `TrustedRoot` `valid_for`).
 *
 * @module
 */
import { InputError } from "../errors.ts";
import { decodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { decodeSpki } from "./spki.ts";
import { jsonObject, jsonString } from "./json_shape.ts";

/** `mediaType` of a bitaudit trust root, version 1. */
export const TRUST_ROOT_MEDIA_TYPE = "application/vnd.bitaudit.trustroot.v1+json";

/** What a key may sign for. */
export type KeyRole = "inspector" | "prover";

/** One trusted key. Times are milliseconds since the Unix epoch. */
export interface TrustRootKey {
  /** `keyId(publicKey)`, checked on load. */
  readonly keyid: string;
  /** 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /** Role of the key holder. */
  readonly role: KeyRole;
  /** First instant the key may sign, and the last (inclusive) if bounded. */
  readonly validFor: { readonly start: number; readonly end?: number };
  /** Revocation: signatures at or after `time` are not accepted. */
  readonly revoked?: { readonly time: number; readonly reason: string };
}

/** A parsed trust root. */
export interface TrustRoot {
  /** Always {@link TRUST_ROOT_MEDIA_TYPE}. */
  readonly mediaType: string;
  /** The keys, with distinct key ids. */
  readonly keys: readonly TrustRootKey[];
  /** Beacon chain info, passed through unparsed (the sampling code checks it). */
  readonly drand?: unknown;
  /** Timestamp authorities, passed through unparsed. */
  readonly tsa?: unknown;
}

/**
 * Parses a trust-root JSON document.
 *
 * Shape: `{ "mediaType", "keys": [{ "keyid", "publicKey": base64 SPKI DER, "role":
 * "inspector"|"prover", "validFor": {"start": RFC 3339, "end"?: RFC 3339}, "revoked"?: {"time":
 * RFC 3339, "reason": string} }], "drand"?, "tsa"? }`. Unknown fields are refused (a misspelt
 * `revoked` must not leave a key trusted). Each `keyid` must equal `keyId(publicKey)`.
 *
 * @param text JSON text
 * @returns the trust root, frozen
 * @throws {InputError} `BAD_TRUST_ROOT` for a wrong shape, bad base64/DER/timestamp or duplicate
 *   key; `KEYID_MISMATCH` when a `keyid` is not the SHA-256 of its SPKI
 * @example
 * ```ts
 * import { parseTrustRoot } from "./trust_root.ts";
 * const root = parseTrustRoot('{"mediaType":"application/vnd.bitaudit.trustroot.v1+json","keys":[]}');
 * if (root.keys.length !== 0) throw new Error();
 * ```
 */
export function parseTrustRoot(text: string): TrustRoot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    _bad(`not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const root = _object(value, "trustRoot", ["mediaType", "keys", "drand", "tsa"]);
  if (root.mediaType !== TRUST_ROOT_MEDIA_TYPE) {
    _bad(`'mediaType' is not '${TRUST_ROOT_MEDIA_TYPE}'`);
  }
  if (!Array.isArray(root.keys)) _bad("'keys' is not an array");
  const keys = root.keys.map((k: unknown, i) => _key(k, `keys[${i}]`));
  const ids = new Set<string>();
  for (const k of keys) {
    if (ids.has(k.keyid)) _bad(`key ${k.keyid} is listed twice`);
    ids.add(k.keyid);
  }
  const out: TrustRoot = {
    mediaType: TRUST_ROOT_MEDIA_TYPE,
    keys: Object.freeze(keys),
    ...(root.drand === undefined ? {} : { drand: root.drand }),
    ...(root.tsa === undefined ? {} : { tsa: root.tsa }),
  };
  return Object.freeze(out);
}

function _key(v: unknown, where: string): TrustRootKey {
  const k = _object(v, where, ["keyid", "publicKey", "role", "validFor", "revoked"]);
  const keyid = _string(k, "keyid", where);
  let publicKey: Uint8Array;
  try {
    publicKey = decodeSpki(decodeBase64(_string(k, "publicKey", where)));
  } catch (e) {
    if (e instanceof InputError) _bad(`'${where}.publicKey': ${e.message}`);
    throw e;
  }
  if (keyId(publicKey) !== keyid) {
    throw new InputError(
      "KEYID_MISMATCH",
      `Cannot read trust root: '${where}.keyid' is not the SHA-256 of its publicKey (expected ${
        keyId(publicKey)
      })`,
    );
  }
  const role = k.role;
  if (role !== "inspector" && role !== "prover") _bad(`'${where}.role' is not inspector|prover`);
  const vf = _object(k.validFor, `${where}.validFor`, ["start", "end"]);
  const start = _time(vf, "start", `${where}.validFor`);
  const end = vf.end === undefined ? undefined : _time(vf, "end", `${where}.validFor`);
  if (end !== undefined && end < start) _bad(`'${where}.validFor' ends before it starts`);
  let revoked: TrustRootKey["revoked"];
  if (k.revoked !== undefined) {
    const r = _object(k.revoked, `${where}.revoked`, ["time", "reason"]);
    revoked = Object.freeze({
      time: _time(r, "time", `${where}.revoked`),
      reason: _string(r, "reason", `${where}.revoked`),
    });
  }
  return Object.freeze({
    keyid,
    publicKey,
    role,
    validFor: Object.freeze(end === undefined ? { start } : { start, end }),
    ...(revoked === undefined ? {} : { revoked }),
  });
}

function _time(obj: Record<string, unknown>, key: string, where: string): number {
  try {
    return parseRfc3339(_string(obj, key, where));
  } catch (e) {
    if (e instanceof InputError && e.code === "BAD_TIMESTAMP") {
      _bad(`'${where}.${key}': ${e.message}`);
    }
    throw e;
  }
}

function _object(v: unknown, where: string, known: readonly string[]): Record<string, unknown> {
  return jsonObject(v, { where, known, bad: _bad });
}

function _string(obj: Record<string, unknown>, key: string, where: string): string {
  return jsonString(obj, { key, where, bad: _bad });
}

function _bad(why: string): never {
  throw new InputError("BAD_TRUST_ROOT", `Cannot read trust root: ${why}`);
}
