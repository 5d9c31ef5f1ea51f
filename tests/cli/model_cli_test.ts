import assert from "node:assert/strict";
import { REPO_ROOT, runBitaudit, withOverrides } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";
import { checkpointDir } from "../../src/assets/mod.ts";
import {
  bytesByteSource,
  checkpointDigest,
  openDecoderCheckpoint,
  openSafetensors,
} from "../../src/model/mod.ts";
import { sha256Hex } from "../../src/sha256_hex.ts";
import { tempDir } from "../_temp.ts";

const tmp = await tempDir({ prefix: "bitaudit-model-cli-" });
const TOKENS = `${tmp}/tokens.json`;
await Deno.writeTextFile(
  TOKENS,
  JSON.stringify({ sequences: [[1, 2, 3, 4, 5], [9, 8]], padTokenId: 0 }),
);
const forward = (ckpt: string, out: string, extra: string[] = []) =>
  runBitaudit(withOverrides([
    "model",
    "forward",
    "--checkpoint",
    ckpt,
    "--tokens",
    TOKENS,
    "--profile",
    "a100",
    "--stack",
    "hf-qwen3-flash-attn-torch2.8",
    "--kernel",
    "demo-qwen3-tiny-a100",
    "--out",
    out,
  ], extra));

Deno.test("model forward --json writes hidden and prints fingerprints, the same on 1 and 2 threads", async () => {
  const ckpt = `${REPO_ROOT}/tables/models/qwen3-tiny-moe`;
  const r1 = await forward(ckpt, `${tmp}/h1.safetensors`, ["--json", "--threads", "1"]);
  assert.equal(r1.code, 0, r1.stderr);
  const s1 = JSON.parse(r1.stdout);
  const r2 = await forward(ckpt, `${tmp}/h2.safetensors`, ["--json", "--threads", "2"]);
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(JSON.parse(r2.stdout).fingerprint, s1.fingerprint);
  assert.equal(s1.rows, 10); // padded: 2 x 5 rows
  assert.equal(s1.tokens, 7);
  const st = await openSafetensors(bytesByteSource(await Deno.readFile(`${tmp}/h1.safetensors`)));
  assert.deepEqual(st.entry("hidden").shape, [7, 256]);
  const bytes = await st.tensor("hidden");
  // Sequence 1's last token is row 6 of the file.
  assert.equal(sha256Hex(bytes.slice(6 * 512, 7 * 512)), s1.sequences[1].fingerprint);
  assert.deepEqual(
    await Deno.readFile(`${tmp}/h1.safetensors`),
    await Deno.readFile(`${tmp}/h2.safetensors`),
  );
});

Deno.test("model synth writes a checkpoint model forward reads; existing output is refused", async () => {
  const config = `${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`;
  const out = `${tmp}/synth`;
  const args = [
    "model",
    "synth",
    "--config",
    config,
    "--seed",
    "bitaudit-tiny-dense-v1",
    "--out",
    out,
  ];
  assert.equal((await runBitaudit([...args, "--shards", "3"])).code, 0);
  const again = await runBitaudit(args);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /^error \[OUTPUT_EXISTS\]/);
  // Same seed, other sharding: the same weights, so the same fingerprints as the bundled files.
  const a = await forward(out, `${tmp}/s.safetensors`, ["--json"]);
  const b = await forward(`${REPO_ROOT}/tables/models/qwen3-tiny-dense`, `${tmp}/b.safetensors`, [
    "--json",
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(JSON.parse(a.stdout).fingerprint, JSON.parse(b.stdout).fingerprint);
  // The digest hashed on a worker during the forward is the weights digest rule's, every shard.
  using files = await checkpointDir(out);
  const want = await checkpointDigest(await openDecoderCheckpoint(files));
  const got = JSON.parse(a.stdout).checkpoint;
  assert.equal(got.sha256, want.sha256);
  assert.deepEqual(got.files, want.files);
  assert.equal(Object.keys(got.files).length, 3);
  assert.notEqual(JSON.parse(a.stdout).checkpoint.sha256, JSON.parse(b.stdout).checkpoint.sha256);
});

Deno.test("model forward refuses a malformed checkpoint (exit 2) and an unmodelled stack (exit 3)", async () => {
  const bad = `${tmp}/bad`;
  await Deno.mkdir(bad);
  await Deno.copyFile(
    `${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`,
    `${bad}/config.json`,
  );
  const r = await forward(bad, `${tmp}/x.safetensors`);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error \[CHECKPOINT_NO_WEIGHTS\]: Cannot open checkpoint/);
  assert.equal(r.stderr.trim().split("\n").length, 1);
  const cudnn = await runBitaudit([
    "model",
    "forward",
    "--checkpoint",
    `${REPO_ROOT}/tables/models/qwen3-tiny-dense`,
    "--tokens",
    TOKENS,
    "--profile",
    "h100-sxm",
    "--stack",
    "hf-qwen3-sdpa-torch2.11-hopper",
    "--kernel",
    "demo-qwen3-tiny-h100-sxm",
    "--out",
    `${tmp}/y.safetensors`,
  ]);
  assert.equal(cudnn.code, 3, cudnn.stderr);
  assert.match(cudnn.stderr, /NOT_VERIFIED: attention backend 'cudnn-sdpa'/);
});

Deno.test("model forward: more SMs than the GPU's chip is refused, fewer is NOT_VERIFIED (exit 3), as an audit would say", async () => {
  const ckpt = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;
  const many = await forward(ckpt, `${tmp}/sms-many.safetensors`, ["--sms", "200"]);
  assert.equal(many.code, 2, many.stderr);
  assert.match(many.stderr, /^error \[USAGE\]: .*multiProcessorCount 200 on a 'a100'/);
  const few = await forward(ckpt, `${tmp}/sms-few.safetensors`, ["--sms", "98"]);
  assert.equal(few.code, 3, few.stderr);
  assert.match(few.stderr, /NOT_VERIFIED: multiProcessorCount 98 below the 'a100' chip's 108 SMs/);
  for (const f of ["sms-many", "sms-few"]) {
    await assert.rejects(Deno.stat(`${tmp}/${f}.safetensors`), Deno.errors.NotFound);
  }
});

Deno.test("model forward refuses a stack that cannot run on the GPU (exit 2), as claims append does and an audit FAILs, before any NOT_VERIFIED", async () => {
  const ckpt = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;
  const flat = `${tmp}/flat.json`;
  await Deno.writeTextFile(flat, JSON.stringify({ sequences: [[1, 2, 3], [7, 8]] }));
  const cases: [string, string[], RegExp][] = [
    // FlashAttention-3 (sm_90 only) on an A100: had been NOT_VERIFIED (exit 3) as not modelled.
    [
      "fa3-a100",
      [
        "--stack",
        "vllm-0.11-eager-fa3-hopper",
        "--profile",
        "a100",
        "--kernel",
        "demo-qwen3-tiny-a100",
      ],
      /stack 'vllm-0\.11-eager-fa3-hopper': attention backend 'fa3-vllm' cannot run on sm_80/,
    ],
    // FlashAttention-2 (sm_80 and later) on a V100: had been NOT_VERIFIED for its SM count.
    [
      "fa2-v100",
      ["--stack", "cutlass-3.5-hf-flash-attn", "--profile", "v100", "--sms", "80"],
      /stack 'cutlass-3\.5-hf-flash-attn': attention backend 'fa2-dao-fastmath' cannot run on sm_70/,
    ],
  ];
  for (const [name, extra, message] of cases) {
    const out = `${tmp}/arch-${name}.safetensors`;
    const tokens = name === "fa3-a100" ? flat : TOKENS; // vLLM flattens: no pad token
    const r = await runBitaudit([
      ...["model", "forward", "--checkpoint", ckpt, "--tokens", tokens, "--out", out],
      ...extra,
    ]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assertCliCode(r.stderr, "USAGE");
    assert.match(r.stderr, message);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});

Deno.test("model forward refuses kernel flags its stack does not take, as claims append and model classes do", async () => {
  const ckpt = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;
  const cases: [string, string[], RegExp][] = [
    // Review h56: the recipe was never looked up, the catalog's kernels ran (exit 0).
    ["both", ["--recipe", "no-such-recipe"], /give --kernel or --recipe, not both/],
    // A recipe stack: --kernel was left unread and the default recipe ran (exit 0).
    [
      "recipe-stack",
      ["--stack", "cutlass-3.5-hf-flash-attn"],
      /stack 'cutlass-3\.5-hf-flash-attn' takes its GEMM kernels from a recipe: give --recipe, not --kernel/,
    ],
  ];
  for (const [name, extra, message] of cases) {
    const r = await forward(ckpt, `${tmp}/kernel-${name}.safetensors`, extra);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE");
    assert.match(r.stderr, message);
    await assert.rejects(Deno.stat(`${tmp}/kernel-${name}.safetensors`), Deno.errors.NotFound);
  }
});

Deno.test("model forward refuses unequal sequences without a pad token on a padding stack, as claims append does", async () => {
  const unpadded = `${tmp}/unpadded.json`;
  await Deno.writeTextFile(unpadded, JSON.stringify({ sequences: [[1], [1, 2]] }));
  const r = await forward(`${REPO_ROOT}/tables/models/qwen3-tiny-dense`, `${tmp}/unpadded.st`, [
    "--tokens",
    unpadded,
  ]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "TOKENS_INVALID");
  assert.match(r.stderr, /must name its padTokenId/);
  await assert.rejects(Deno.stat(`${tmp}/unpadded.st`), Deno.errors.NotFound);
  // A stack that flattens the batch pads nothing: a pad token there is refused, as at append.
  const flat = await forward(`${REPO_ROOT}/tables/models/qwen3-tiny-dense`, `${tmp}/flat.st`, [
    "--stack",
    "vllm-0.11-eager-fa2",
  ]);
  assert.equal(flat.code, 2, flat.stderr);
  assertCliCode(flat.stderr, "TOKENS_INVALID");
  assert.match(flat.stderr, /flattens the batch .*leave padTokenId out/);
});

Deno.test("model forward refuses a batch whose padded activation is over the verifier's limit before laying it out (it had ended in an internal error)", async () => {
  // One 33,000-token sequence beside 4,095 one-token ones pads to 135 M rows.
  const tokens = `${tmp}/padded.json`;
  const long = Array.from({ length: 33_000 }, (_, i) => 1 + (i % 100));
  const batch = [long, ...Array.from({ length: 4095 }, () => [1])];
  await Deno.writeTextFile(tokens, JSON.stringify({ sequences: batch, padTokenId: 0 }));
  const r = await forward(`${REPO_ROOT}/tables/models/qwen3-tiny-dense`, `${tmp}/padded.st`, [
    "--tokens",
    tokens,
  ]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "TOKENS_INVALID");
  assert.match(r.stderr, /activation \[135168000, 768\] .*over the verifier's limit of 2\^28/);
  await assert.rejects(Deno.stat(`${tmp}/padded.st`), Deno.errors.NotFound);
});

Deno.test("model forward: a head dimension the FA2 model has no tiles for is NOT_VERIFIED (exit 3), as an audit says, not an internal error", async () => {
  const base = JSON.parse(
    await Deno.readTextFile(`${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`),
  );
  const config = `${tmp}/hd40.json`;
  await Deno.writeTextFile(
    config,
    JSON.stringify({
      ...base,
      head_dim: 40,
      num_hidden_layers: 1,
      max_window_layers: 1,
      vocab_size: 64,
      intermediate_size: 64,
    }),
  );
  const ckpt = `${tmp}/hd40`;
  const synth = await runBitaudit([
    "model",
    "synth",
    "--config",
    config,
    "--seed",
    "1",
    "--out",
    ckpt,
  ]);
  assert.equal(synth.code, 0, synth.stderr);
  const r = await runBitaudit([
    "model",
    "forward",
    "--checkpoint",
    ckpt,
    "--tokens",
    TOKENS,
    "--profile",
    "a100",
    "--stack",
    "cutlass-3.5-hf-flash-attn",
    "--out",
    `${tmp}/hd40.safetensors`,
    "--threads",
    "1",
  ]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stderr,
    /^NOT_VERIFIED: attention backend '.*': .*head dimension 40 is not modelled/,
  );
  assert.doesNotMatch(r.stderr, /internal error/);
  await assert.rejects(Deno.stat(`${tmp}/hd40.safetensors`), Deno.errors.NotFound);
});

Deno.test("model forward refuses a config its stack does not load (exit 2), as claims append refuses it and an audit FAILs it, before any NOT_VERIFIED", async () => {
  const moe = `${REPO_ROOT}/tables/models/qwen3-tiny-moe`;
  const ckpt = `${tmp}/step-float`;
  await Deno.mkdir(ckpt);
  for (const f of ["model-00001-of-00002", "model-00002-of-00002"]) {
    await Deno.copyFile(`${moe}/${f}.safetensors`, `${ckpt}/${f}.safetensors`);
  }
  await Deno.copyFile(
    `${moe}/model.safetensors.index.json`,
    `${ckpt}/model.safetensors.index.json`,
  );
  // Transformers 5's typed config refuses decoder_sparse_step 1.0 (an int field).
  const config = (await Deno.readTextFile(`${moe}/config.json`))
    .replace(/"decoder_sparse_step":\s*1\b/, '"decoder_sparse_step": 1.0');
  assert.match(config, /"decoder_sparse_step": 1\.0/);
  await Deno.writeTextFile(`${ckpt}/config.json`, config);
  const r = await runBitaudit([
    ...["model", "forward", "--checkpoint", ckpt, "--tokens", TOKENS, "--profile", "h100-sxm"],
    ...["--stack", "hf-qwen3-sdpa-torch2.11-hopper", "--kernel", "demo-qwen3-tiny-h100-sxm"],
    ...["--out", `${tmp}/step-float.safetensors`],
  ]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(
    r.stderr,
    /^error \[USAGE\]: Cannot run forward: stack 'hf-qwen3-sdpa-torch2\.11-hopper' runs HF Transformers: the config writes decoder_sparse_step as a float/,
  );
  await assert.rejects(Deno.stat(`${tmp}/step-float.safetensors`), Deno.errors.NotFound);
});

Deno.test("model forward refuses a config value not modelled that its stack does not load either (head_dim 0, hidden_act 'SiLU' on HF) as that stack's refusal (exit 2), not as not modelled", async () => {
  const dense = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;
  const base = JSON.parse(await Deno.readTextFile(`${dense}/config.json`));
  for (
    const [name, edit, why] of [
      ["hd0", { head_dim: 0 }, /the config's head_dim is 0/],
      ["act", { hidden_act: "SiLU" }, /hidden_act '"SiLU"' is not in Transformers 4\.5x's ACT2FN/],
    ] as const
  ) {
    const ckpt = `${tmp}/unloadable-${name}`;
    await Deno.mkdir(ckpt);
    await Deno.copyFile(`${dense}/model.safetensors`, `${ckpt}/model.safetensors`);
    await Deno.writeTextFile(`${ckpt}/config.json`, JSON.stringify({ ...base, ...edit }));
    const r = await forward(ckpt, `${tmp}/unloadable-${name}.safetensors`, ["--threads", "1"]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /^error \[USAGE\]: Cannot run forward: stack 'hf-qwen3-flash-attn-torch2\.8' runs HF Transformers: /,
    );
    assert.match(r.stderr, why);
  }
});

Deno.test("model forward: a RoPE given only in rope_parameters is NOT_VERIFIED (exit 3) on a Transformers 4.5x stack, as claims append and an audit say", async () => {
  const dense = `${REPO_ROOT}/tables/models/qwen3-tiny-dense`;
  const { rope_theta: theta, ...base } = JSON.parse(
    await Deno.readTextFile(`${dense}/config.json`),
  );
  const ckpt = `${tmp}/rope5`;
  await Deno.mkdir(ckpt);
  await Deno.copyFile(`${dense}/model.safetensors`, `${ckpt}/model.safetensors`);
  await Deno.writeTextFile(
    `${ckpt}/config.json`,
    JSON.stringify({ ...base, rope_parameters: { rope_type: "default", rope_theta: theta } }),
  );
  const r = await forward(ckpt, `${tmp}/rope5.safetensors`, ["--threads", "1"]);
  assert.equal(r.code, 3, r.stderr);
  assert.match(
    r.stderr,
    /^NOT_VERIFIED: the config gives its RoPE .* only Transformers 5 reads \(rope_parameters alone.*; stack 'hf-qwen3-flash-attn-torch2\.8' \(transformers 4\.5x\) reads it otherwise/,
  );
  await assert.rejects(Deno.stat(`${tmp}/rope5.safetensors`), Deno.errors.NotFound);
});
