import assert from "node:assert/strict";
import { parseGpuProfile } from "../../src/hardware/mod.ts";
import { parseStackProfile } from "../../src/kernels/mod.ts";
import { parseCheckpointJson, parseDecoderConfig, stackLoadRefusal } from "../../src/model/mod.ts";
import { _checkBatchPadding, _checkModelSupport } from "../../src/verify/_model_support.ts";
import { _Stop } from "../../src/verify/_stop.ts";

const ROOT = new URL("../../", import.meta.url);
const json = (path: string) => JSON.parse(Deno.readTextFileSync(new URL(path, ROOT)));
const profile = parseGpuProfile(json("profiles/gpu/a100.json"));
const stack = (id: string) => parseStackProfile(json(`profiles/stack/${id}.json`));
const fixture = (name: string) =>
  parseDecoderConfig(json(`tests/model/checkpoint/fixtures/hf_configs/${name}.json`));

/** The stop `_checkModelSupport` throws, or null. */
function stopOf(config: ReturnType<typeof parseDecoderConfig>, stackId: string): _Stop | null {
  try {
    _checkModelSupport(config, { profile, stack: stack(stackId) });
    return null;
  } catch (e) {
    if (e instanceof _Stop) return e;
    throw e;
  }
}

Deno.test("_checkModelSupport(): a RoPE given only in rope_parameters is NOT_VERIFIED on a Transformers 4.5x stack", () => {
  const v5 = fixture("qwen3-0.6b.transformers-5");
  const v4 = fixture("qwen3-0.6b.transformers-4.51");
  // Transformers 4.5x ignores rope_parameters: the stack would have run theta 10000, not 1000000.
  for (
    const id of ["hf-qwen3-flash-attn-torch2.8", "vllm-0.11-eager-fa2", "pytorch-cublas-linear"]
  ) {
    const s = stopOf(v5, id);
    assert.equal(s?.status, "NOT_VERIFIED", id);
    assert.match(s!.why, /only Transformers 5 reads \(rope_parameters alone/, id);
    assert.equal(stopOf(v4, id), null, id);
  }
  assert.equal(stopOf(v5, "hf-qwen3-sdpa-torch2.11-hopper"), null); // a Transformers 5 stack
});

Deno.test("_checkModelSupport(): experts counted by num_local_experts alone are a Transformers 5 reading, NOT_VERIFIED on 4.5x stacks; an empty rope_scaling is no other reading (4.5x refuses it: hfRefusal)", () => {
  const raw = (name: string) => json(`tests/model/checkpoint/fixtures/hf_configs/${name}.json`);
  const v4 = raw("qwen3-0.6b.transformers-4.51");
  // 4.5x refuses an empty rope_scaling (its required keys are missing: `stackLoadRefusal` FAILs
  // the record); 5.x reads the default.
  const empty = parseDecoderConfig({ ...v4, rope_scaling: {} });
  for (const id of ["hf-qwen3-flash-attn-torch2.8", "hf-qwen3-sdpa-torch2.11-hopper"]) {
    assert.equal(stopOf(empty, id), null, id);
  }
  const moe = raw("qwen3-30b-a3b.transformers-4.51");
  const { num_experts, ...rest } = moe;
  const renamed = parseDecoderConfig({ ...rest, num_local_experts: num_experts });
  const r = stopOf(renamed, "hf-qwen3-flash-attn-torch2.8");
  assert.equal(r?.status, "NOT_VERIFIED");
  assert.match(r!.why, /num_local_experts alone, which only Transformers 5 reads/);
  assert.equal(stopOf(parseDecoderConfig(moe), "hf-qwen3-flash-attn-torch2.8"), null);
});

Deno.test("_checkModelSupport(): decoder_sparse_step written as a float is read as its integer on every stack; Transformers 5's typed config refuses to load it (stackLoadRefusal), it reads it no other way", () => {
  const text = Deno.readTextFileSync(
    new URL(
      "tests/model/checkpoint/fixtures/hf_configs/qwen3-30b-a3b.transformers-4.51.json",
      ROOT,
    ),
  );
  const edited = text.replace('"decoder_sparse_step": 1,', '"decoder_sparse_step": 1.0,');
  assert.notEqual(edited, text);
  const config = parseDecoderConfig(
    parseCheckpointJson(new TextEncoder().encode(edited), "config.json"),
  );
  assert.equal(config.moe?.decoderSparseStep, 1);
  for (const id of ["hf-qwen3-flash-attn-torch2.8", "vllm-0.11-eager-fa2"]) {
    assert.equal(stopOf(config, id), null, id);
    assert.equal(stackLoadRefusal(stack(id), { config, pp: 1 }), null, id);
  }
  // No other reading on Transformers 5: no model at all, which FAILs the record (_checkStackLoads).
  const v5 = "hf-qwen3-sdpa-torch2.11-hopper";
  assert.equal(stopOf(config, v5), null);
  assert.match(
    stackLoadRefusal(stack(v5), { config, pp: 1 }) ?? "",
    /^stack 'hf-qwen3-sdpa-torch2\.11-hopper' runs HF Transformers: the config writes decoder_sparse_step as a float, which Transformers 5's typed config refuses \(decoder_sparse_step: int\): the model cannot be loaded$/,
  );
  const plain = parseDecoderConfig(
    parseCheckpointJson(new TextEncoder().encode(text), "config.json"),
  );
  assert.equal(stopOf(plain, v5), null);
  assert.equal(stackLoadRefusal(stack(v5), { config: plain, pp: 1 }), null);
});

Deno.test("_checkModelSupport(): Qwen3 and Qwen3-MoE with attention_bias are NOT_VERIFIED on vLLM (o_proj built without its bias), and read as HF reads them elsewhere", () => {
  const raw = (name: string) => json(`tests/model/checkpoint/fixtures/hf_configs/${name}.json`);
  for (const name of ["qwen3-0.6b.transformers-4.51", "qwen3-30b-a3b.transformers-4.51"]) {
    const biased = parseDecoderConfig({ ...raw(name), attention_bias: true });
    assert.deepEqual(biased.bias, { qkv: true, o: true, mlp: false });
    const s = stopOf(biased, "vllm-0.11-eager-fa2");
    assert.equal(s?.status, "NOT_VERIFIED", name);
    assert.match(s!.why, /vLLM 0\.11 builds o_proj without the bias HF adds/, name);
    assert.equal(stopOf(biased, "hf-qwen3-flash-attn-torch2.8"), null, name);
    assert.equal(stopOf(parseDecoderConfig(raw(name)), "vllm-0.11-eager-fa2"), null, name);
  }
  // vLLM's Qwen2 (q/k/v biased, o not) and Llama (bias_o_proj = attention_bias) are HF's.
  assert.equal(stopOf(fixture("qwen2.5-7b.transformers-4.4x"), "vllm-0.11-eager-fa2"), null);
  const llama = parseDecoderConfig({
    ...raw("llama-3.1-8b.transformers-4.4x"),
    attention_bias: true,
  });
  assert.equal(stopOf(llama, "vllm-0.11-eager-fa2"), null);
});

Deno.test("_checkModelSupport(): a Qwen2 head_dim other than hidden_size / heads is NOT_VERIFIED on vLLM (it builds heads of hidden_size / heads and narrows the weights), and read as HF reads it elsewhere", () => {
  const raw = json("tests/model/checkpoint/fixtures/hf_configs/qwen2.5-7b.transformers-4.4x.json");
  const hidden = raw.hidden_size as number, heads = raw.num_attention_heads as number;
  const wide = parseDecoderConfig({ ...raw, head_dim: 2 * hidden / heads });
  const s = stopOf(wide, "vllm-0.11-eager-fa2");
  assert.equal(s?.status, "NOT_VERIFIED");
  assert.match(
    s!.why,
    new RegExp(
      `'qwen2' with head_dim ${2 * hidden / heads}: vLLM 0\\.11 builds heads of ` +
        `hidden_size / num_attention_heads = ${hidden / heads}`,
    ),
  );
  assert.equal(stopOf(wide, "hf-qwen3-flash-attn-torch2.8"), null);
  // The head_dim vLLM builds anyway, stated or not: read alike.
  assert.equal(
    stopOf(parseDecoderConfig({ ...raw, head_dim: hidden / heads }), "vllm-0.11-eager-fa2"),
    null,
  );
  // Llama reads head_dim in vLLM as in HF.
  const llama = json(
    "tests/model/checkpoint/fixtures/hf_configs/llama-3.1-8b.transformers-4.4x.json",
  );
  const l = parseDecoderConfig({ ...llama, head_dim: 256 });
  assert.equal(stopOf(l, "vllm-0.11-eager-fa2"), null);
});

Deno.test("_checkModelSupport(): a served sequence's keys (prompt and generated tokens, no batch) reaching a window Transformers 4.5x keeps are NOT_VERIFIED there, not on 4.57 or vLLM", () => {
  // HF issue #38002: before 4.57 the Qwen3 config class keeps `sliding_window` although
  // `use_sliding_window` is false, and masks attention by it once the keys reach it
  // (docs/prover.md); a served sequence has no batch, only its key count.
  const kept = parseDecoderConfig({
    ...json("tests/model/checkpoint/fixtures/hf_configs/qwen3-0.6b.transformers-4.51.json"),
    sliding_window: 8,
    use_sliding_window: false,
  });
  const at = (stackId: string, keys: number) => {
    try {
      _checkModelSupport(kept, { profile, stack: stack(stackId), keys });
      return null;
    } catch (e) {
      if (e instanceof _Stop) return e;
      throw e;
    }
  };
  // Well past the window (its mask drops keys) and well short of it (it masks nothing).
  const reached = at("hf-qwen3-flash-attn-torch2.8", 64);
  assert.equal(reached?.status, "NOT_VERIFIED");
  assert.match(reached!.why, /\(HF issue #38002\) keeps the sliding window .*\(8 keys\)/);
  assert.match(reached!.why, /the record's 64 keys reach it/);
  assert.equal(at("hf-qwen3-flash-attn-torch2.8", 4), null, "short of the window");
  assert.equal(at("hf-qwen3-continuous-batching-torch2.8", 64), null, "4.57 turns it off");
  assert.equal(at("vllm-0.11-eager-fa2", 64), null, "vLLM reads use_sliding_window");
});

Deno.test("_checkBatchPadding(): a pad token outside the vocabulary FAILs a batch that pads with it, not one of equal lengths, which never holds it", () => {
  // On a pad-to-longest stack the pad token fills the shorter rows and is looked up in the
  // embedding (torch.nn.Embedding refuses an index past its rows); sequences of one length get
  // no pad position, so the token is never read.
  const config = { vocab: 8 };
  const padded = stack("hf-qwen3-flash-attn-torch2.8");
  const stopOf = (sequences: number[][]) => {
    try {
      _checkBatchPadding(config, { stack: padded, tokens: { sequences, padTokenId: 8 } });
      return null;
    } catch (e) {
      if (e instanceof _Stop) return e;
      throw e;
    }
  };
  const unequal = stopOf([[1, 2, 3], [4, 5]]);
  assert.equal(unequal?.status, "FAIL");
  assert.match(unequal!.why, /pad token id 8 is outside the vocabulary 0\.\.7/);
  assert.equal(stopOf([[1, 2, 3], [4, 5, 6]]), null);
  assert.equal(stopOf([[1, 2, 3]]), null);
});
