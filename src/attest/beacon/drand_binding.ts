/**
 * What an attestation records about a drand round (enough to re-verify it offline), and the
 * re-verification `check` runs: the chain must be pinned in the trust root and the round's BLS
 * signature must verify again from the recorded fields.
 *
 * @module
 */
import { InputError } from "../../errors.ts";
import { type DrandChainInfo, parseDrandChainInfo } from "./drand_chain_info.ts";
import type { DrandRound } from "./drand_round.ts";
import { type DrandVerification, verifyDrandRound } from "./verify_drand_round.ts";

/** The `audit.beacon.drand` object of a verdict predicate. */
export interface DrandBinding {
  /** Chain hash (hex), recomputed from the fields below. */
  readonly chainHash: string;
  /** Scheme id. */
  readonly scheme: string;
  /** Group public key (hex). */
  readonly publicKey: string;
  /** Seconds between rounds. */
  readonly period: number;
  /** Genesis time, POSIX seconds. */
  readonly genesisTime: number;
  /** Genesis seed (hex). */
  readonly groupHash: string;
  /** Beacon id. */
  readonly beaconId: string;
  /** Round number. */
  readonly round: number;
  /** Round signature (hex). */
  readonly signature: string;
  /** Previous signature (hex), chained schemes only. */
  readonly previousSignature?: string;
  /** Publication time of the round, RFC 3339 UTC. */
  readonly roundTime: string;
}

/**
 * Builds the binding of a verified round: the round is verified here, and one that does not
 * verify is refused (a binding is what a verdict records as `source: "drand"`).
 *
 * @param info chain info
 * @param round the round
 * @returns the binding
 * @throws {InputError} `BEACON_INVALID` when the round does not verify against the chain
 * @example
 * ```ts ignore
 * const binding = drandBinding(info, round);
 * ```
 */
export function drandBinding(info: DrandChainInfo, round: DrandRound): DrandBinding {
  const v = verifyDrandRound(info, round);
  if (!v.verified) {
    throw new InputError(
      "BEACON_INVALID",
      `Cannot bind drand round ${round.round}: it does not verify (${v.reason})`,
    );
  }
  return {
    chainHash: v.chainHash,
    scheme: info.schemeId,
    publicKey: info.publicKey,
    period: info.period,
    genesisTime: info.genesisTime,
    groupHash: info.groupHash,
    beaconId: info.beaconId,
    round: round.round,
    signature: round.signature,
    ...(round.previousSignature === undefined
      ? {}
      : { previousSignature: round.previousSignature }),
    roundTime: _rfc3339(v.roundTime),
  };
}

/**
 * Re-verifies a recorded binding: rebuilds the chain info and round from it, checks the chain
 * hash, signature and round time, and returns the verification with the randomness.
 *
 * @param b the recorded binding (already shape-checked by the caller)
 * @returns the verification of the rebuilt round and whether the recorded round time agrees
 * @example
 * ```ts ignore
 * const { verification, timeAgrees } = reverifyDrandBinding(binding);
 * ```
 */
export function reverifyDrandBinding(
  b: DrandBinding,
): { verification: DrandVerification; timeAgrees: boolean } {
  // Through the chain-info parser: the binding's fields get the ranges and forms a relay's
  // document gets (a period beyond 32 bits would wrap in the chain hash and move round times).
  const info: DrandChainInfo = parseDrandChainInfo(JSON.stringify({
    public_key: b.publicKey,
    period: b.period,
    genesis_time: b.genesisTime,
    hash: b.chainHash,
    groupHash: b.groupHash,
    schemeID: b.scheme,
    metadata: { beaconID: b.beaconId },
  }));
  for (const [field, value] of [["publicKey", b.publicKey], ["groupHash", b.groupHash]] as const) {
    if (value !== value.toLowerCase()) {
      throw new InputError("BAD_BEACON", `Cannot read drand binding: '${field}' is not lowercase`);
    }
  }
  const round: DrandRound = {
    round: b.round,
    signature: b.signature,
    ...(b.previousSignature === undefined ? {} : { previousSignature: b.previousSignature }),
  };
  const verification = verifyDrandRound(info, round);
  return { verification, timeAgrees: _rfc3339(verification.roundTime) === b.roundTime };
}

function _rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}
