/**
 * The verifier's check of what a forward pass asks of the emulator, for callers outside the
 * record pipeline (`model forward`): a configuration an audit would call NOT_VERIFIED is said so
 * before the pass runs, with the audit's own reason, instead of ending deep in a kernel.
 *
 * @module
 */
import type { GpuProfile } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import type { DecoderConfig } from "../model/mod.ts";
import { _checkModelSupport } from "./_model_support.ts";
import { _Stop } from "./_stop.ts";

/**
 * Why an audit would not verify a forward pass of this checkpoint on this profile and stack, or
 * null when the emulator models it: the same check an audit runs on a model record (the FA2
 * model's head dimensions; a RoPE given only in Transformers 5's `rope_parameters`, which a
 * Transformers 4.5x stack does not read).
 *
 * @param config the checkpoint's config
 * @param o the GPU profile and the software stack the pass runs on
 * @returns the NOT_VERIFIED reason (one line), or null
 * @example
 * ```ts
 * import { forwardSupportReason } from "./forward_support_reason.ts";
 * import { parseGpuProfile } from "../hardware/mod.ts";
 * import { parseStackProfile } from "../kernels/mod.ts";
 * import { parseDecoderConfig } from "../model/mod.ts";
 * const json = (p: string) => JSON.parse(Deno.readTextFileSync(new URL(`../../${p}`, import.meta.url)));
 * const config = parseDecoderConfig({ model_type: "qwen3", vocab_size: 8, hidden_size: 80,
 *   intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1,
 *   head_dim: 40 });
 * const o = {
 *   profile: parseGpuProfile(json("profiles/gpu/a100.json")),
 *   stack: parseStackProfile(json("profiles/stack/cutlass-3.5-hf-flash-attn.json")),
 * };
 * if (!/head dimension 40/.test(forwardSupportReason(config, o) ?? "")) throw new Error();
 * ```
 */
export function forwardSupportReason(
  config: DecoderConfig,
  o: { readonly profile: GpuProfile; readonly stack: StackProfile },
): string | null {
  try {
    // Without a record's tokens: `model forward` checks its batch's padding itself.
    _checkModelSupport(config, o);
    return null;
  } catch (e) {
    if (e instanceof _Stop && e.status === "NOT_VERIFIED") return e.why;
    throw e;
  }
}
