/** A claim log of records of a kind this version does not recompute (fast NOT_VERIFIED items). */
import {
  type ClaimLog,
  type ClaimRecord,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  recordDigest,
} from "../../src/claims/mod.ts";

const H = "ab".repeat(32);

/**
 * Builds a chained log of `n` records of a workload kind this version does not know (`speculative_decode`).
 *
 * @param n record count
 */
export function futureLog(n: number): ClaimLog {
  const records: ClaimRecord[] = [];
  let prev = GENESIS_PREV;
  for (let seq = 0; seq < n; seq++) {
    const r = makeClaimRecord({
      log: { logId: "future", seq, prev },
      hardware: { profile: "h100-sxm", profileSha256: H, count: 8 },
      software: { stack: "pytorch-cublas-linear", components: {} },
      parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
      batch: { size: 4 },
      workload: { kind: "speculative_decode", model: "qwen3-4b", tokens: [seq] },
      fingerprint: { tensor: "hidden_state", dtype: "bf16", shape: [4, 2560], sha256: H },
    });
    records.push(r);
    prev = recordDigest(r);
  }
  return parseClaimLog(formatClaimLog(records));
}
