/**
 * Offline verification of a drand beacon round against its chain info (BLS12-381 with
 * `@noble/curves`), and the randomness drand derives from it.
 *
 * @module
 */
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes } from "../../claims/mod.ts";
import { drandChainHash, type DrandChainInfo, drandRoundTime } from "./drand_chain_info.ts";
import type { DrandRound } from "./drand_round.ts";
import { DRAND_SCHEMES, type DrandScheme } from "./drand_scheme.ts";

/** Why a round did not verify. */
export type DrandRejection =
  | "chain-hash-mismatch"
  | "unsupported-scheme"
  | "bad-public-key"
  | "bad-signature-length"
  | "missing-previous-signature"
  | "signature-invalid"
  | "randomness-mismatch";

/** Outcome of {@link verifyDrandRound}. */
export interface DrandVerification {
  /** True only when the chain hash, the BLS signature and any stated randomness all check. */
  readonly verified: boolean;
  /** Set when `verified` is false. */
  readonly reason?: DrandRejection;
  /** Chain hash recomputed from the chain info (lowercase hex). */
  readonly chainHash: string;
  /** Scheme id from the chain info. */
  readonly schemeId: string;
  /** The round number. */
  readonly round: number;
  /** Publication time of the round, seconds since the epoch. */
  readonly roundTime: number;
  /** The round's signature (lowercase hex). */
  readonly signature: string;
  /** SHA-256 of the signature bytes (drand `RandomnessFromSignature`), lowercase hex. */
  readonly randomness: string;
}

/**
 * Verifies a drand round offline: the chain info must hash to the chain hash it states, the
 * scheme must be one of {@link DRAND_SCHEMES}, and the round's BLS signature must verify under the
 * group public key over the scheme's message; a `randomness` the round states must equal
 * SHA-256(signature). Anything else is a result with a `reason`, not an exception.
 *
 * @param info parsed chain info
 * @param round parsed round
 * @returns the verification result with the derived randomness
 * @example
 * ```ts
 * import { verifyDrandRound } from "./verify_drand_round.ts";
 * const info = {
 *   publicKey: "00".repeat(96), period: 3, genesisTime: 0, groupHash: "00", schemeId: "none",
 *   beaconId: "default", hash: "00".repeat(32),
 * };
 * const r = verifyDrandRound(info, { round: 1, signature: "00".repeat(48) });
 * if (r.verified) throw new Error();
 * ```
 */
export function verifyDrandRound(info: DrandChainInfo, round: DrandRound): DrandVerification {
  const chainHash = drandChainHash(info);
  const sig = hexToBytes(round.signature);
  const base = {
    chainHash,
    schemeId: info.schemeId,
    round: round.round,
    roundTime: drandRoundTime(info, round.round),
    signature: round.signature,
    randomness: bytesToHex(sha256(sig)),
  };
  const reason = _reject(info, round, chainHash, sig);
  if (reason !== undefined) return Object.freeze({ ...base, verified: false, reason });
  if (round.randomness !== undefined && round.randomness !== base.randomness) {
    return Object.freeze({ ...base, verified: false, reason: "randomness-mismatch" });
  }
  return Object.freeze({ ...base, verified: true });
}

function _reject(
  info: DrandChainInfo,
  round: DrandRound,
  chainHash: string,
  sig: Uint8Array,
): DrandRejection | undefined {
  if (chainHash !== info.hash) return "chain-hash-mismatch";
  const scheme = Object.hasOwn(DRAND_SCHEMES, info.schemeId)
    ? DRAND_SCHEMES[info.schemeId]
    : undefined;
  if (scheme === undefined) return "unsupported-scheme";
  const pk = hexToBytes(info.publicKey);
  if (pk.length !== scheme.publicKeyBytes) return "bad-public-key";
  if (sig.length !== scheme.signatureBytes) return "bad-signature-length";
  if (scheme.chained && round.previousSignature === undefined) return "missing-previous-signature";
  const message = drandMessage(scheme, round);
  return _blsVerify(scheme, { sig, message, pk });
}

/**
 * The 32-byte digest a drand round signs: SHA-256(previous signature || u64be(round)) for chained
 * schemes, SHA-256(u64be(round)) for unchained ones (drand `DigestBeacon`).
 *
 * @param scheme the chain's scheme
 * @param round the round (its `previousSignature` is used by chained schemes)
 * @returns 32-byte digest
 * @example
 * ```ts
 * import { drandMessage } from "./verify_drand_round.ts";
 * import { DRAND_SCHEMES } from "./drand_scheme.ts";
 * const m = drandMessage(DRAND_SCHEMES["bls-unchained-g1-rfc9380"]!, { round: 1, signature: "" });
 * if (m.length !== 32) throw new Error();
 * ```
 */
export function drandMessage(
  scheme: DrandScheme,
  round: Pick<DrandRound, "round" | "previousSignature" | "signature">,
): Uint8Array {
  const prev = scheme.chained && round.previousSignature !== undefined
    ? hexToBytes(round.previousSignature)
    : new Uint8Array(0);
  const buf = new Uint8Array(prev.length + 8);
  buf.set(prev, 0);
  new DataView(buf.buffer).setBigUint64(prev.length, BigInt(round.round));
  return sha256(buf);
}

function _blsVerify(
  scheme: DrandScheme,
  v: { sig: Uint8Array; message: Uint8Array; pk: Uint8Array },
): DrandRejection | undefined {
  // Pedersen-bls-chained: key on G1, signature on G2 (noble's longSignatures); quicknet's
  // bls-unchained-g1-rfc9380: key on G2, signature on G1 (shortSignatures).
  const g2 = scheme.signatureGroup === "G2";
  let keyIsIdentity: boolean;
  try {
    // fromBytes checks the encoding, the curve equation and the prime-order subgroup.
    const pk = g2 ? bls12_381.G1.Point.fromBytes(v.pk) : bls12_381.G2.Point.fromBytes(v.pk);
    keyIsIdentity = pk.is0();
  } catch {
    return "bad-public-key";
  }
  // The identity key would accept the identity signature for every message.
  if (keyIsIdentity) return "bad-public-key";
  try {
    const sigPoint = g2 ? bls12_381.G2.Point.fromBytes(v.sig) : bls12_381.G1.Point.fromBytes(v.sig);
    if (sigPoint.is0()) return "signature-invalid";
    const ok = g2
      ? bls12_381.longSignatures.verify(
        v.sig,
        bls12_381.longSignatures.hash(v.message, scheme.dst),
        v.pk,
      )
      : bls12_381.shortSignatures.verify(
        v.sig,
        bls12_381.shortSignatures.hash(v.message, scheme.dst),
        v.pk,
      );
    return ok ? undefined : "signature-invalid";
  } catch {
    // A signature that does not decode to a point of the right subgroup is simply invalid.
    return "signature-invalid";
  }
}
