/**
 * What every model record (`model_forward`, `sequence`) carries beyond its workload's own facts:
 * the checkpoint, the GEMM kernel, the SM count, the optional layer chain, and the fingerprint of
 * the final norm's output rows at the record's positions (BF16 `[positions, hidden]`, named
 * `model.norm.out`). `forwardRecord` and `sequenceRecord` build their records from these.
 *
 * @module
 */
import type { ClaimPredicate, KernelRef, ModelRef } from "../claims/mod.ts";

/** The facts every model record carries. */
export interface ModelRecordFacts {
  /** The checkpoint by digests. */
  readonly model: ModelRef;
  /** Every GEMM's kernel: a dispatch catalog by digest, or an explicit recipe. */
  readonly kernel: KernelRef;
  /** The device's streaming multiprocessor count (it chooses attention kernels). */
  readonly multiProcessorCount: number;
  /** The per-layer chain, when the record carries one. */
  readonly layerChain?: readonly { readonly attention: string; readonly mlp: string }[] | undefined;
  /** The model's hidden size (the width of a fingerprinted row). */
  readonly hidden: number;
  /** SHA-256 (64 lowercase hex digits) of the final-norm rows at the record's positions. */
  readonly fingerprint: string;
}

/**
 * The `fingerprint` field of a model record.
 *
 * @param rows fingerprinted rows (the record's positions)
 * @param facts the model's hidden size and the rows' digest
 * @returns the fingerprint field
 * @example
 * ```ts
 * import { normFingerprint } from "./model_record_facts.ts";
 * const f = normFingerprint(2, { hidden: 64, fingerprint: "a".repeat(64) });
 * if (f.tensor !== "model.norm.out" || f.shape[1] !== 64) throw new Error();
 * ```
 */
export function normFingerprint(
  rows: number,
  facts: Pick<ModelRecordFacts, "hidden" | "fingerprint">,
): ClaimPredicate["fingerprint"] {
  return {
    tensor: "model.norm.out",
    dtype: "bf16",
    shape: [rows, facts.hidden],
    sha256: facts.fingerprint,
  };
}
