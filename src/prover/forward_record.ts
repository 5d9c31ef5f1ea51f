/**
 * The one builder of `model_forward` claim records: the simulated prover (`make_model_claims.ts`)
 * and `claims append` (`model_forward_claim.ts`) both hand it their facts, so a record of a real
 * prover and one of the simulation have the same shape, field for field.
 *
 * @module
 */
import { type ClaimPredicate, type ClaimRecord, makeClaimRecord } from "../claims/mod.ts";
import { type ModelRecordFacts, normFingerprint } from "./model_record_facts.ts";

/** The facts of a model-forward record beyond its envelope (log place, hardware, software). */
export interface ForwardRecordFacts extends ModelRecordFacts {
  /** Token ids of each sequence of the batch, in batch order. */
  readonly sequences: readonly (readonly number[])[];
  /** The pad token, when the batch names one. */
  readonly padTokenId?: number | undefined;
  /** The fingerprinted rows, `[sequence, token]`, in fingerprint order. */
  readonly positions: readonly (readonly [number, number])[];
}

/**
 * Builds a `model_forward` record: batch size from the sequences, the workload, and the
 * fingerprint of `model.norm.out` (BF16, `[positions, hidden]`).
 *
 * @param envelope the log place, hardware, software and parallelism fields (`claimEnvelope`)
 * @param facts the checkpoint, batch, kernel, positions, chain and fingerprint
 * @returns the record (not yet validated: parse it with `parseClaimRecord` to check it)
 * @example
 * ```ts
 * import { forwardRecord } from "./forward_record.ts";
 * const h = "a".repeat(64);
 * const r = forwardRecord({
 *   log: { logId: "x", seq: 0, prev: "0".repeat(64) },
 *   hardware: { profile: "a100", profileSha256: h, count: 1 },
 *   software: { stack: "s", components: {} },
 *   parallelism: { tp: 1, pp: 1, ep: 1, dp: 1 },
 * }, {
 *   model: { type: "qwen3", checkpointSha256: h, configSha256: h, files: { "model.safetensors": h } },
 *   sequences: [[1, 2], [3]], padTokenId: 0, kernel: { catalog: "c", catalogSha256: h },
 *   multiProcessorCount: 108, positions: [[0, 1], [1, 0]], hidden: 64, fingerprint: h,
 * });
 * if (r.predicate.batch.size !== 2 || r.predicate.fingerprint.shape[0] !== 2) throw new Error();
 * ```
 */
export function forwardRecord(
  envelope: Pick<ClaimPredicate, "log" | "hardware" | "software" | "parallelism">,
  facts: ForwardRecordFacts,
): ClaimRecord {
  const f = facts;
  return makeClaimRecord({
    ...envelope,
    batch: { size: f.sequences.length },
    workload: {
      kind: "model_forward",
      model: f.model,
      tokens: {
        sequences: f.sequences,
        ...(f.padTokenId === undefined ? {} : { padTokenId: f.padTokenId }),
      },
      kernel: f.kernel,
      attention: { multiProcessorCount: f.multiProcessorCount },
      positions: f.positions,
      ...(f.layerChain === undefined ? {} : { layerChain: f.layerChain }),
    },
    fingerprint: normFingerprint(f.positions.length, f),
  });
}
