/**
 * Tensor parallelism under a serving engine: which engines' tensor-parallel runs the serving
 * replay can vouch for.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "../kernels/mod.ts";
import { _Stop } from "./_stop.ts";

/**
 * Refuses a pass split over ranks on HF Transformers' continuous batching (an HF stack that
 * flattens its batch: `generate_batch`, whether the record is a served sequence or one of its
 * forward passes): in Transformers 4.57 its paged cache keeps every KV head of the model while
 * each rank's attention computes only its share of them (generation/continuous_batching/cache.py
 * allocates `num_key_value_heads` heads and leaves the per-rank division commented out; `update`
 * writes the rank's heads into those slots), so a tensor-parallel run does not hold the
 * computation the replay would model. vLLM's engine keeps each rank's own heads and is modelled,
 * and so is HF's padded prefill under `tp_plan`.
 *
 * @param stack the record's stack
 * @param tp the record's tensor-parallel size
 * @throws {_Stop} NOT_VERIFIED for tp above 1 on HF's continuous batching
 */
export function _checkServingTensorParallel(stack: StackProfile, tp: number): void {
  const flattens = stack.operators?.batching === "flatten";
  if (tp === 1 || !flattens || isVllmStack(stack)) return;
  throw new _Stop(
    "NOT_VERIFIED",
    `tp=${tp} on HF continuous batching (stack '${stack.id}'): Transformers 4.57's paged cache ` +
      "keeps every KV head while each rank computes its share of them (the per-rank division in " +
      "continuous_batching/cache.py is commented out), so a tensor-parallel run of it is not modelled",
  );
}
