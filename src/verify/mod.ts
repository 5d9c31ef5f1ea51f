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
export * from "./seed.ts";
export * from "./sample_indices.ts";
export * from "./plan.ts";
export * from "./detection.ts";
export { detectionCurve, type DetectionPoint } from "./detection_curve.ts";
export * from "./record_result.ts";
export { type KindCounts, resultsByKind } from "./results_by_kind.ts";
export * from "./check_vector_set.ts";
export * from "./verify_record.ts";
export * from "./audit_report.ts";
export * from "./run_audit.ts";
export * from "./audit_plan.ts";
export * from "./parse_audit_plan.ts";
export * from "./item_result.ts";
export * from "./work_item.ts";
export * from "./merge_item_results.ts";
export * from "./shard_items.ts";
export * from "./work_order.ts";
export * from "./record_products.ts";
export * from "./estimate_audit.ts";
