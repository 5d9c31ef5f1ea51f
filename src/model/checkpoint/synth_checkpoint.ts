/**
 * Synthetic decoder checkpoints (every supported family): every tensor a config requires, with random BF16 weights of a
 * realistic scale, in the Hugging Face layout (one `model.safetensors`, or `n` shards
 * `model-0000i-of-0000n.safetensors` with `model.safetensors.index.json`). Pure: it returns the
 * files as byte chunks, the caller writes them.
 *
 * Scales: projections and experts ~ N(0, 0.02^2) (sum of three uniforms), the embedding
 * ~ N(0, 0.05^2), RMSNorm weights around 1 (0.75..1.25) with about 1 channel in 64 of large
 * magnitude (8..40, either sign kept positive as in trained Qwen norms), QK-norm weights around 1.
 * The stream of each tensor is seeded by SHA-256(seed, tensor name), so shards and tensor order
 * do not change any value.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bitsFromF32, fp32ToBf16 } from "../../numerics/mod.ts";
import { encodeSafetensorsChunks, type SafetensorsChunks } from "../safetensors/mod.ts";
import type { DecoderConfig } from "./decoder_config.ts";
import { decoderTensorShapes } from "./decoder_tensors.ts";
import { _checkSynthLimits } from "./_synth_limits.ts";

/** One file of a synthetic checkpoint. */
export interface SynthFile {
  /** File name inside the checkpoint directory. */
  readonly name: string;
  /** Builds the file's bytes (weights are generated when called: one file in memory at a time). */
  readonly bytes: () => SafetensorsChunks | Uint8Array;
}

/**
 * Plans the weight files of a synthetic checkpoint (config.json is the caller's own file).
 *
 * @param config the validated config
 * @param options `seed` (text) and `shards` (1 = one `model.safetensors`)
 * @returns the files in writing order (shards, then the index when sharded)
 * @throws {RangeError} when `shards` is not in 1..min(999, tensor count)
 * @throws {InputError} `SYNTH_TOO_LARGE` when a shard's safetensors header (above 100 MB: give
 *   more shards) or the index (above `MAX_INDEX_JSON_BYTES`) would be more than the checkpoint
 *   reader accepts
 * @example
 * ```ts
 * import { synthDecoderCheckpoint } from "./synth_checkpoint.ts";
 * import { parseDecoderConfig } from "./decoder_config.ts";
 * const c = parseDecoderConfig({ model_type: "qwen3", vocab_size: 8, hidden_size: 256,
 *   intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, num_key_value_heads: 1,
 *   head_dim: 128, tie_word_embeddings: true });
 * const files = synthDecoderCheckpoint(c, { seed: "s", shards: 2 });
 * if (files.map((f) => f.name).join() !==
 *   "model-00001-of-00002.safetensors,model-00002-of-00002.safetensors,model.safetensors.index.json") {
 *   throw new Error();
 * }
 * ```
 */
export function synthDecoderCheckpoint(
  config: DecoderConfig,
  options: { readonly seed: string; readonly shards: number },
): SynthFile[] {
  const shapes = [...decoderTensorShapes(config)];
  const n = options.shards;
  if (!Number.isSafeInteger(n) || n < 1 || n > Math.min(999, shapes.length)) {
    throw new RangeError(
      `Cannot synthesise checkpoint: shards must be in 1..${
        Math.min(999, shapes.length)
      }, got ${n}`,
    );
  }
  const count = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
  const total = shapes.reduce((a, [, s]) => a + count(s), 0);
  const groups: (typeof shapes)[] = Array.from({ length: n }, () => []);
  let done = 0;
  for (const entry of shapes) {
    // Contiguous, balanced by elements: tensor goes to the shard its first element falls in.
    const g = Math.min(n - 1, Math.floor((done * n) / total));
    groups[g]!.push(entry);
    done += count(entry[1]);
  }
  if (groups.some((g) => g.length === 0)) {
    throw new RangeError(`Cannot synthesise checkpoint: ${n} shards leave one empty`);
  }
  const pad = (i: number) => String(i).padStart(5, "0");
  const names = n === 1
    ? ["model.safetensors"]
    : groups.map((_, i) => `model-${pad(i + 1)}-of-${pad(n)}.safetensors`);
  // Before any weight is made: files the checkpoint reader would refuse are never written.
  _checkSynthLimits(groups, names);
  const files: SynthFile[] = groups.map((group, i) => ({
    name: names[i]!,
    bytes: () =>
      encodeSafetensorsChunks(
        group.map(([name, shape]) => ({
          name,
          dtype: "BF16" as const,
          shape,
          data: synthWeight(options.seed, { name, count: count(shape) }),
        })),
        { metadata: { format: "pt" } },
      ),
  }));
  if (n > 1) {
    const weightMap: Record<string, string> = {};
    groups.forEach((g, i) => g.forEach(([name]) => weightMap[name] = names[i]!));
    const index = { metadata: { total_size: total * 2 }, weight_map: weightMap };
    files.push({
      name: "model.safetensors.index.json",
      bytes: () => new TextEncoder().encode(JSON.stringify(index, null, 2) + "\n"),
    });
  }
  return files;
}

/**
 * The synthetic values of one tensor (see the module doc for the scales).
 *
 * @param seed checkpoint seed text
 * @param t tensor name and element count
 * @returns BF16 patterns
 * @example
 * ```ts
 * import { synthWeight } from "./synth_checkpoint.ts";
 * const w = synthWeight("s", { name: "model.norm.weight", count: 256 });
 * if (w.length !== 256 || synthWeight("s", { name: "model.norm.weight", count: 256 })[9] !== w[9]) {
 *   throw new Error();
 * }
 * ```
 */
export function synthWeight(seed: string, t: { name: string; count: number }): Uint16Array {
  const h = sha256(new TextEncoder().encode(`${seed}\u0000${t.name}`));
  let s = (h[0]! | h[1]! << 8 | h[2]! << 16 | h[3]! << 24) >>> 0;
  const next = () => {
    // mulberry32: a small, fast 32-bit generator (statistical quality is ample for weights).
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
  const out = new Uint16Array(t.count);
  const bf16 = (x: number) => fp32ToBf16(bitsFromF32(x));
  if (t.name.endsWith("layernorm.weight") || t.name === "model.norm.weight") {
    for (let i = 0; i < out.length; i++) {
      const big = next() < 1 / 64;
      out[i] = bf16(big ? 8 + 32 * next() : 0.75 + 0.5 * next());
    }
  } else if (t.name.endsWith("_norm.weight")) {
    for (let i = 0; i < out.length; i++) out[i] = bf16(0.5 + next());
  } else {
    const sigma = t.name === "model.embed_tokens.weight" ? 0.05 : 0.02;
    // Sum of three uniforms on [-1, 1]: variance 1, near-normal.
    for (let i = 0; i < out.length; i++) {
      out[i] = bf16(sigma * (next() + next() + next() - 1.5) * 2);
    }
  }
  return out;
}
