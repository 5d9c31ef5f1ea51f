/**
 * The audit seed: fixed only after the prover committed to its claim log, from a public beacon.
 *
 * Byte layout (version 1), hashed once with SHA-256 (FIPS 180-4):
 *
 * ```text
 * seed = SHA-256(
 *   u32be(22) || "bitaudit/audit-seed/v1"      domain string, ASCII, 22 bytes
 *   u32be(len(A)) || A                          A = auditId as UTF-8 (1..1024 bytes)
 *   u32be(32) || R                              R = claim-log Merkle root, 32 bytes
 *   u32be(len(B)) || B                          B = beacon randomness bytes (1..1024 bytes)
 *   u64be(round)                                beacon round, 8 bytes
 * )
 * ```
 *
 * `u32be(n)` is n as 4 bytes big-endian, `u64be(n)` 8 bytes big-endian. Every variable field is
 * length-prefixed, so no two different inputs share an encoding. Hex inputs (root, randomness)
 * are decoded to bytes first (case-insensitive); they are hashed as bytes, not as text.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";

/** Domain-separation string of seed derivation v1. */
export const AUDIT_SEED_DOMAIN = "bitaudit/audit-seed/v1";

/** Inputs of {@link deriveSeed}. */
export interface SeedInputs {
  /** Audit identifier chosen by the inspector, non-empty. */
  readonly auditId: string;
  /** Committed claim-log Merkle root, 64 hex characters. */
  readonly logRoot: string;
  /** Beacon randomness (e.g. drand `randomness`), hex, even length. */
  readonly randomness: string;
  /** Beacon round, a safe non-negative integer. */
  readonly round: number;
}

/**
 * Derives the 32-byte audit seed from the audit id, the committed log root and a beacon round.
 *
 * @param inputs audit id, log root, beacon randomness and round
 * @returns 32-byte seed (feed it to `sampleIndices`)
 * @throws {TypeError} when a field has the wrong type or a hex field is not hex
 * @throws {RangeError} when a length or the round is out of range
 * @example
 * ```ts
 * import { deriveSeed } from "./seed.ts";
 * const seed = deriveSeed({
 *   auditId: "audit-1", logRoot: "00".repeat(32), randomness: "ab".repeat(32), round: 657413,
 * });
 * if (seed.length !== 32) throw new Error();
 * ```
 */
export function deriveSeed(inputs: SeedInputs): Uint8Array {
  const { auditId, logRoot, randomness, round } = inputs;
  if (typeof auditId !== "string" || !auditId.isWellFormed()) {
    throw new TypeError("Cannot derive seed: auditId must be a well-formed string");
  }
  const id = new TextEncoder().encode(auditId);
  if (id.length < 1 || id.length > 1024) {
    throw new RangeError(`Cannot derive seed: auditId is ${id.length} bytes, expected 1..1024`);
  }
  const root = _hex(logRoot, "logRoot");
  if (root.length !== 32) {
    throw new RangeError(`Cannot derive seed: logRoot is ${root.length} bytes, expected 32`);
  }
  const rand = _hex(randomness, "randomness");
  if (rand.length < 1 || rand.length > 1024) {
    throw new RangeError(
      `Cannot derive seed: randomness is ${rand.length} bytes, expected 1..1024`,
    );
  }
  if (!Number.isSafeInteger(round) || round < 0) {
    throw new RangeError(`Cannot derive seed: round ${round} is not a non-negative integer`);
  }
  const domain = new TextEncoder().encode(AUDIT_SEED_DOMAIN);
  const parts = [domain, id, root, rand];
  const total = parts.reduce((n, p) => n + 4 + p.length, 0) + 8;
  const buf = new Uint8Array(total);
  const view = new DataView(buf.buffer);
  let o = 0;
  for (const p of parts) {
    view.setUint32(o, p.length);
    buf.set(p, o + 4);
    o += 4 + p.length;
  }
  view.setBigUint64(o, BigInt(round));
  return sha256(buf);
}

function _hex(text: string, what: string): Uint8Array {
  if (typeof text !== "string" || !/^(?:[0-9a-fA-F]{2})*$/.test(text)) {
    throw new TypeError(`Cannot derive seed: ${what} is not an even-length hex string`);
  }
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}
