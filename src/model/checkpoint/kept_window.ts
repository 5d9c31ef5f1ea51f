/**
 * The sliding window that Transformers releases before the fix of HF issue #38002 keep while a
 * Qwen2 or Qwen3 config turns it off.
 *
 * In 4.51 `Qwen2Config` and `Qwen3Config` store `sliding_window` whatever `use_sliding_window`
 * says (`self.sliding_window = sliding_window  # we check use_sliding_window in the modeling
 * code`; the class default 4096 when the file names none), and `Qwen2Model._update_causal_mask`
 * (which Qwen3 copies) reads `config.sliding_window` without that check: for sdpa it keeps the
 * plain causal path (`is_causal`, SDPA's flash kernel) only while the key length is below the
 * window (`AttentionMaskConverter._ignore_causal_mask_sdpa(..., sliding_window=...)`), and from
 * there on builds a 4-D mask that also hides keys `j <= i - sliding_window`
 * (`_prepare_4d_causal_attention_mask_with_cache_position`), which sends SDPA to another kernel
 * and, past the window, drops keys. Eager attention reads the same mask. Flash-attention 2 takes
 * its window from the attention layer, which 4.51 gates on `use_sliding_window`, but the releases
 * between 4.51 and the oldest one checked with the fix are not read here, so no HF attention
 * backend is exempt. The fix (PR #38045, May 2025) makes the config classes drop the window
 * (`sliding_window if self.use_sliding_window else None`: 4.57.6 `configuration_qwen2.py:181`,
 * `configuration_qwen3.py:187`); 4.57 is the oldest release read with it, and 5.x keeps it
 * (5.17 `__post_init__`, `configuration_qwen3.py:87`). Qwen3-MoE's class has always dropped the
 * window. vLLM 0.11 (c3124680) takes the window from the Transformers config object it loads
 * (`ModelConfig.get_sliding_window` returns its `sliding_window` as it is), so it keeps no window
 * for such a config because the Transformers release it requires (>= 4.55.2) has the fix.
 *
 * @module
 */
import type { _Json } from "./_config_values.ts";
import type { _FamilyRules } from "./_decoder_families.ts";

/** The oldest Transformers minor release of the 4 line read with the fix (4.57.6 checked). */
const _FIXED_MINOR = 57;

/**
 * The window a release before the fix keeps for a config with `use_sliding_window` off, as the
 * key length from which its sdpa path builds the windowed mask: the file's `sliding_window` when
 * it is a positive number, the class default when the file names none, nothing for null, and 0
 * (every record reaches it) for another value (0, a negative number, text: a mask or an error
 * this emulator does not model).
 *
 * @param c the config (`use_sliding_window` already checked off or absent)
 * @param rules the family's rules
 * @returns the window, or undefined when none is kept
 */
export function _keptWindow(c: _Json, rules: _FamilyRules): number | undefined {
  const fallback = rules.windowKeptWhenOff;
  if (fallback === null || c.sliding_window === null) return undefined;
  const v = c.sliding_window ?? fallback;
  return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0;
}

/**
 * Why a stack built on the given Transformers release would run a record of `keys` key
 * positions with the sliding window the config turns off (see the module doc), or null: the
 * config keeps no window, the stack is pinned at or after the fix (4.57 and later of the 4 line,
 * any 5.x), or the keys stay below the window. A stack naming no release, or a range such as
 * `4.5x`, may be one before the fix.
 *
 * @param config the parsed config
 * @param o `transformers`: the stack's component (undefined: not named); `keys`: the longest key
 *   sequence of any pass of the record
 * @returns the reason, or null
 * @example
 * ```ts
 * import { keptWindowGap } from "./kept_window.ts";
 * const config = { modelType: "qwen3" as const, keptSlidingWindow: 4 };
 * if (keptWindowGap(config, { transformers: "4.5x", keys: 4 }) === null) throw new Error();
 * if (keptWindowGap(config, { transformers: "4.5x", keys: 3 }) !== null) throw new Error();
 * if (keptWindowGap(config, { transformers: "4.57.x", keys: 9 }) !== null) throw new Error();
 * if (keptWindowGap(config, { transformers: "5.x", keys: 9 }) !== null) throw new Error();
 * ```
 */
export function keptWindowGap(
  config: { readonly modelType: string; readonly keptSlidingWindow?: number },
  o: { readonly transformers: string | undefined; readonly keys: number },
): string | null {
  const w = config.keptSlidingWindow;
  if (w === undefined || o.keys < w || _fixed(o.transformers)) return null;
  return `Transformers before 4.57 (HF issue #38002) keeps the sliding window of a ` +
    `'${config.modelType}' config while use_sliding_window is false (${
      w === 0 ? "a sliding_window that is not a positive number" : `${w} keys`
    }) and masks attention by it from that key length on; the record's ${o.keys} keys reach ` +
    "it, and that attention is not modelled";
}

/** Whether a `transformers` component pins a release with the fix. */
function _fixed(transformers: string | undefined): boolean {
  const m = /^(\d+)\.(\d+|x)(?:\.|$)/.exec(transformers ?? "");
  if (m === null) return false;
  const major = Number(m[1]);
  return major > 4 || (major === 4 && m[2] !== "x" && Number(m[2]) >= _FIXED_MINOR);
}
