/**
 * What the checks of a GEMM or block record that need only the record and the blob store read
 * (`_gemmTensors`, `_blockTensors`): run by `verifyRecord` before the record's profile and stack.
 *
 * @module
 */
import type { ClaimPredicate } from "../claims/mod.ts";

/**
 * A GEMM or block record of workload `W`, the step recorder, the audit's budget a record and the
 * branch's refusals.
 */
export interface _TensorsInput<W> {
  readonly predicate: ClaimPredicate;
  readonly workload: W;
  /** Records a passed pipeline step. */
  readonly step: (name: string, detail: string) => void;
  /** The audit's budget a record (`VerifyContext.maxRecordProducts`). */
  readonly maxRecordProducts?: number | undefined;
  /**
   * The branch's reasons not modelled (`_refusable`): a sharded run (`_shardedRefusal`, in it
   * before the tensors are read) and a recomputation over the budget wait here for the record's
   * contradictions with its stack, its world and its kernel, and its committed tensors, and are
   * said before the recomputation (`_sayRefusal`) or in place of a later NOT_VERIFIED
   * (`_refusedFirst`).
   */
  readonly refusals: string[];
}
