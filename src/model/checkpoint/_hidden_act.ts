/**
 * `hidden_act`, read as the stacks build the MLP's activation: silu (the families' default when
 * absent) is modelled; null is malformed (`_refuse_unmodelled.ts`); any other value is not
 * modelled, named, and kept so that a stack that refuses it can be told apart from one that runs
 * it (`DecoderConfig.unmodelledActivation`, `activationTransformers4Missing`).
 *
 * @module
 */
import type { _Json } from "./_config_values.ts";
import { _show } from "./_config_values.ts";

/**
 * The names of Transformers 4.5x's `ACT2CLS` (`activations.py`, 4.57.6): each family's MLP takes
 * `ACT2FN[config.hidden_act]`, a `ClassInstantier` (an `OrderedDict`), so another name raises
 * `KeyError` and a value that is no string `KeyError` or `TypeError` (unhashable).
 */
const _TRANSFORMERS4_ACTIVATIONS: ReadonlySet<string> = new Set([
  "gelu",
  "gelu_10",
  "gelu_fast",
  "gelu_new",
  "gelu_python",
  "gelu_pytorch_tanh",
  "gelu_python_tanh",
  "gelu_accurate",
  "laplace",
  "leaky_relu",
  "linear",
  "mish",
  "quick_gelu",
  "relu",
  "relu2",
  "relu6",
  "sigmoid",
  "silu",
  "swish",
  "tanh",
  "prelu",
  "xielu",
]);

/** A `hidden_act` other than silu, as read. */
export interface _ActivationReading {
  /** The value, escaped and clipped (`_show`). */
  readonly shown: string;
  /** True when it is no name in Transformers 4.5x's `ACT2FN`. */
  readonly transformers4Missing: boolean;
}

/**
 * Reads a `hidden_act` that is not modelled (given, not null, not `"silu"`).
 *
 * @param c the config (a null `hidden_act` already refused)
 * @returns the reading, or undefined for silu or absent
 */
export function _hiddenAct(c: _Json): _ActivationReading | undefined {
  const v = c.hidden_act;
  if (v === undefined || v === "silu") return undefined;
  return {
    shown: _show(v),
    transformers4Missing: typeof v !== "string" || !_TRANSFORMERS4_ACTIVATIONS.has(v),
  };
}
