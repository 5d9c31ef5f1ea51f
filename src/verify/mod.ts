/**
 * Sampling, recompute-and-compare pipeline and verdicts. Assets come through `src/resolve`
 * (digest-checked, parsed, frozen), and recomputation runs on the K-walk and attention runner a
 * caller passes in (e.g. `createGemmWalker` of `src/engine`).
 *
 * Sampling: once the prover's claim-log root is committed, a public beacon round fixes the seed
 * (`deriveSeed`), the seed fixes which records are audited (`sampleIndices`), and `plan` says what
 * a sample of that size can detect.
 *
 * @example
 * ```ts
 * import { deriveSeed, detectionBinomial, requiredSampleBinomial, sampleIndices } from "./mod.ts";
 * const k = requiredSampleBinomial(0.01, 0.95); // 299 records catch 1 % misreporting at 95 %
 * const seed = deriveSeed({
 *   auditId: "audit-7", logRoot: "11".repeat(32), randomness: "22".repeat(32), round: 1234,
 * });
 * const { sorted } = sampleIndices(seed, { population: 1_000_000, k });
 * if (sorted.length !== 299 || detectionBinomial(0.01, k) < 0.95) throw new Error();
 * ```
 * @module
 */
export {
  AUDIT_ITEM_DOMAIN,
  AUDIT_PLAN_FORMAT,
  type AuditPlan,
  auditPlanDigest,
  encodeAuditPlan,
  itemDigest,
  MAX_PLAN_SIGNATURES,
  planAudit,
  type PlanEvidence,
  type PlanInputs,
  type PlanItem,
  type PlanSignature,
} from "./audit_plan.ts";
export { type AuditReport } from "./audit_report.ts";
export {
  checkVectorSet,
  type VectorMismatch,
  type VectorOutputResult,
} from "./check_vector_set.ts";
export {
  DEFAULT_RATES,
  type DetectionLevel,
  detectionMismatch,
  type DetectionStatement,
  detectionStatement,
} from "./detection.ts";
export { detectionCurve, type DetectionPoint } from "./detection_curve.ts";
export { type DetectionError, lowerDetection, sixDecimalsDown } from "./detection_text.ts";
export { evidenceShortfall } from "./evidence_shortfall.ts";
export { falseCount, MAX_RATE_TEXT, rateIsOne } from "./false_count.ts";
export { forwardSupportReason } from "./forward_support_reason.ts";
export { PEER_COMPARISON, type PeerComparison, type PeerRun } from "./peer_comparison.ts";
export { catalogGpuMismatch } from "./catalog_gpu_mismatch.ts";
export { recordContradiction } from "./record_contradiction.ts";
export { stackHardwareContradiction } from "./stack_hardware_contradiction.ts";
export { type AuditEstimate, estimateAudit, type KindEstimate } from "./estimate_audit.ts";
export {
  encodeItemResult,
  ITEM_RESULT_FORMAT,
  type ItemResult,
  parseItemResult,
  resultBytes,
  type WorkerInfo,
} from "./item_result.ts";
export {
  type AttributedResult,
  keptDuplicate,
  mergeAdmission,
  type MergedAudit,
  mergeItemResults,
  MISSING_RESULT_REASON,
} from "./merge_item_results.ts";
export {
  ELEMENT_BITS,
  MAX_COMPONENT_TEXT,
  MAX_RESULT_TEXT,
  parseRecordResult,
  RESULT_NAME,
} from "./parse_record_result.ts";
export { type CheckedResult, FAIL_FINDINGS, resultInconsistency } from "./result_consistency.ts";
export { type Build, describeBuild, ownBuild, resultBuild, sameBuild } from "./result_build.ts";
export { parseAuditPlan } from "./parse_audit_plan.ts";
export {
  binomialError,
  detectionBinomial,
  detectionHypergeometric,
  EXACT_TERMS,
  hypergeometricError,
  type HypergeometricSample,
  type HypergeometricTarget,
  lowerBinomial,
  lowerHypergeometric,
  requiredSampleBinomial,
  requiredSampleHypergeometric,
} from "./plan.ts";
export {
  budgetText,
  type DecoderPassShape,
  decoderProducts,
  MAX_PRODUCT_BUDGET,
  MAX_RECORD_PRODUCTS,
  productBudget,
  recordProducts,
} from "./record_products.ts";
export { forwardProducts, replayProducts } from "./decoder_record_products.ts";
export {
  type PlanProducts,
  predictPlanProducts,
  predictRecordProducts,
} from "./predict_record_products.ts";
export { forwardActivation } from "./forward_activation.ts";
export { MAX_RECOMPUTE_ELEMENTS } from "./_stop.ts";
export { readBudget } from "./_shapes.ts";
export {
  type AuditVerdict,
  auditVerdict,
  type FailFinding,
  type FirstDifference,
  type LayerDivergence,
  type ProverObligation,
  type RecordResult,
  type RecordStatus,
  type StepResult,
} from "./record_result.ts";
export { resultDifference } from "./result_difference.ts";
export { type KindCounts, resultsByKind } from "./results_by_kind.ts";
export { committedInputResults, reverifyCount, reverifyResults } from "./reverify_results.ts";
export { type AuditInputs, IN_PROCESS_WORKER, runAudit, runAuditPlan } from "./run_audit.ts";
export {
  counterStream,
  type Sample,
  SAMPLE_ALGORITHM,
  sampleIndices,
  type SampleSize,
  uniformBelow,
} from "./sample_indices.ts";
export { AUDIT_SEED_DOMAIN, deriveSeed, type SeedInputs } from "./seed.ts";
export { AUDIT_ID_PATTERN, AUDIT_ID_RULE } from "./audit_id.ts";
export { type Shard, shardItems } from "./shard_items.ts";
export { isVerdictEngine, mergedEngineName, WORKER_ENGINES } from "./verifier_engine.ts";
export { type VerifyContext, verifyRecord } from "./verify_record.ts";
export { checkPlanLog, type WorkContext, workerInfo, workItem } from "./work_item.ts";
export {
  checkWorkOrder,
  encodeWorkOrder,
  parseWorkOrder,
  WORK_ORDER_FORMAT,
  type WorkOrder,
  workOrders,
} from "./work_order.ts";
export {
  type ComponentEvidence,
  EVIDENCE_LEVELS,
  type EvidenceLevel,
  meetsEvidence,
  weakestEvidence,
} from "../hardware/mod.ts";
export { evidenceCell } from "./evidence_cell.ts";
