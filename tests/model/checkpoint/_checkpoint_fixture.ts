/**
 * In-memory checkpoint directories for the checkpoint and forward tests.
 *
 * @module
 */
import {
  bytesByteSource,
  type CheckpointFiles,
  type DecoderCheckpoint,
  encodeSafetensors,
  openDecoderCheckpoint,
  openSafetensors,
  parseDecoderConfig,
  type SafetensorsTensorInput,
  synthDecoderCheckpoint,
} from "../../../src/model/mod.ts";
import { synthFamilyWeights, tensorReader } from "../reference/synth_weights.ts";

/** A small dense config (the bundled tiny dense shapes, with fewer tokens of vocabulary). */
export const TINY_DENSE = Object.freeze({
  model_type: "qwen3",
  architectures: ["Qwen3ForCausalLM"],
  vocab_size: 64,
  hidden_size: 256,
  intermediate_size: 768,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  head_dim: 128,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  torch_dtype: "bfloat16",
});

/** A small MoE config: layer 0 dense (mlp_only_layers), layer 1 sparse. */
export const TINY_MOE = Object.freeze({
  ...TINY_DENSE,
  model_type: "qwen3_moe",
  architectures: ["Qwen3MoeForCausalLM"],
  num_experts: 8,
  num_experts_per_tok: 2,
  moe_intermediate_size: 128,
  norm_topk_prob: true,
  decoder_sparse_step: 1,
  mlp_only_layers: [0],
  tie_word_embeddings: false,
});

/** Files of a directory, as bytes by name. */
export type MemDir = Map<string, Uint8Array>;

/** The `CheckpointFiles` view of an in-memory directory. */
export function memFiles(dir: MemDir): CheckpointFiles {
  return {
    open: (name) => Promise.resolve(dir.has(name) ? bytesByteSource(dir.get(name)!) : null),
  };
}

/** A synthetic checkpoint of a config, in memory. */
export function synthDir(config: object, o: { seed?: string; shards?: number } = {}): MemDir {
  const dir: MemDir = new Map();
  dir.set("config.json", new TextEncoder().encode(JSON.stringify(config)));
  const files = synthDecoderCheckpoint(parseDecoderConfig(config), {
    seed: o.seed ?? "test",
    shards: o.shards ?? 1,
  });
  for (const f of files) {
    const b = f.bytes();
    if (b instanceof Uint8Array) {
      dir.set(f.name, b);
      continue;
    }
    const out = new Uint8Array(b.byteLength);
    let at = 0;
    for (const c of b) {
      out.set(c, at);
      at += c.length;
    }
    dir.set(f.name, out);
  }
  return dir;
}

/** Rewrites one safetensors file of a directory with edited tensors. */
export async function rewrite(
  dir: MemDir,
  file: string,
  edit: (tensors: SafetensorsTensorInput[]) => SafetensorsTensorInput[],
): Promise<MemDir> {
  const st = await openSafetensors(bytesByteSource(dir.get(file)!));
  const tensors: SafetensorsTensorInput[] = [];
  for (const e of st.header.tensors) {
    tensors.push({
      name: e.name,
      dtype: e.dtype,
      shape: e.shape,
      data: (await st.tensorView(e.name)).slice() as SafetensorsTensorInput["data"],
    });
  }
  const out = new Map(dir);
  out.set(file, encodeSafetensors(edit(tensors)));
  return out;
}

/**
 * Opens a checkpoint of every tensor of a family's config, synthesised from a seed, with a reader
 * of the same tensors as float64 for the reference forward.
 */
export async function openSynthCheckpoint(
  config: Record<string, unknown>,
  seed: string,
): Promise<{ ckpt: DecoderCheckpoint; read: ReturnType<typeof tensorReader> }> {
  const tensors = synthFamilyWeights(config, { seed });
  const ckpt = await openDecoderCheckpoint(memFiles(
    new Map([
      ["config.json", new TextEncoder().encode(JSON.stringify(config))],
      ["model.safetensors", encodeSafetensors(tensors)],
    ]),
  ));
  return { ckpt, read: tensorReader(tensors) };
}
