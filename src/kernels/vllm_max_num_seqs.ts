/**
 * The most requests vLLM's scheduler puts in one pass (`max_num_seqs`): the V1 scheduler runs at
 * most `max_num_seqs` requests, and a pass schedules only running ones, so no pass of a vLLM
 * engine holds more entries.
 *
 * The limit is the stack's pinned `--max-num-seqs` where its flags give one (argparse: the last
 * occurrence; vLLM's parser reads `_` as `-`). Without one, vLLM 0.11 takes a default from the
 * device (`EngineArgs.get_batch_defaults`): 1024 on GPUs of at least 70 GiB whose name does not
 * hold "a100", else 256 (both usage contexts; any other context gets `SchedulerConfig`'s 128).
 * This version bounds an unpinned stack by what the GPU profile decides: 256 on an A100 and on
 * every part all of whose memory sizes are below 70 GiB ({@link BELOW_70_GIB}), 1024 (the
 * largest default) on every other part, so that no honest pass is refused.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "./stack_profile.ts";
import { _vllmFlag } from "./_vllm_flag.ts";

/** vLLM's `max_num_seqs` bound for a stack on a GPU, or why it is not derived. */
export type VllmMaxNumSeqs =
  | {
    readonly ok: true;
    /** Requests a pass holds at most. */
    readonly requests: number;
    /** Where it comes from, for a reason (`--max-num-seqs 256 pinned by the stack`). */
    readonly rule: string;
  }
  | {
    readonly ok: false;
    /** Why no bound is derived. */
    readonly reason: string;
  };

/**
 * GPU profiles every memory size of which is below vLLM's 70 GiB line (the parts' data sheets): A2
 * 16 GB, A30 24 GB, A40 48 GB, L4 24 GB, L40 and L40S 48 GB, RTX 1000 Ada 8 GB, V100 16 or 32 GB.
 */
export const BELOW_70_GIB: ReadonlySet<string> = Object.freeze(
  new Set(["a2", "a30", "a40", "l4", "l40", "l40s", "rtx-1000-ada", "v100"]),
);

/**
 * The most requests one pass of a vLLM stack holds on a GPU.
 *
 * @param stack the stack profile (its `flags` component)
 * @param gpu the GPU profile's id (`a100`, `h100-sxm`, ...)
 * @returns the bound and its rule, why it is not derived, or null for a stack that is not vLLM's
 * @example
 * ```ts
 * import { vllmMaxNumSeqs } from "./vllm_max_num_seqs.ts";
 * const pinned = vllmMaxNumSeqs({ components: { vllm: "0.11.0", flags: "--max-num-seqs 8" } }, "h200");
 * if (!pinned?.ok || pinned.requests !== 8) throw new Error();
 * const a100 = vllmMaxNumSeqs({ components: { vllm: "0.11.0", flags: "--enforce-eager" } }, "a100");
 * if (!a100?.ok || a100.requests !== 256) throw new Error();
 * const l40s = vllmMaxNumSeqs({ components: { vllm: "0.11.0" } }, "l40s");
 * if (!l40s?.ok || l40s.requests !== 256) throw new Error();
 * if (vllmMaxNumSeqs({ components: {} }, "a100") !== null) throw new Error();
 * ```
 */
export function vllmMaxNumSeqs(
  stack: Pick<StackProfile, "components">,
  gpu: string,
): VllmMaxNumSeqs | null {
  if (!isVllmStack(stack)) return null;
  const pinned = _vllmFlag(stack, "max-num-seqs");
  if (pinned.kind === "unread") return { ok: false, reason: pinned.reason };
  if (pinned.kind === "pinned") return { ok: true, requests: pinned.value, rule: pinned.rule };
  if (gpu === "a100") return { ok: true, requests: 256, rule: "vLLM's default on an A100 (256)" };
  if (BELOW_70_GIB.has(gpu)) {
    return {
      ok: true,
      requests: 256,
      rule: `vLLM's default on a GPU below 70 GiB (256; the ${gpu}'s memory is)`,
    };
  }
  return {
    ok: true,
    requests: 1024,
    rule: "the largest default vLLM picks on any GPU (1024, at least 70 GiB and not an A100)",
  };
}
