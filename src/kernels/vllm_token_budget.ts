/**
 * The token budget of one pass of vLLM's V1 scheduler (`max_num_batched_tokens`), which decides
 * where a prompt's prefill chunks end.
 *
 * vLLM 0.11's `Scheduler.schedule()` (`v1/core/sched/scheduler.py`) starts each pass with
 * `token_budget = max_num_batched_tokens` and walks the running requests, then the waiting ones,
 * while budget is left. Each request asks for all its uncomputed tokens (`num_tokens -
 * num_computed_tokens`; after a prefix-cache hit, from the hit), cut first to
 * `long_prefill_token_threshold` when that is above 0, then to what is left of the budget
 * (`min(num_new_tokens, token_budget)`), and `token_budget -= num_new_tokens`. For a text model
 * nothing else cuts a chunk that a later pass continues: the running-request cap below
 * `max_model_len - 1` leaves no position for a next pass, and the encoder budget is multimodal.
 * So with the threshold at 0 (`SchedulerConfig`'s default, raised only with
 * `max_num_partial_prefills` above 1), a pass that ends a prompt's chunk before the prompt's end
 * has scheduled exactly `max_num_batched_tokens` tokens, and no pass schedules more.
 *
 * The budget is the stack's pinned `--max-num-batched-tokens`, else vLLM's default
 * (`EngineArgs._set_default_args` in 0.10 and 0.11): by usage context, on a GPU of at least
 * 70 GiB whose name does not hold "a100" 8192 for the API server and 16384 for the `LLM` class,
 * else 2048 and 8192; any other context (an engine built from its arguments) leaves it to
 * `SchedulerConfig.__post_init__`: 2048 with chunked prefill, capped at `max_num_seqs x
 * max_model_len` (`max_num_seqs` 128 unless pinned). Later releases (`get_batch_defaults`) cap
 * the two contexts' defaults the same way, with their own `max_num_seqs` (256 below 70 GiB and
 * on an A100, else 1024); both readings are taken. A record does not say which context served
 * it, so every budget its GPU allows is possible: on an A100 and on the parts all of whose memory
 * sizes are below 70 GiB ({@link BELOW_70_GIB}) 2048 and 8192, on the other parts 8192 and
 * 16384 and, for a variant below 70 GiB, 2048 and 8192; and the other contexts' budget
 * everywhere. The cap matters only for a tiny `max_model_len` (below 32 positions at the
 * default `max_num_seqs`).
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "./stack_profile.ts";
import { _vllmFlag, _vllmUnmodelled } from "./_vllm_flag.ts";
import { BELOW_70_GIB } from "./vllm_max_num_seqs.ts";
import type { VllmTokens } from "./vllm_tokens.ts";

/**
 * vLLM's possible token budgets of a pass for a stack on a GPU (`tokens`: every budget a pass may
 * have had, ascending; one when the stack pins it), or why they are not derived.
 */
export type VllmTokenBudget = VllmTokens<readonly number[]>;

/** Settings that change where a chunk ends, or whether prompts are chunked at all. */
const _CHUNKING =
  /long[-_]prefill[-_]token[-_]threshold|max[-_](?:num|long)[-_]partial[-_]prefills|chunked[-_]prefill/i;

/** The options `_CHUNKING` names, whose abbreviations set them as well (argparse's allow_abbrev). */
const _CHUNKING_OPTIONS = [
  "long-prefill-token-threshold",
  "max-num-partial-prefills",
  "max-long-partial-prefills",
  "enable-chunked-prefill",
  "no-enable-chunked-prefill",
];

/**
 * The token budgets one pass of a vLLM stack may have had on a GPU.
 *
 * @param stack the stack profile (its components)
 * @param o `gpu`: the GPU profile's id (`a100`, `h100-sxm`, ...); `maxModelLen`: vLLM's
 *   `max_model_len` for the record's checkpoint, or null where it is not derived (then only a
 *   pinned budget is derived)
 * @returns the budgets and their rule, why they are not derived, or null for a stack that is not
 *   vLLM's
 * @example
 * ```ts
 * import { vllmTokenBudget } from "./vllm_token_budget.ts";
 * const vllm = (flags: string) => ({ components: { vllm: "0.11.0", flags } });
 * const a100 = vllmTokenBudget(vllm("--enforce-eager"), { gpu: "a100", maxModelLen: 4096 });
 * if (!a100?.ok || a100.tokens.join() !== "2048,8192") throw new Error();
 * const h200 = vllmTokenBudget(vllm(""), { gpu: "h200", maxModelLen: 4096 });
 * if (!h200?.ok || h200.tokens.join() !== "2048,8192,16384") throw new Error();
 * const pinned = vllmTokenBudget(vllm("--max-num-batched-tokens 512"), { gpu: "a100", maxModelLen: null });
 * if (!pinned?.ok || pinned.tokens.join() !== "512") throw new Error();
 * const cut = vllmTokenBudget(vllm("--long-prefill-token-threshold 64"), { gpu: "a100", maxModelLen: 4096 });
 * if (cut?.ok !== false) throw new Error();
 * ```
 */
export function vllmTokenBudget(
  stack: Pick<StackProfile, "components">,
  o: { readonly gpu: string; readonly maxModelLen: number | null },
): VllmTokenBudget | null {
  if (!isVllmStack(stack)) return null;
  const unmodelled = _vllmUnmodelled(stack, {
    settings: _CHUNKING,
    options: _CHUNKING_OPTIONS,
    effect: "changes where vLLM ends a prompt's chunk",
  });
  if (unmodelled !== null) return { ok: false, reason: unmodelled };
  const pinned = _vllmFlag(stack, "max-num-batched-tokens");
  if (pinned.kind === "unread") return { ok: false, reason: pinned.reason };
  if (pinned.kind === "pinned") return { ok: true, tokens: [pinned.value], rule: pinned.rule };
  const seqs = _vllmFlag(stack, "max-num-seqs");
  if (seqs.kind === "unread") return { ok: false, reason: seqs.reason };
  if (o.maxModelLen === null) {
    return {
      ok: false,
      reason: "vLLM's max_model_len is not derived here, nor with it the default " +
        "max_num_batched_tokens of an engine built from its arguments " +
        "(min(max_num_seqs x max_model_len, 2048))",
    };
  }
  const mml = o.maxModelLen;
  const cap = (budget: number, requests: number) =>
    Math.min((seqs.kind === "pinned" ? seqs.value : requests) * mml, budget);
  // The API server's and the LLM class's (budget, max_num_seqs), the larger pair from 70 GiB;
  // the releases whose EngineArgs caps a default budget at max_num_seqs x max_model_len give the
  // capped value. Any other context takes SchedulerConfig's, always capped.
  const small = o.gpu === "a100" || BELOW_70_GIB.has(o.gpu);
  const contexts: [number, number][] = [[2048, 256], [8192, 256]];
  if (!small) contexts.push([8192, 1024], [16384, 1024]);
  const other = cap(2048, 128);
  const tokens = [...new Set([other, ...contexts.flatMap(([b, r]) => [b, cap(b, r)])])]
    .sort((a, b) => a - b);
  const where = o.gpu === "a100"
    ? "on an A100 2048 for the API server and 8192 for the LLM class"
    : small
    ? `below 70 GiB (the ${o.gpu}) 2048 for the API server and 8192 for the LLM class`
    : "from 70 GiB 8192 for the API server and 16384 for the LLM class (2048 and 8192 below)";
  return {
    ok: true,
    tokens,
    rule: `vLLM's defaults: ${where}, ${other} for an engine built from its arguments`,
  };
}
