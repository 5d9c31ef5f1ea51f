/**
 * vLLM 0.11's longest sequence of a checkpoint (`_get_and_verify_max_len`, vllm/config/model.py
 * at commit c3124680) as `vllmMaxModelLen` derives it from the parsed config, and
 * `lengthFinding`'s rule for a record's sequence on a vLLM stack (prompt at most max_model_len;
 * past the first generated token, at most max_model_len tokens in all); HF stacks have no limit.
 * Regression tests for a review finding: a vLLM record longer than its checkpoint's
 * max_position_embeddings PASSed.
 */
import assert from "node:assert/strict";
import { lengthFinding, parseDecoderConfig, vllmMaxModelLen } from "../../../src/model/mod.ts";

const DIR = new URL("./fixtures/hf_configs/", import.meta.url);
const read = (name: string) =>
  JSON.parse(Deno.readTextFileSync(new URL(`${name}.json`, DIR))) as Record<string, unknown>;
const VLLM = { components: { vllm: "0.11.0", flags: "--enforce-eager" } };
const HF = { components: { transformers: "4.5x" } };

/** The limit, or the failure's reason. */
const limitOf = (json: Record<string, unknown>) => {
  const r = vllmMaxModelLen(parseDecoderConfig(json));
  return r.ok ? r.tokens : r.reason;
};

Deno.test("vllmMaxModelLen() is max_position_embeddings, times a linear factor (truncated), never a llama3 one", () => {
  const qwen3 = read("qwen3-4b.transformers-4.51");
  assert.equal(limitOf(qwen3), 40960);
  // The published Llama 3.1 config: llama3 scaling leaves the length as it is.
  assert.equal(limitOf(read("llama-3.1-8b.transformers-4.4x")), 131072);
  assert.equal(limitOf({ ...qwen3, rope_scaling: { rope_type: "linear", factor: 1.5 } }), 61440);
  assert.equal(limitOf({ ...qwen3, rope_scaling: { type: "linear", factor: 0.3 } }), 12288);
  assert.equal(
    limitOf({
      ...qwen3,
      max_position_embeddings: 7,
      rope_scaling: { type: "linear", factor: 1.5 },
    }),
    10,
  );
  // The default type has no factor (1.0).
  assert.equal(limitOf({ ...qwen3, rope_scaling: { rope_type: "default" } }), 40960);
  const r = vllmMaxModelLen(parseDecoderConfig({ ...qwen3, max_position_embeddings: 8 }));
  assert.deepEqual(r, { ok: true, tokens: 8, rule: "max_position_embeddings 8" });
});

Deno.test("vllmMaxModelLen(): an absent max_position_embeddings is the config class's default; one that is not a positive whole number is not modelled", () => {
  const absent = (name: string) => {
    const { max_position_embeddings: _, ...rest } = read(name);
    return limitOf(rest);
  };
  assert.equal(absent("qwen3-4b.transformers-4.51"), 32768);
  assert.equal(absent("qwen3-30b-a3b.transformers-4.51"), 32768);
  assert.equal(absent("qwen2.5-7b.transformers-4.4x"), 32768);
  assert.equal(absent("mistral-7b-v0.3.transformers-4.4x"), 131072);
  const { max_position_embeddings: _, rope_scaling: __, ...llama } = read(
    "llama-3.1-8b.transformers-4.4x",
  );
  assert.equal(limitOf(llama), 2048);
  const qwen3 = read("qwen3-4b.transformers-4.51");
  for (const v of [null, 0, -1, 8.5, "4096", true]) {
    assert.match(String(limitOf({ ...qwen3, max_position_embeddings: v })), /not modelled/);
  }
});

Deno.test("lengthFinding(): on vLLM a prompt over max_model_len, or a sequence passing it after the first generated token, contradicts the checkpoint; HF stacks have no limit", () => {
  const c = parseDecoderConfig({
    ...read("qwen3-4b.transformers-4.51"),
    max_position_embeddings: 8,
  });
  const at = (prompt: number, generated: number, stack: typeof VLLM | typeof HF = VLLM) =>
    lengthFinding(c, { stack, prompt, generated });
  assert.equal(at(8, 0), null);
  assert.equal(at(9, 0)?.kind, "contradiction");
  assert.match(at(9, 0)!.reason, /9-token prompt is longer than vLLM's max_model_len 8/);
  // A prompt of max_model_len tokens still samples one token (the stop check comes after it).
  assert.equal(at(8, 1), null);
  assert.equal(at(6, 2), null);
  assert.equal(at(7, 2)?.kind, "contradiction");
  assert.match(at(7, 2)!.reason, /9 tokens \(7 prompt, 2 generated\) pass vLLM's max_model_len 8/);
  assert.equal(at(9, 0, HF), null);
  assert.equal(at(100, 100, HF), null);
});

Deno.test("lengthFinding(): on vLLM a pass continuing a running sequence past max_model_len - 1 contradicts the checkpoint (the scheduler caps it); HF stacks have no limit", () => {
  const c = parseDecoderConfig({
    ...read("qwen3-4b.transformers-4.51"),
    max_position_embeddings: 8,
  });
  const at = (keys: number, stack: typeof VLLM | typeof HF = VLLM) =>
    lengthFinding(c, { stack, prompt: 8, generated: 1, running: { keys, pass: 1 } });
  assert.equal(at(7), null);
  assert.equal(at(8)?.kind, "contradiction");
  assert.match(
    at(8)!.reason,
    /^pass 1 continues the sequence to 8 positions, where vLLM schedules a running request's positions only below vLLM's max_model_len 8 .* minus 1 \(7 at most\)/,
  );
  assert.equal(at(8, HF), null);
  assert.equal(lengthFinding(c, { stack: VLLM, prompt: 8, generated: 1, running: null }), null);
});

Deno.test("lengthFinding(): a stack whose own settings may move the limit, or a limit not derived, is not modelled; a RoPE in rope_parameters alone is held to the limit Transformers 4.5x reads (no rope_scaling), a config 4.5x refuses to none", () => {
  const json: Record<string, unknown> = {
    ...read("qwen3-4b.transformers-4.51"),
    max_position_embeddings: 8,
  };
  const c = parseDecoderConfig(json);
  const own = { components: { vllm: "0.11.0", flags: "--max-model-len 64" } };
  assert.equal(lengthFinding(c, { stack: own, prompt: 9, generated: 0 })?.kind, "unmodelled");
  const env = { components: { vllm: "0.11.0", env: "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1" } };
  assert.equal(lengthFinding(c, { stack: env, prompt: 1, generated: 0 })?.kind, "unmodelled");
  // --hf-overrides may rewrite max_position_embeddings, the limit's source, in either spelling.
  for (const flag of ["--hf-overrides", "--hf_overrides"]) {
    const flags = `${flag} '{"max_position_embeddings": 65536}'`;
    const hf = { components: { vllm: "0.11.0", flags } };
    assert.equal(lengthFinding(c, { stack: hf, prompt: 9, generated: 0 })?.kind, "unmodelled");
  }
  const odd = parseDecoderConfig({ ...json, max_position_embeddings: null });
  assert.equal(lengthFinding(odd, { stack: VLLM, prompt: 1, generated: 0 })?.kind, "unmodelled");
  const { rope_theta: _, ...v4 } = json;
  const v5 = parseDecoderConfig({
    ...v4,
    rope_parameters: { rope_type: "default", rope_theta: 1e6 },
  });
  assert.equal(v5.ropeTransformers5Only, true);
  // vLLM reads the config through 4.5x, which ignores rope_parameters: max_position_embeddings.
  assert.match(
    lengthFinding(v5, { stack: VLLM, prompt: 9, generated: 0 })?.reason ?? "",
    /^the 9-token prompt is longer than vLLM's max_model_len 8 \(max_position_embeddings 8\)/,
  );
  assert.equal(lengthFinding(v5, { stack: VLLM, prompt: 8, generated: 0 }), null);
  // A linear factor there moves no limit: 4.5x reads rope_scaling None.
  const linear = parseDecoderConfig({
    ...v4,
    rope_parameters: { rope_type: "linear", factor: 4, rope_theta: 1e6 },
  });
  assert.equal(linear.ropeTransformers5Only, true);
  assert.equal(
    lengthFinding(linear, { stack: VLLM, prompt: 9, generated: 0 })?.kind,
    "contradiction",
  );
  // The same factor in rope_scaling, which 4.5x reads, raises it to 32.
  const legacy = parseDecoderConfig({ ...json, rope_scaling: { rope_type: "linear", factor: 4 } });
  assert.equal(lengthFinding(legacy, { stack: VLLM, prompt: 32, generated: 0 }), null);
  // A rope_scaling 4.5x refuses: vLLM loads no model (vllmRefusal says so), no limit applies.
  const empty = parseDecoderConfig({ ...json, rope_scaling: {} });
  assert.deepEqual(empty.ropeTransformers4Missing, ["rope_type"]);
  assert.equal(lengthFinding(empty, { stack: VLLM, prompt: 9, generated: 0 }), null);
});
