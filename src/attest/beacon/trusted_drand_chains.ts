/**
 * The drand chains a trust root pins: `"drand": [{"chainHash": <64 hex>, "beaconId": <name>}]`.
 * A beacon round counts only when its chain hash (recomputed from the chain info) is listed.
 *
 * @module
 */
import { InputError } from "../../errors.ts";

/** One pinned chain. */
export interface TrustedDrandChain {
  /** Chain hash, lowercase hex. */
  readonly chainHash: string;
  /** Beacon id, informative (e.g. `quicknet`). */
  readonly beaconId: string;
}

/**
 * Reads the `drand` entry of a trust root (absent: no chain is trusted).
 *
 * @param value the trust root's `drand` field as parsed JSON
 * @returns the pinned chains
 * @throws {InputError} `BAD_TRUST_ROOT` when the entry is not an array of `{chainHash, beaconId}`
 * @example
 * ```ts
 * import { trustedDrandChains } from "./trusted_drand_chains.ts";
 * const chains = trustedDrandChains([{ chainHash: "ab".repeat(32), beaconId: "quicknet" }]);
 * if (chains[0]?.beaconId !== "quicknet" || trustedDrandChains(undefined).length !== 0) {
 *   throw new Error();
 * }
 * ```
 */
export function trustedDrandChains(value: unknown): readonly TrustedDrandChain[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > 64) _bad("'drand' is not an array of chains");
  return Object.freeze((value as unknown[]).map((v, i) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      _bad(`'drand[${i}]' is not an object`);
    }
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (k !== "chainHash" && k !== "beaconId") _bad(`'drand[${i}]' has unknown field '${k}'`);
    }
    if (typeof o.chainHash !== "string" || !/^[0-9a-f]{64}$/.test(o.chainHash)) {
      _bad(`'drand[${i}].chainHash' is not 64 lowercase hex digits`);
    }
    if (typeof o.beaconId !== "string" || o.beaconId.length > 256) {
      _bad(`'drand[${i}].beaconId' is not a string`);
    }
    return Object.freeze({ chainHash: o.chainHash as string, beaconId: o.beaconId as string });
  }));
}

function _bad(why: string): never {
  throw new InputError("BAD_TRUST_ROOT", `Cannot read trust root: ${why}`);
}
