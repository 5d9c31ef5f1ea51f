/**
 * Mutations of a checkpoint's `config.json` for the recompute-path fuzzer (issue 25, item 1):
 * fields set to HF-plausible, edge and wrong values or deleted; the config is re-committed and,
 * when it parses and is small, weights made for it too, so the forward runs on the mutated
 * model.
 */
import fc from "fast-check";
import type {
  ClaimPredicate,
  ModelForwardWorkload,
  SequenceWorkload,
} from "../../src/claims/mod.ts";
import { parseDecoderConfig } from "../../src/model/mod.ts";
import { type Blobs, commit, synthModel } from "./_recompute_fixture.ts";

/** Values a config field is set to (HF-plausible, edge and wrong ones). */
const CONFIG_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  hidden_size: [128, 256, 200, 512, 0],
  intermediate_size: [64, 768, 100],
  num_attention_heads: [1, 2, 3, 4, 16],
  num_key_value_heads: [1, 2, 3],
  head_dim: [16, 64, 96, 128, 130, 127, null],
  num_hidden_layers: [1, 2, 3],
  vocab_size: [16, 512, 1000, 1],
  rms_norm_eps: [1e-6, 1e-5, 0, 1e-300, "x"],
  rope_theta: [10000, 1000000, 1.5, 1e30],
  tie_word_embeddings: [true, false],
  model_type: ["qwen3", "qwen3_moe", "llama"],
  rope_scaling: [{ rope_type: "linear", factor: 2 }, null],
  num_experts: [0, 1, 4, 8],
  num_experts_per_tok: [1, 2, 4],
  moe_intermediate_size: [32, 64, 128],
  decoder_sparse_step: [1, 2],
  mlp_only_layers: [[], [0], [7]],
  norm_topk_prob: [true, false],
  torch_dtype: ["bfloat16", "float16"],
};

/** One edit of a config: set a field to one of its values, or delete it. */
export interface ConfigEdit {
  readonly key: string;
  readonly pick: number;
  readonly drop: boolean;
}

/** A few config edits, whether to make weights for the result, and the kernel to name. */
export const CONFIG_EDITS: fc.Arbitrary<{
  edits: ConfigEdit[];
  weights: boolean;
  recipe: boolean;
}> = fc.record({
  edits: fc.array(
    fc.record({
      key: fc.constantFrom(...Object.keys(CONFIG_VALUES)),
      pick: fc.nat({ max: 100 }),
      drop: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, fc.constant(true)),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  weights: fc.boolean(),
  recipe: fc.boolean(),
});

/** Largest synthetic checkpoint the fuzzer makes (elements): small enough to stay fast. */
const MAX_SYNTH_ELEMENTS = 1 << 22;

/**
 * Applies config edits, commits the config and (with `weights`, when the config parses and is
 * small) weights made for it; the record's model reference points at them.
 *
 * @param p the honest predicate (a model-forward or sequence record)
 * @param o the base config, the edits, whether to make weights, and the blobs to commit into
 * @returns the predicate naming the mutated checkpoint
 */
export function editConfig(
  p: ClaimPredicate,
  o: {
    readonly config: Readonly<Record<string, unknown>>;
    readonly edits: readonly ConfigEdit[];
    readonly weights: boolean;
    readonly blobs: Blobs;
  },
): ClaimPredicate {
  const config: Record<string, unknown> = { ...o.config };
  for (const e of o.edits) {
    if (e.drop) delete config[e.key];
    else {
      const values = CONFIG_VALUES[e.key]!;
      config[e.key] = values[e.pick % values.length];
    }
  }
  const w = p.workload as ModelForwardWorkload | SequenceWorkload;
  let model = {
    ...w.model,
    configSha256: commit(o.blobs, new TextEncoder().encode(JSON.stringify(config))),
  };
  if (o.weights && _small(config)) {
    model = synthModel(config, { seed: "fuzz", shards: 1, blobs: o.blobs });
  }
  return { ...p, workload: { ...w, model } as typeof w };
}

/**
 * Whether a config is worth making weights for: the parser takes it and its weights (counted
 * from the config's own numbers, an upper bound) are small.
 */
function _small(config: Record<string, unknown>): boolean {
  try {
    parseDecoderConfig(config);
  } catch {
    return false; // a config the parser refuses keeps the honest weights
  }
  const n = (key: string, fallback = 0) => {
    const v = config[key];
    return typeof v === "number" && Number.isFinite(v) ? v : fallback;
  };
  const h = n("hidden_size");
  const d = n("head_dim", h / Math.max(1, n("num_attention_heads", 1)));
  const attention = h * d * 2 * (n("num_attention_heads") + n("num_key_value_heads"));
  const mlp = 3 * h * (n("intermediate_size") + n("num_experts") * n("moe_intermediate_size"));
  const total = 2 * n("vocab_size") * h + n("num_hidden_layers") * (attention + mlp);
  return total <= MAX_SYNTH_ELEMENTS;
}
