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
export * from "../sha256_hex.ts";
export * from "./assert_json_safe.ts";
export * from "./canonical_json.ts";
export { MERKLE_HASH_BYTES, merkleLeafHash, merkleNodeHash, merkleRoot } from "./merkle.ts";
export * from "./merkle_proof.ts";
export * from "./merkle_consistency.ts";
export * from "./checkpoint.ts";
export * from "./hex.ts";
export * from "./gemm_workload.ts";
export * from "./block_workload.ts";
export * from "./model_forward_workload.ts";
export * from "./claim_record.ts";
export * from "./claim_log.ts";
