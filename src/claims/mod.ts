/**
 * Claim records, claim logs, canonical encoding and commitments.
 *
 * Record digests are SHA-256 over RFC 8785 canonical JSON; a claim log commits to its records
 * with an RFC 6962 Merkle tree over those digests, and any record can later be shown to be in
 * the committed log with an inclusion proof.
 *
 * @example
 * ```ts
 * import { canonicalJson, inclusionProof, merkleRoot, sha256Hex, verifyInclusion } from "./mod.ts";
 * import { sha256 } from "@noble/hashes/sha2.js";
 * const records = [{ seq: 0, out: "9f3a" }, { out: "77c1", seq: 1 }, { seq: 2, out: "0000" }];
 * const digests = records.map((r) => sha256(canonicalJson(r)));
 * const root = merkleRoot(digests);
 * const proof = inclusionProof(digests, 1);
 * if (!verifyInclusion({ leaf: digests[1]!, index: 1, treeSize: 3, proof, root })) throw new Error();
 * if (sha256Hex(canonicalJson({ b: 1, a: 2 })) !== sha256Hex(canonicalJson({ a: 2, b: 1 }))) {
 *   throw new Error("key order must not matter");
 * }
 * ```
 * @module
 */
export { assertJsonSafe } from "./assert_json_safe.ts";
export {
  BLOCK_WEIGHT_NAMES,
  type BlockWorkload,
  MAX_DECIMAL_CHARS,
  parseBlockWorkload,
  ropeThetaRefusal,
} from "./block_workload.ts";
export { canonicalJson, type CanonicalJsonOptions } from "./canonical_json.ts";
export {
  type Checkpoint,
  formatCheckpoint,
  parseCheckpoint,
  SIGNED_ORIGIN_PATTERN,
} from "./checkpoint.ts";
export {
  type ClaimLog,
  type ClaimLogLimits,
  type ClaimLogSteps,
  formatClaimLog,
  logRoot,
  logTree,
  MAX_RECORD_VALUES,
  parseClaimLog,
  parseClaimLogInSteps,
} from "./claim_log.ts";
export {
  CLAIM_PREDICATE_TYPE,
  type ClaimedAllReduceFields,
  type ClaimPredicate,
  type ClaimRecord,
  GENESIS_PREV,
  isBlockWorkload,
  isGemmWorkload,
  isModelForwardWorkload,
  isSequenceWorkload,
  LOG_ID_PATTERN,
  makeClaimRecord,
  type OtherWorkload,
  parseClaimRecord,
  recordDigest,
  STATEMENT_TYPE,
  type Workload,
} from "./claim_record.ts";
export {
  type GemmWorkload,
  type KernelRef,
  parseGemmWorkload,
  parseKernelRef,
} from "./gemm_workload.ts";
export { bytesToHex, hexToBytes } from "./hex.ts";
export { MERKLE_HASH_BYTES, merkleLeafHash, merkleNodeHash, merkleRoot } from "./merkle.ts";
export {
  type ConsistencyCheck,
  consistencyProof,
  verifyConsistency,
} from "./merkle_consistency.ts";
export { type InclusionCheck, inclusionProof, verifyInclusion } from "./merkle_proof.ts";
export { type MerkleTree, merkleTree } from "./merkle_tree.ts";
export { sha256Hex } from "../sha256_hex.ts";
export {
  MODEL_TYPES,
  type ModelRef,
  type ModelType,
  parseLayerChain,
  parseModelRef,
} from "./model_ref.ts";
export { parseSequenceWorkload, type SequenceWorkload } from "./sequence_workload.ts";
export { uncoveredPosition } from "./fingerprint_coverage.ts";
export { fingerprintTensorMismatch } from "./fingerprint_tensor.ts";
export {
  encodeServingHistory,
  furthestRunning,
  type HistoryPass,
  longestNeighbour,
  MAX_HISTORY_BYTES,
  MAX_HISTORY_ENTRIES,
  MAX_HISTORY_PASSES,
  parseServingHistory,
  SERVING_HISTORY_SCHEMA,
} from "./serving_history.ts";
export {
  MAX_CLAIM_TOKENS,
  type ModelForwardWorkload,
  parseModelForwardWorkload,
} from "./model_forward_workload.ts";
