/**
 * Deterministic small random BF16 weights for any modelled family's config, so tests can build
 * tiny Llama / Qwen2.5 / Mistral / Qwen3 checkpoints (e.g. `encodeSafetensors` of the result) and
 * compare the emulator with {@link referenceForward}. Scales: embedding ~N(0, 0.05^2),
 * projections ~N(0, 0.02^2), q/k/v/o biases ~N(0, 0.1^2) (large enough that a dropped or
 * misplaced bias shows), MLP biases ~N(0, 0.02^2), router ~N(0, 0.1^2) (clear routing margins),
 * RMSNorm weights uniform in 0.75..1.25. Each tensor has its own stream, seeded by the seed and
 * the tensor's name, so adding a tensor does not change the others.
 *
 * @module
 */
import { bf16ToF64, f64ToBf16 } from "./bf16_f64.ts";
import { familySpec } from "./family_f64.ts";
import { familyTensorShapes } from "./family_tensors.ts";
import type { TensorReader } from "./f64_forward.ts";

/** A synthesised tensor, in the shape `encodeSafetensors` takes. */
export interface SynthTensor {
  /** HF name. */
  readonly name: string;
  /** Always `"BF16"`. */
  readonly dtype: "BF16";
  /** Dimensions, outermost first. */
  readonly shape: readonly number[];
  /** BF16 bit patterns, C order. */
  readonly data: Uint16Array;
}

/**
 * Synthesises every tensor of a config's checkpoint.
 *
 * @param config the parsed `config.json` of a modelled family
 * @param o `seed` (any string; the same seed gives the same bits)
 * @returns the tensors, in {@link familyTensorShapes} order
 * @throws {TypeError} / {RangeError} as `familySpec`
 * @example
 * ```ts
 * import { synthFamilyWeights } from "./synth_weights.ts";
 * const t = synthFamilyWeights({ model_type: "mistral", vocab_size: 8, hidden_size: 32,
 *   intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2 }, { seed: "x" });
 * if (t[0]!.name !== "model.embed_tokens.weight" || t[0]!.data.length !== 8 * 32) throw new Error();
 * ```
 */
export function synthFamilyWeights(config: unknown, o: { seed: string }): SynthTensor[] {
  return familyTensorShapes(familySpec(config)).map(({ name, shape }) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const rand = _stream(`${o.seed}/${name}`);
    const data = new Uint16Array(n);
    const kind = _kind(name);
    for (let i = 0; i < n; i++) {
      data[i] = f64ToBf16(kind === "norm" ? 0.75 + 0.5 * rand() : _SCALE[kind] * _gauss(rand));
    }
    return { name, dtype: "BF16", shape, data };
  });
}

/**
 * A {@link TensorReader} over synthesised (or any BF16) tensors, decoding each once.
 *
 * @param tensors named BF16 tensors
 * @returns the reader; it throws a `RangeError` for a name it does not hold
 * @example
 * ```ts
 * import { tensorReader } from "./synth_weights.ts";
 * const read = tensorReader([{ name: "a", data: Uint16Array.of(0x3f80) }]);
 * if (read("a")[0] !== 1) throw new Error();
 * ```
 */
export function tensorReader(
  tensors: readonly { readonly name: string; readonly data: Uint16Array }[],
): TensorReader {
  const bits = new Map(tensors.map((t) => [t.name, t.data]));
  const cache = new Map<string, Float64Array>();
  return (name) => {
    let v = cache.get(name);
    if (v === undefined) {
      const b = bits.get(name);
      if (b === undefined) throw new RangeError(`Cannot read tensor "${name}": not present`);
      cache.set(name, v = bf16ToF64(b));
    }
    return v;
  };
}

type _Kind = "norm" | "embed" | "proj" | "attnBias" | "mlpBias" | "router";

const _SCALE: Readonly<Record<Exclude<_Kind, "norm">, number>> = {
  embed: 0.05,
  proj: 0.02,
  attnBias: 0.1,
  mlpBias: 0.02,
  router: 0.1,
};

function _kind(name: string): _Kind {
  if (/(layernorm|norm)\.weight$/.test(name)) return "norm";
  if (name === "model.embed_tokens.weight" || name === "lm_head.weight") return "embed";
  if (name.endsWith(".mlp.gate.weight")) return "router";
  if (name.endsWith(".bias")) return name.includes(".self_attn.") ? "attnBias" : "mlpBias";
  return "proj";
}

/** sfc32 seeded by FNV-1a hashes of the key: uniform in [0, 1). */
function _stream(key: string): () => number {
  const seeds = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b].map((basis) => {
    let h = basis >>> 0;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193) >>> 0;
    return h;
  });
  let [a, b, c, d] = seeds as [number, number, number, number];
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/** A standard normal deviate (Box-Muller). */
function _gauss(rand: () => number): number {
  const u = 1 - rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}
