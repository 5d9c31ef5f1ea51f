/**
 * drand randomness beacons verified offline: chain info, rounds, BLS12-381 signatures for the
 * `pedersen-bls-chained` (default) and `bls-unchained-g1-rfc9380` (quicknet) schemes, and the
 * randomness SHA-256(signature).
 *
 * @example
 * ```ts
 * import { drandChainHash, parseDrandChainInfo, parseDrandRound, verifyDrandRound } from "./mod.ts";
 * const info = parseDrandChainInfo(await Deno.readTextFile("demo/drand/quicknet-info.json"));
 * const round = parseDrandRound(await Deno.readTextFile("demo/drand/quicknet-round-123.json"));
 * const result = verifyDrandRound(info, round);
 * if (!result.verified || result.chainHash !== drandChainHash(info)) throw new Error();
 * ```
 * @module
 */
export {
  drandChainHash,
  type DrandChainInfo,
  drandRoundTime,
  MAX_DRAND_INFO_BYTES,
  parseDrandChainInfo,
} from "./drand_chain_info.ts";
export { type DrandRound, parseDrandRound } from "./drand_round.ts";
export { DRAND_SCHEMES, type DrandScheme } from "./drand_scheme.ts";
export {
  drandMessage,
  type DrandRejection,
  type DrandVerification,
  verifyDrandRound,
} from "./verify_drand_round.ts";
export { type DrandBinding, drandBinding, reverifyDrandBinding } from "./drand_binding.ts";
export { type TrustedDrandChain, trustedDrandChains } from "./trusted_drand_chains.ts";
