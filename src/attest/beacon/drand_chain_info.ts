/**
 * drand chain information: the public parameters that identify a randomness chain (group public
 * key, period, genesis time, genesis seed, scheme, beacon id) and its chain hash.
 *
 * The JSON shape is what drand relays serve at `/<chain hash>/info` (the v1 relay format, also the
 * `ChainInfo` type of drand-client). The chain hash is recomputed from the fields as drand's
 * `chain.Info.Hash()` defines it (github.com/drand/drand `common/chain/info.go`):
 * `SHA-256(u32be(period) || i64be(genesis_time) || public key || genesis seed || beacon id)`, the
 * beacon id being left out for the default beacon (`""` or `"default"`). The scheme is not part of
 * the hash; it only selects how signatures are checked.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { InputError } from "../../errors.ts";
import { bytesToHex, hexToBytes } from "../../claims/mod.ts";
import { fieldsOf, onlyKnown, str } from "../../json_fields.ts";
import { parseStrictJson, StrictJsonError } from "../../json_strict.ts";

/** Upper bound on a chain-info document, in bytes (real ones are under 1 KiB). */
export const MAX_DRAND_INFO_BYTES = 16 * 1024;

/** A parsed drand chain info. Times are seconds since the Unix epoch. */
export interface DrandChainInfo {
  /** Group public key as published (lowercase hex of its compressed encoding). */
  readonly publicKey: string;
  /** Seconds between rounds. */
  readonly period: number;
  /** Time of round 1, seconds since the epoch. */
  readonly genesisTime: number;
  /** Genesis seed (`groupHash`), lowercase hex; round 1 of a chained scheme signs over it. */
  readonly groupHash: string;
  /** Scheme id, e.g. `pedersen-bls-chained` or `bls-unchained-g1-rfc9380`. */
  readonly schemeId: string;
  /** Beacon id (`metadata.beaconID`), `"default"` for the original chain. */
  readonly beaconId: string;
  /** The chain hash the document states (checked against {@link drandChainHash} on verify). */
  readonly hash: string;
}

/**
 * Parses a drand chain-info JSON document (v1 relay format) strictly.
 *
 * @param text JSON text: `{public_key, period, genesis_time, hash, groupHash, schemeID,
 *   metadata: {beaconID}}`
 * @returns the chain info, frozen (hex fields lowercased)
 * @throws {InputError} `BAD_BEACON` when the input is not a string, the text is too long, not
 *   JSON, a round instead of chain info, has unknown or missing fields, non-hex keys or hashes,
 *   or a period/genesis time out of range
 * @example
 * ```ts
 * import { parseDrandChainInfo } from "./drand_chain_info.ts";
 * const info = parseDrandChainInfo(JSON.stringify({
 *   public_key: "ab", period: 3, genesis_time: 1692803367, hash: "cd".repeat(32),
 *   groupHash: "ef".repeat(32), schemeID: "bls-unchained-g1-rfc9380",
 *   metadata: { beaconID: "quicknet" },
 * }));
 * if (info.period !== 3) throw new Error();
 * ```
 */
export function parseDrandChainInfo(text: string): DrandChainInfo {
  const json = _json(text, "chain info");
  _refuseRound(json);
  const obj = _object(json, "info", [
    "public_key",
    "period",
    "genesis_time",
    "hash",
    "groupHash",
    "schemeID",
    "metadata",
  ]);
  const meta = _object(obj.metadata, "info.metadata", ["beaconID"]);
  return Object.freeze({
    publicKey: _hex(obj, "public_key", "info"),
    period: _int(obj, "period", { min: 1, max: 86_400 }),
    // 2^40 s is about 34,000 years: far beyond any real chain, small enough to stay exact.
    genesisTime: _int(obj, "genesis_time", { min: 0, max: 2 ** 40 }),
    hash: _hex(obj, "hash", "info", 32),
    groupHash: _hex(obj, "groupHash", "info"),
    schemeId: _string(obj, "schemeID", "info"),
    beaconId: _beaconId(_string(meta, "beaconID", "info.metadata")),
  });
}

/**
 * A round (`{round, randomness, signature}`, what a relay serves at `/public/<n>`) given where the
 * chain's info belongs: said as such, not as an unknown field `round`.
 */
function _refuseRound(json: unknown): void {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return;
  const o = json as Record<string, unknown>;
  if (!("round" in o) || !("signature" in o || "randomness" in o) || "public_key" in o) return;
  const n = Number.isSafeInteger(o.round) ? ` ${o.round}` : "";
  _bad(
    `this is a drand round${n}, not the chain's info: --drand and --chain take the chain's ` +
      "info (the relay's /info JSON, with public_key, period and genesis_time)",
  );
}

/**
 * Recomputes the chain hash of a chain info (drand `chain.Info.Hash()`).
 *
 * @param info parsed chain info
 * @returns lowercase hex SHA-256
 * @example
 * ```ts
 * import { drandChainHash } from "./drand_chain_info.ts";
 * const h = drandChainHash({
 *   publicKey: "00", period: 30, genesisTime: 0, groupHash: "", schemeId: "x", beaconId: "default",
 *   hash: "",
 * });
 * if (h.length !== 64) throw new Error();
 * ```
 */
export function drandChainHash(info: DrandChainInfo): string {
  // The hash holds the period in 32 bits and the genesis time in 64: a value that does not fit
  // would wrap and name another chain's hash.
  if (!Number.isSafeInteger(info.period) || info.period < 1 || info.period > 0xffffffff) {
    throw new RangeError(`Cannot hash drand chain info: period ${info.period} is out of range`);
  }
  if (!Number.isSafeInteger(info.genesisTime)) {
    throw new RangeError(`Cannot hash drand chain info: genesis time is not an integer`);
  }
  const head = new Uint8Array(12);
  const view = new DataView(head.buffer);
  view.setUint32(0, info.period);
  view.setBigInt64(4, BigInt(info.genesisTime));
  const id = info.beaconId === "" || info.beaconId === "default"
    ? new Uint8Array(0)
    : new TextEncoder().encode(info.beaconId);
  const parts = [head, hexToBytes(info.publicKey), hexToBytes(info.groupHash), id];
  const buf = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    buf.set(p, at);
    at += p.length;
  }
  return bytesToHex(sha256(buf));
}

/**
 * Publication time of a round: genesis + (round - 1) x period, in seconds since the epoch
 * (drand `TimeOfRound`).
 *
 * @param info chain info
 * @param round round number, >= 1
 * @returns seconds since the epoch
 * @throws {RangeError} when `round` is not a positive safe integer
 * @example
 * ```ts
 * import { drandRoundTime } from "./drand_chain_info.ts";
 * const info = { period: 3, genesisTime: 1692803367 } as const;
 * if (drandRoundTime(info, 123) !== 1692803733) throw new Error();
 * ```
 */
export function drandRoundTime(
  info: Pick<DrandChainInfo, "period" | "genesisTime">,
  round: number,
): number {
  if (!Number.isSafeInteger(round) || round < 1) {
    throw new RangeError(`Cannot compute round time: round ${round} is not a positive integer`);
  }
  const t = info.genesisTime + (round - 1) * info.period;
  if (!Number.isSafeInteger(t)) throw new RangeError(`Cannot compute round time: round too large`);
  return t;
}

function _beaconId(id: string): string {
  // drand beacon ids are short names ("default", "quicknet"); anything else never reaches a report.
  if (!/^[A-Za-z0-9._-]{0,64}$/.test(id)) _bad("'info.metadata.beaconID' is not a short name");
  return id;
}

/** @internal shared with the round parser: strict JSON with a size bound and coded errors. */
export function _json(text: string, what: string): unknown {
  if (typeof text !== "string") _bad(`${what} is not text`);
  if (text.length > MAX_DRAND_INFO_BYTES) _bad(`${what} is longer than ${MAX_DRAND_INFO_BYTES}`);
  try {
    return parseStrictJson(text);
  } catch (e) {
    if (!(e instanceof StrictJsonError)) throw e;
    return _bad(`${what} is not strict JSON (${e.reason} at '${e.path}')`);
  }
}

/** @internal a hex field, lowercased; `bytes` fixes its decoded length. */
export function _hex(
  obj: Record<string, unknown>,
  key: string,
  where: string,
  bytes?: number,
): string {
  const v = _string(obj, key, where);
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(v) || v.length > 2048) _bad(`'${where}.${key}' is not hex`);
  if (bytes !== undefined && v.length !== 2 * bytes) {
    _bad(`'${where}.${key}' is ${v.length / 2} bytes, expected ${bytes}`);
  }
  return v.toLowerCase();
}

/** @internal an integer field within a range. */
export function _int(
  obj: Record<string, unknown>,
  key: string,
  range: { min: number; max: number },
): number {
  const v = obj[key];
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < range.min || v > range.max) {
    _bad(`'${key}' is not an integer in [${range.min}, ${range.max}]`);
  }
  return v as number;
}

/** @internal a plain object with known fields only. */
export function _object(
  v: unknown,
  where: string,
  known: readonly string[],
): Record<string, unknown> {
  const f = fieldsOf(v, where, _fail);
  onlyKnown(f, known);
  return f.obj as Record<string, unknown>;
}

function _string(obj: Record<string, unknown>, key: string, where: string): string {
  return str({ path: where, obj, fail: _fail }, key);
}

function _fail(path: string, why: string): never {
  _bad(`'${path}' ${why}`);
}

/** @internal raises `BAD_BEACON`. */
export function _bad(why: string): never {
  throw new InputError("BAD_BEACON", `Cannot read drand beacon: ${why}`);
}
