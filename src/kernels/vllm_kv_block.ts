/**
 * The KV cache block of a vLLM stack (`cache_config.block_size`): the unit of vLLM's paged KV
 * cache, and so of every position count vLLM reuses from that cache.
 *
 * vLLM 0.11 (V1 engine) reuses cached keys and values only in whole blocks:
 * - a prefix-cache hit (`KVCacheManager.get_computed_blocks`, `v1/core/kv_cache_manager.py`)
 *   is `find_longest_cache_hit` over at most `max_cache_hit_length = request.num_tokens - 1`
 *   positions, which `FullAttentionManager.find_longest_cache_hit`
 *   (`v1/core/single_type_kv_cache_manager.py`) takes as `max_length // block_size` blocks and
 *   the coordinator returns as `len(hit_blocks) * block_size` positions;
 * - a preempted request restarts from position 0 (`Scheduler.schedule()` sets its
 *   `num_computed_tokens = 0`) and takes such a hit again when it is scheduled;
 * - the cascade prefix (`GPUModelRunner._compute_cascade_attn_prefix_len`,
 *   `v1/worker/gpu_model_runner.py`) is `num_common_prefix_blocks * block_size`, capped by the
 *   fewest cached positions of the pass's requests and rounded down to a block multiple.
 *
 * The block size is the stack's pinned `--block-size` where its flags give one, else vLLM's
 * default on CUDA, 16 (`CudaPlatformBase.check_and_update_config`, `platforms/cuda.py`). That
 * default is changed there only for MLA models (FlashMLA, CUTLASS MLA, FlashInfer MLA), a family
 * no stack serves here. Decode context parallelism multiplies the block (`dcp_world_size`), and
 * a KV connector adds externally computed positions to a hit (`Scheduler.schedule()`:
 * `num_external_computed_tokens`) in units of its own: a stack naming either, or the block size
 * in a form not read, gets no block size.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "./stack_profile.ts";
import { _vllmFlag, _vllmUnmodelled } from "./_vllm_flag.ts";
import type { VllmTokens } from "./vllm_tokens.ts";

/** A vLLM stack's KV cache block (`tokens`: positions in one block), or why it is not derived. */
export type VllmKvBlock = VllmTokens<number>;

/** vLLM's block size on CUDA when none is set (`platforms/cuda.py`, vLLM 0.11). */
export const VLLM_DEFAULT_BLOCK_SIZE = 16;

/** Settings that make vLLM reuse cached positions in units other than the block. */
const _OTHER_UNITS =
  /decode[-_]context[-_]parallel[-_]size|kv[-_]transfer[-_]config|kv[-_]connector/i;

/**
 * `-dcp`, vLLM's short alias of `--decode-context-parallel-size` (`arg_utils.py`), and `-dc`,
 * which argparse reads as its unique prefix.
 */
const _DCP_ALIASES = [
  ["-dcp", "decode-context-parallel-size"],
  ["-dc", "decode-context-parallel-size"],
] as const;

/**
 * The KV cache block of a vLLM stack.
 *
 * @param stack the stack profile (its components; `flags` is read)
 * @returns the block size and its rule, why it is not derived, or null for a stack that is not
 *   vLLM's
 * @example
 * ```ts
 * import { vllmKvBlock } from "./vllm_kv_block.ts";
 * const eager = vllmKvBlock({ components: { vllm: "0.11.0", flags: "--enforce-eager" } });
 * if (!eager?.ok || eager.tokens !== 16) throw new Error();
 * const pinned = vllmKvBlock({ components: { vllm: "0.11.0", flags: "--block-size 32" } });
 * if (!pinned?.ok || pinned.tokens !== 32) throw new Error();
 * if (vllmKvBlock({ components: {} }) !== null) throw new Error();
 * ```
 */
export function vllmKvBlock(stack: Pick<StackProfile, "components">): VllmKvBlock | null {
  if (!isVllmStack(stack)) return null;
  const unmodelled = _vllmUnmodelled(stack, {
    settings: _OTHER_UNITS,
    options: ["decode-context-parallel-size", "kv-transfer-config"],
    aliases: _DCP_ALIASES,
    effect: "changes the unit in which vLLM reuses cached positions",
  });
  if (unmodelled !== null) return { ok: false, reason: unmodelled };
  const pinned = _vllmFlag(stack, "block-size");
  if (pinned.kind === "unread") return { ok: false, reason: pinned.reason };
  if (pinned.kind === "pinned") return { ok: true, tokens: pinned.value, rule: pinned.rule };
  return {
    ok: true,
    tokens: VLLM_DEFAULT_BLOCK_SIZE,
    rule: `vLLM's default block size on CUDA, ${VLLM_DEFAULT_BLOCK_SIZE} (platforms/cuda.py)`,
  };
}
