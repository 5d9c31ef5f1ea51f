/**
 * Whether a record's stack could have loaded its model at all: the stack's engine (vLLM or HF
 * Transformers) refuses some configs that parse. The prover's tools and the verifier both ask it.
 *
 * @module
 */
import { isVllmStack, type StackProfile } from "../../kernels/mod.ts";
import type { DecoderConfig } from "./decoder_config.ts";
import { hfRefusal } from "./hf_refusal.ts";
import { vllmRefusal } from "./vllm_refusal.ts";

/**
 * Why the stack's engine refuses to load `config`'s model (`vllmRefusal` on a vLLM stack, at
 * the record's pipeline stages; `hfRefusal` otherwise, of the stack's Transformers release),
 * naming the stack and its engine, or null.
 *
 * @param stack the record's stack (its id and components)
 * @param o the checkpoint's parsed config and the record's pipeline stages (`pp`)
 * @returns one line, or null
 * @example
 * ```ts
 * import { stackLoadRefusal } from "./stack_load_refusal.ts";
 * const hf = { id: "hf", components: { transformers: "4.57.1" } };
 * const config = { vocab: 8, padTokenId: 8, architectures: ["Qwen3ForCausalLM"] };
 * const why = stackLoadRefusal(hf, { config: config as never, pp: 1 });
 * if (!why?.startsWith("stack 'hf' runs HF Transformers: ")) {
 *   throw new Error();
 * }
 * ```
 */
export function stackLoadRefusal(
  stack: Pick<StackProfile, "id" | "components">,
  o: { readonly config: DecoderConfig; readonly pp: number },
): string | null {
  const vllm = isVllmStack(stack);
  const why = vllm
    ? vllmRefusal(o.config, { pp: o.pp })
    : hfRefusal(o.config, { transformers: stack.components.transformers });
  return why === null
    ? null
    : `stack '${stack.id}' runs ${vllm ? "vLLM" : "HF Transformers"}: ${why}`;
}
