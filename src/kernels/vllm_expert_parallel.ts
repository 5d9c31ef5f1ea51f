/**
 * The expert-parallel sizes a vLLM engine can run with. vLLM has no expert-parallel size of its
 * own: `FusedMoEParallelConfig.make` (`vllm/model_executor/layers/fused_moe/config.py`; spec
 * `parallel_and_vllm.md` §A4) turns expert parallelism on only with `--enable-expert-parallel`
 * and more than one rank (`use_ep = dp x tp > 1 and enable_expert_parallel`), and then makes the
 * expert-parallel size the tensor-parallel size flattened across the data-parallel ranks
 * (`ep_size = tp_size`, after `flatten_tp_across_dp`: tp x dp); otherwise it is 1. So a vLLM run
 * has ep = 1 or ep = tp x dp, whatever the model (a dense model has no fused MoE, and its engine
 * takes the same arguments); a record stating another ep describes a run that never happened.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "./stack_profile.ts";

/**
 * Why a stack's engine can never run with a record's expert-parallel size, or null.
 *
 * @param stack the stack profile (its components say whether it is vLLM's)
 * @param o the tensor-parallel, data-parallel and expert-parallel sizes (ranks)
 * @returns the reason (one line) for a vLLM stack and an ep other than 1 or tp x dp, else null
 *   (off vLLM an engine's own rule applies, or its expert parallelism is not modelled)
 * @example
 * ```ts
 * import { vllmExpertParallelContradiction } from "./vllm_expert_parallel.ts";
 * const vllm = { components: { vllm: "0.11.0" } };
 * if (vllmExpertParallelContradiction(vllm, { tp: 2, dp: 1, ep: 2 }) !== null) throw new Error();
 * if (vllmExpertParallelContradiction(vllm, { tp: 1, dp: 1, ep: 2 }) === null) throw new Error();
 * if (vllmExpertParallelContradiction({ components: {} }, { tp: 1, dp: 1, ep: 2 }) !== null) {
 *   throw new Error();
 * }
 * ```
 */
export function vllmExpertParallelContradiction(
  stack: Pick<StackProfile, "components">,
  o: { readonly tp: number; readonly dp: number; readonly ep: number },
): string | null {
  const ranks = o.tp * o.dp;
  if (!isVllmStack(stack) || o.ep === 1 || o.ep === ranks) return null;
  const sizes = ranks === 1
    ? "on one rank it is 1, with --enable-expert-parallel or without"
    : `--enable-expert-parallel makes it tp x dp (${ranks}), and without it, it is 1`;
  return `ep=${o.ep} with tp=${o.tp} x dp=${o.dp}: vLLM has no expert-parallel size of its ` +
    `own; ${sizes}`;
}
