/**
 * A simulated prover: scenarios in, honest (or deliberately falsified) claim logs out; and a real
 * prover's path: the facts of a forward pass it ran (`modelForwardClaim`) or of a sequence it
 * served (`sequenceClaim`) in, one validated record for its log out (`nextLogPosition`), built by
 * the same record builders as the simulation's (`forwardRecord`, `sequenceRecord`).
 *
 * @example
 * ```ts
 * import { synthBf16 } from "./mod.ts";
 * if (synthBf16("seed", { label: "x", count: 3 }).length !== 3) throw new Error();
 * ```
 * @module
 */
export { type BlockClaimsContext, makeBlockClaims } from "./make_block_claims.ts";
export { type ClaimsContext } from "./claims_context.ts";
export { type ModelSection, type SectionStack } from "./scenario_checkpoint.ts";
export { makeClaims, type ProverOutput } from "./make_claims.ts";
export {
  type BlockScenario,
  type Falsification,
  parseScenario,
  type Scenario,
} from "./scenario.ts";
export { synthBf16 } from "./synth_tensor.ts";
export {
  FORWARD_FALSIFICATIONS,
  type ForwardFalsification,
  type ForwardScenario,
  parseForwardScenario,
} from "./forward_scenario.ts";
export { makeModelClaims, type ModelClaimsContext } from "./make_model_claims.ts";
export { forwardRecord, type ForwardRecordFacts } from "./forward_record.ts";
export { type LogPosition, nextLogPosition } from "./log_position.ts";
export { modelForwardClaim, type ModelForwardFacts } from "./model_forward_claim.ts";
export { type ModelClaimFacts } from "./model_claim_basis.ts";
export { type ModelRecordFacts } from "./model_record_facts.ts";
export { sequenceClaim, type SequenceFacts } from "./sequence_claim.ts";
export { sequenceRecord, type SequenceRecordFacts } from "./sequence_record.ts";
export {
  parseServingScenario,
  SERVING_FALSIFICATIONS,
  type ServingFalsification,
  type ServingScenario,
} from "./serving_scenario.ts";
export { makeSequenceClaims, type SequenceClaimsContext } from "./make_sequence_claims.ts";
export {
  type RequestProgress,
  type ScheduledEntry,
  scheduleStep,
  type ServingRequest,
} from "./serving_scheduler.ts";
export {
  checkPromptRoom,
  servedRequests,
  type ServingLimits,
  servingLimits,
} from "./vllm_serving_limits.ts";
export {
  claimedParallelism,
  parseScenarioParallel,
  runParallel,
  type ScenarioParallel,
} from "./scenario_parallel.ts";
