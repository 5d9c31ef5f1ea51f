/**
 * The longest sequence vLLM 0.11 serves of a checkpoint, and whether a record's sequence fits it.
 *
 * vLLM derives `max_model_len` from the config when no `--max-model-len` is given
 * (`vllm/config/model.py` `_get_and_verify_max_len`, :1791-1940 at commit c3124680): the
 * smallest of several length keys, of which the modelled configs can hold only
 * `max_position_embeddings` (the parser refuses the others, `n_positions`, `max_seq_len`,
 * `model_max_length`, ..., as unknown fields; an absent one is the config class's default),
 * times `rope_scaling.factor` except for the `llama3`, `longrope` and `su` types (so the default
 * RoPE keeps it, linear multiplies it), truncated by `int()`. A larger `--max-model-len` is
 * refused unless `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` is set, and even then the RoPE cache holds
 * `max_position_embeddings` rows (`rotary_embedding/base.py:66`), so positions past it are read
 * past its end. The engine refuses a prompt longer than `max_model_len`
 * (`v1/engine/processor.py:511-539`), schedules a running request's positions only below
 * `max_model_len - 1` (`v1/core/sched/scheduler.py:224-227`) and stops a sequence once it holds
 * `max_model_len` tokens (`v1/core/sched/utils.py:46`): a prompt of at most `max_model_len`
 * tokens, and, past the first generated token, at most `max_model_len` tokens in all.
 *
 * HF Transformers computes RoPE for any position: its stacks have no such limit.
 *
 * @module
 */
import {
  isVllmStack,
  type StackProfile,
  vllmOptionAbbreviation,
  type VllmTokens,
} from "../../kernels/mod.ts";
import type { DecoderConfig } from "./decoder_config.ts";

/**
 * vLLM's `max_model_len` for a config, with how it follows from the config
 * (`max_position_embeddings 4096`), or why it is not modelled.
 */
export type VllmMaxModelLen = VllmTokens<number>;

/** What a sequence's length says of a record on a stack. */
export interface LengthFinding {
  /**
   * `contradiction`: vLLM could not have served it under the limit its config gives;
   * `unmodelled`: the limit vLLM would apply is not derived here.
   */
  readonly kind: "contradiction" | "unmodelled";
  /** One line. */
  readonly reason: string;
}

/**
 * vLLM 0.11's `max_model_len` of a config, without `--max-model-len`.
 *
 * @param config the parsed config
 * @returns the limit and its rule, or why it is not derived (a `max_position_embeddings` that
 *   is not a positive whole number, with which vLLM cannot build its RoPE cache)
 * @example
 * ```ts
 * import { vllmMaxModelLen } from "./vllm_max_model_len.ts";
 * const c = { maxPositionEmbeddings: 4096 };
 * const r = vllmMaxModelLen({ ...c, ropeScaling: { kind: "linear", factor: 1.5 } });
 * if (!r.ok || r.tokens !== 6144) throw new Error();
 * ```
 */
export function vllmMaxModelLen(
  config: Pick<DecoderConfig, "maxPositionEmbeddings" | "ropeScaling">,
): VllmMaxModelLen {
  const mpe = config.maxPositionEmbeddings;
  if (mpe === null) {
    return {
      ok: false,
      reason: "max_position_embeddings is not a positive whole number: vLLM's max_model_len " +
        "and RoPE cache from it are not modelled",
    };
  }
  const s = config.ropeScaling;
  // `rope_type` not in ("su", "longrope", "llama3"): the length times the factor (1.0 for the
  // default type), then int(); host arithmetic is the double product Python computes.
  if (s?.kind === "linear") {
    return {
      ok: true,
      tokens: Math.floor(mpe * s.factor),
      rule: `max_position_embeddings ${mpe} x linear rope_scaling factor ${s.factor}`,
    };
  }
  return { ok: true, tokens: mpe, rule: `max_position_embeddings ${mpe}` };
}

/**
 * The length fields of `config` as vLLM 0.11 reads them: through Transformers 4.5x
 * (`AutoConfig`; vLLM reads no `rope_parameters`, `vllm/transformers_utils/config.py`
 * `patch_rope_scaling` at commit c3124680 reads `rope_scaling` alone). Where the config gives its
 * RoPE in a form only Transformers 5 reads (`ropeTransformers5Only`: in `rope_parameters`
 * alone), 4.5x reads no `rope_scaling` (None), so `max_model_len` is `max_position_embeddings`
 * whatever RoPE the config means. Null where 4.5x refuses the config (`ropeTransformers4Missing`:
 * vLLM loads no model, `vllmRefusal` says why): no limit.
 *
 * @param config the parsed config
 * @returns the fields `vllmMaxModelLen` reads, or null
 * @example
 * ```ts
 * import { vllmLengthReading } from "./vllm_max_model_len.ts";
 * const ropeScaling = { kind: "linear", factor: 2 } as const;
 * const v5 = { maxPositionEmbeddings: 8, ropeScaling, ropeTransformers5Only: true } as const;
 * if (vllmLengthReading(v5)?.ropeScaling !== undefined) throw new Error();
 * if (vllmLengthReading({ ...v5, ropeTransformers4Missing: ["rope_type"] }) !== null) {
 *   throw new Error();
 * }
 * ```
 */
export function vllmLengthReading(
  config: Pick<
    DecoderConfig,
    "maxPositionEmbeddings" | "ropeScaling" | "ropeTransformers5Only" | "ropeTransformers4Missing"
  >,
): Pick<DecoderConfig, "maxPositionEmbeddings" | "ropeScaling"> | null {
  if (config.ropeTransformers4Missing !== undefined) return null;
  if (config.ropeTransformers5Only !== true) return config;
  return { maxPositionEmbeddings: config.maxPositionEmbeddings };
}

/**
 * vLLM's `max_model_len` of a config on a stack: {@link vllmMaxModelLen} of the length fields as
 * vLLM reads them ({@link vllmLengthReading}), unless the stack's own settings may set it
 * otherwise (`--max-model-len`, `--hf-overrides`, `VLLM_ALLOW_LONG_MAX_MODEL_LEN`), which is not
 * modelled, or vLLM refuses the config (no model, no limit).
 *
 * @param config the parsed config
 * @param stack the stack profile (its components)
 * @returns the limit and its rule, or why it is not derived
 * @example
 * ```ts
 * import { vllmStackMaxModelLen } from "./vllm_max_model_len.ts";
 * const config = { maxPositionEmbeddings: 4096 };
 * const own = vllmStackMaxModelLen(config, { components: { flags: "--max-model-len 512" } });
 * if (own.ok || vllmStackMaxModelLen(config, { components: {} }).ok !== true) throw new Error();
 * ```
 */
export function vllmStackMaxModelLen(
  config: Pick<
    DecoderConfig,
    "maxPositionEmbeddings" | "ropeScaling" | "ropeTransformers5Only" | "ropeTransformers4Missing"
  >,
  stack: Pick<StackProfile, "components">,
): VllmMaxModelLen {
  // An abbreviation (`--max-model 4096`: vLLM's parser takes unique prefixes) sets it too.
  if (
    Object.values(stack.components).some((v) => _SETS_LIMIT.test(v)) ||
    vllmOptionAbbreviation(stack, ["max-model-len", "hf-overrides"]) !== null
  ) {
    return {
      ok: false,
      reason: "the stack's own settings may set max_model_len otherwise: not modelled",
    };
  }
  const read = vllmLengthReading(config);
  if (read === null) {
    return { ok: false, reason: "vLLM refuses the config (Transformers 4.5x cannot load it)" };
  }
  return vllmMaxModelLen(read);
}

/**
 * Whether a sequence of a record on this stack fits the longest sequence its engine serves of
 * the checkpoint: on a vLLM stack, a prompt of at most `max_model_len` tokens and, with more
 * than one generated token, at most `max_model_len` tokens in all; nothing to say on other
 * stacks. A stack whose own settings may set the limit otherwise is not modelled.
 *
 * @param config the checkpoint's config
 * @param o the stack, and the sequence's prompt and generated token counts (a prefill: its
 *   tokens and none generated), or with `held` the positions one request holds in a pass
 * @returns the finding, or null when the sequence fits (or the stack is not vLLM's)
 * @example
 * ```ts
 * import { lengthFinding } from "./vllm_max_model_len.ts";
 * const config = { maxPositionEmbeddings: 8 };
 * const stack = { components: { vllm: "0.11.0" } };
 * if (lengthFinding(config, { stack, prompt: 9, generated: 0 })?.kind !== "contradiction") {
 *   throw new Error();
 * }
 * if (lengthFinding(config, { stack, prompt: 8, generated: 1 }) !== null) throw new Error();
 * if (lengthFinding(config, { stack: { components: {} }, prompt: 9, generated: 0 }) !== null) {
 *   throw new Error();
 * }
 * ```
 */
export function lengthFinding(
  config: Pick<
    DecoderConfig,
    "maxPositionEmbeddings" | "ropeScaling" | "ropeTransformers5Only" | "ropeTransformers4Missing"
  >,
  o: {
    readonly stack: Pick<StackProfile, "components">;
    readonly prompt: number;
    readonly generated: number;
    /**
     * `prompt` counts the positions one request holds in a pass (cached and new: a neighbour in
     * a batch, a decode step's keys), not a prompt: worded so.
     */
    readonly held?: boolean;
    /**
     * The furthest positions (cached and new) the sequence reached in a pass that continued its
     * previous one, and that pass (`furthestRunning`): a running request's positions stay below
     * `max_model_len - 1`.
     */
    readonly running?: { readonly keys: number; readonly pass: number } | null;
  },
): LengthFinding | null {
  if (!isVllmStack(o.stack)) return null;
  // Where vLLM refuses the config it serves nothing: the refusal is the finding (vllmRefusal).
  if (vllmLengthReading(config) === null) return null;
  const limit = vllmStackMaxModelLen(config, o.stack);
  if (!limit.ok) return { kind: "unmodelled", reason: limit.reason };
  const { prompt, generated } = o;
  const m = `vLLM's max_model_len ${limit.tokens} (${limit.rule})`;
  if (prompt > limit.tokens) {
    return {
      kind: "contradiction",
      reason: o.held === true
        ? `${prompt} positions of one request are more than ${m}, which vLLM serves to none`
        : `the ${prompt}-token prompt is longer than ${m}, which vLLM refuses`,
    };
  }
  const r = o.running;
  if (r !== undefined && r !== null && r.keys > limit.tokens - 1) {
    return {
      kind: "contradiction",
      reason: `pass ${r.pass} continues the sequence to ${r.keys} positions, where vLLM ` +
        `schedules a running request's positions only below ${m} minus 1 (${
          limit.tokens - 1
        } at most)`,
    };
  }
  if (generated > 1 && prompt + generated > limit.tokens) {
    return {
      kind: "contradiction",
      reason: `the sequence's ${prompt + generated} tokens (${prompt} prompt, ${generated} ` +
        `generated) pass ${m}, where vLLM stops a sequence`,
    };
  }
  return null;
}

/** Settings that move vLLM's limit: `--max-model-len`, `--hf-overrides`, the long-length switch. */
const _SETS_LIMIT = /max[-_]model[-_]len|hf[-_]overrides|VLLM_ALLOW_LONG_MAX_MODEL_LEN/i;
