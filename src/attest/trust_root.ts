/**
 * The trust root: the out-of-band list of keys a third party accepts, with validity windows and
 * revocations (modelled on Sigstore `TrustedRoot` `valid_for`).
 *
 * @module
 */
import { SIGNED_ORIGIN_PATTERN } from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import { decodeBase64 } from "./base64.ts";
import { keyId } from "./key_id.ts";
import { parseRfc3339 } from "./rfc3339.ts";
import { decodeSpki } from "./spki.ts";
import {
  child,
  children,
  type Fields,
  fieldsOf,
  has,
  oneOf,
  onlyKnown,
  str,
} from "../json_fields.ts";
import { parseStrictJson, StrictJsonError } from "../json_strict.ts";

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
  /**
   * A prover key's one log: the checkpoint origin (C2SP `tlog-checkpoint` origin line, the note
   * key name) of every checkpoint it may sign, so that a checkpoint of the same records under
   * another origin does not verify. Absent: any origin (`SIGNED_ORIGIN_PATTERN`).
   */
  readonly origin?: string;
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
 * Most keys a trust root lists (every role together). Each signature of an envelope is tried
 * against every trusted key when its hint names none, so this bounds what a hostile envelope and
 * trust root together cost (64 signature entries x 64 keys); a real root lists a handful.
 */
export const MAX_TRUST_ROOT_KEYS = 64;

/**
 * Parses a trust-root JSON document.
 *
 * Shape: `{ "mediaType", "keys": [{ "keyid", "publicKey": base64 SPKI DER, "role":
 * "inspector"|"prover", "validFor": {"start": RFC 3339, "end"?: RFC 3339}, "revoked"?: {"time":
 * RFC 3339, "reason": string}, "origin"?: string (prover keys only) }], "drand"?, "tsa"? }`.
 * Unknown fields are refused (a misspelt `revoked` must not leave a key trusted, nor a misspelt
 * `origin` a prover key unpinned). Each `keyid` must equal `keyId(publicKey)`.
 *
 * @param text JSON text
 * @returns the trust root, frozen
 * @throws {InputError} `BAD_TRUST_ROOT` for an input that is not a string, a wrong shape, bad
 *   base64/DER/timestamp or duplicate key; `KEYID_MISMATCH` when a `keyid` is not the SHA-256 of
 *   its SPKI
 * @example
 * ```ts
 * import { parseTrustRoot } from "./trust_root.ts";
 * const root = parseTrustRoot('{"mediaType":"application/vnd.bitaudit.trustroot.v1+json","keys":[]}');
 * if (root.keys.length !== 0) throw new Error();
 * ```
 */
export function parseTrustRoot(text: string): TrustRoot {
  if (typeof text !== "string") _bad("input is not text");
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    _bad(`not strict JSON (${e.reason} at '${e.path}')`);
  }
  const f = fieldsOf(value, "trustRoot", _fail);
  onlyKnown(f, ["mediaType", "keys", "drand", "tsa"]);
  const root = f.obj;
  if (root.mediaType !== TRUST_ROOT_MEDIA_TYPE) {
    _bad(`'mediaType' is not '${TRUST_ROOT_MEDIA_TYPE}'`);
  }
  if (Array.isArray(root.keys) && root.keys.length > MAX_TRUST_ROOT_KEYS) {
    _bad(`lists ${root.keys.length} keys, more than ${MAX_TRUST_ROOT_KEYS}`);
  }
  const keys = children(f, "keys", [
    "keyid",
    "publicKey",
    "role",
    "validFor",
    "revoked",
    "origin",
  ]).map(
    _key,
  );
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

function _key(k: Fields): TrustRootKey {
  const where = k.path;
  const keyid = str(k, "keyid");
  let publicKey: Uint8Array;
  try {
    publicKey = decodeSpki(decodeBase64(str(k, "publicKey")));
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
  const role = oneOf(k, "role", ["inspector", "prover"] as const);
  const vf = child(k, "validFor", ["start", "end"]);
  const start = _time(vf, "start");
  const end = has(vf, "end") ? _time(vf, "end") : undefined;
  if (end !== undefined && end < start) _bad(`'${where}.validFor' ends before it starts`);
  let revoked: TrustRootKey["revoked"];
  if (has(k, "revoked")) {
    const r = child(k, "revoked", ["time", "reason"]);
    revoked = Object.freeze({ time: _time(r, "time"), reason: str(r, "reason", /^.{0,1024}$/s) });
  }
  let origin: string | undefined;
  if (has(k, "origin")) {
    if (role !== "prover") _bad(`'${where}.origin' is given for a key whose role is not prover`);
    origin = str(k, "origin", SIGNED_ORIGIN_PATTERN);
  }
  return Object.freeze({
    keyid,
    publicKey,
    role,
    validFor: Object.freeze(end === undefined ? { start } : { start, end }),
    ...(revoked === undefined ? {} : { revoked }),
    ...(origin === undefined ? {} : { origin }),
  });
}

function _time(f: Fields, key: string): number {
  try {
    return parseRfc3339(str(f, key));
  } catch (e) {
    if (e instanceof InputError && e.code === "BAD_TIMESTAMP") {
      _bad(`'${f.path}.${key}': ${e.message}`);
    }
    throw e;
  }
}

function _fail(path: string, why: string): never {
  _bad(`'${path}' ${why}`);
}

function _bad(why: string): never {
  throw new InputError("BAD_TRUST_ROOT", `Cannot read trust root: ${why}`);
}
