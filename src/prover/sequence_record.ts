/**
 * The one builder of `sequence` claim records: the simulated prover (`make_sequence_claims.ts`)
 * and `claims append sequence` (`sequence_claim.ts`) both hand it their facts, so a record of a
 * real prover and one of the simulation have the same shape, field for field.
 *
 * @module
 */
import {
  type ClaimPredicate,
  type ClaimRecord,
  type HistoryPass,
  makeClaimRecord,
} from "../claims/mod.ts";
import { type ModelRecordFacts, normFingerprint } from "./model_record_facts.ts";

/** The facts of a sequence record beyond its envelope (log place, hardware, software). */
export interface SequenceRecordFacts extends ModelRecordFacts {
  /** The serving history: the digest of its blob and its passes. */
  readonly history: { readonly sha256: string; readonly passes: readonly HistoryPass[] };
  /** The prompt and the generated tokens. */
  readonly tokens: { readonly prompt: readonly number[]; readonly generated: readonly number[] };
  /** The sampler of sampled decoding (free text); absent: greedy decoding. */
  readonly sampler?: string | undefined;
  /** The fingerprinted positions, in fingerprint order. */
  readonly positions: readonly number[];
}

/**
 * Builds a `sequence` record: batch size from the widest pass of the history, the workload, and
 * the fingerprint of `model.norm.out` (BF16, `[positions, hidden]`).
 *
 * @param envelope the log place, hardware, software and parallelism fields (`claimEnvelope`)
 * @param facts the checkpoint, kernel, history, tokens, positions, chain and fingerprint
 * @returns the record (not yet validated: parse it with `parseClaimRecord` to check it)
 * @example
 * ```ts
 * import { sequenceRecord } from "./sequence_record.ts";
 * const d = "b".repeat(64);
 * const one = { tp: 1, pp: 1, ep: 1, dp: 1 };
 * const r = sequenceRecord({
 *   log: { logId: "served", seq: 3, prev: d },
 *   hardware: { profile: "h100-sxm", profileSha256: d, count: 8 },
 *   software: { stack: "hf-qwen3-continuous-batching-torch2.8", components: {} },
 *   parallelism: one,
 * }, {
 *   model: { type: "qwen3", checkpointSha256: d, configSha256: d, files: { "w.safetensors": d } },
 *   kernel: { catalog: "c", catalogSha256: d }, multiProcessorCount: 132,
 *   history: { sha256: d, passes: [
 *     { entries: [{ query: 3, cached: 0 }, { query: 7, cached: 0 }], self: 0, rows: 10, logitsRows: 2 },
 *     { entries: [{ query: 1, cached: 3 }], self: 0, rows: 1, logitsRows: 1 },
 *   ] },
 *   tokens: { prompt: [1, 2, 3], generated: [4, 5] }, positions: [3], hidden: 64, fingerprint: d,
 * });
 * if (r.predicate.batch.size !== 2 || r.predicate.workload.kind !== "sequence") throw new Error();
 * ```
 */
export function sequenceRecord(
  envelope: Pick<ClaimPredicate, "log" | "hardware" | "software" | "parallelism">,
  facts: SequenceRecordFacts,
): ClaimRecord {
  const f = facts;
  const passes = f.history.passes;
  return makeClaimRecord({
    ...envelope,
    batch: { size: Math.max(...passes.map((p) => p.entries.length)) },
    workload: {
      kind: "sequence",
      model: f.model,
      kernel: f.kernel,
      attention: { multiProcessorCount: f.multiProcessorCount },
      history: { sha256: f.history.sha256, passes: passes.length },
      tokens: { prompt: f.tokens.prompt, generated: f.tokens.generated },
      ...(f.sampler === undefined
        ? { decoding: "greedy" as const }
        : { decoding: "sampled" as const, sampler: f.sampler }),
      positions: f.positions,
      ...(f.layerChain === undefined ? {} : { layerChain: f.layerChain }),
    },
    fingerprint: normFingerprint(f.positions.length, f),
  });
}
