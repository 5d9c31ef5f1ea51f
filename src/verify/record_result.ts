/**
 * Per-record verification results and the audit verdict rule.
 *
 * @module
 */
import type { ComponentEvidence } from "../hardware/mod.ts";
import type { SfuUse } from "../model/mod.ts";

/** Outcome of one sampled record. */
export type RecordStatus = "PASS" | "FAIL" | "NOT_VERIFIED";

/**
 * A prover obligation whose breach is the record's FAIL: `committed-input`, every tensor a
 * sampled record commits to by digest (weights, input, inv_freq) must be produced with exactly
 * those bytes. A prover could otherwise withhold or corrupt the inputs of a falsified record and
 * turn its FAIL into NOT_VERIFIED.
 */
export type ProverObligation = "committed-input";

/**
 * What a FAIL found, stated so that its fields can be checked against it:
 * - `fingerprint`: the recomputed fingerprint differs from the claimed one;
 * - `layer-chain`: the fingerprint matches but the claimed per-layer chain does not;
 * - `greedy-token`: the hidden states match but a claimed greedy token is not their argmax;
 * - `committed-input`: a committed input tensor was missing or did not hash to its digest
 *   (with `obligation: "committed-input"`);
 * - `contradiction`: the record contradicts itself, its history, checkpoint, the byte length of a
 *   tensor blob that hashes to its digest (shorter or longer than its shape holds) or the log
 *   (nothing was recomputed).
 */
export type FailFinding =
  | "fingerprint"
  | "layer-chain"
  | "greedy-token"
  | "committed-input"
  | "contradiction";

/** One named pipeline step and what it found. */
export interface StepResult {
  /** Step name: inclusion, profile, stack, kernel, support, tensors, recompute, compare. */
  readonly step: string;
  /** Whether the step succeeded. */
  readonly ok: boolean;
  /** What it found (one line). */
  readonly detail: string;
}

/** The first element where recomputation and the prover's output differ. */
export interface FirstDifference {
  /** Flat element index. */
  readonly index: number;
  /** Prover's element bit pattern (hex). */
  readonly claimed: string;
  /** Recomputed element bit pattern (hex). */
  readonly recomputed: string;
}

/**
 * Where a recomputed per-layer hash chain first differs from the claimed one: one cell of the
 * decoder layer stack (`layer` 0..`layers`-1, each layer's attention block before its MLP). Any
 * workload that runs a layer stack reports its first diverging cell this way.
 */
export interface LayerDivergence {
  /** Decoder layer index (0-based). */
  readonly layer: number;
  /** Block whose output first differs. */
  readonly stage: "attention" | "mlp";
  /** Number of decoder layers in the chain (the stack's height). */
  readonly layers: number;
}

/** Result of one sampled record. */
export interface RecordResult {
  /** Index in the log. */
  readonly index: number;
  /** Record digest (hex). */
  readonly digest: string;
  /** PASS only when recomputed and compared. */
  readonly status: RecordStatus;
  /** Why, for FAIL and NOT_VERIFIED. */
  readonly reason: string;
  /** Claimed fingerprint (hex). */
  readonly claimed: string;
  /** Recomputed fingerprint, when recomputation ran. */
  readonly recomputed: string | null;
  /** First differing element, when the prover's full output was available. */
  readonly firstDifference: FirstDifference | null;
  /** Pipeline trace. */
  readonly steps: readonly StepResult[];
  /**
   * SFU functions the recomputation depended on, with the model and each function's validation
   * status (block workloads; absent when no SFU was involved).
   */
  readonly sfu?: readonly SfuUse[];
  /**
   * How each component the recomputation rested on is known (datapath, GEMM kernels, SFU
   * functions, attention, decoder layer, parallelism); present when the recomputation ran.
   */
  readonly evidence?: readonly ComponentEvidence[];
  /**
   * Model-forward records with a layer chain: the first (layer, stage) whose recomputed chain
   * digest differs from the claimed one.
   */
  readonly firstDivergence?: LayerDivergence;
  /** The prover obligation not met, when that is why the record FAILed (absent otherwise). */
  readonly obligation?: ProverObligation;
  /** What a FAIL found (present exactly on FAIL). */
  readonly finding?: FailFinding;
}

/** Audit verdict. */
export type AuditVerdict = "PASSED" | "FAILED" | "INCONCLUSIVE";

/**
 * The verdict rule: FAILED if any record failed; PASSED only if there were records and every one
 * passed; otherwise INCONCLUSIVE.
 *
 * @param results per-record results
 * @returns the verdict
 * @example
 * ```ts
 * import { auditVerdict } from "./record_result.ts";
 * if (auditVerdict([]) !== "INCONCLUSIVE") throw new Error("nothing checked is not a pass");
 * ```
 */
export function auditVerdict(results: readonly { status: RecordStatus }[]): AuditVerdict {
  if (results.some((r) => r.status === "FAIL")) return "FAILED";
  if (results.length > 0 && results.every((r) => r.status === "PASS")) return "PASSED";
  return "INCONCLUSIVE";
}
