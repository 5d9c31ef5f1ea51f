import assert from "node:assert/strict";
import { InputError } from "../../../src/errors.ts";
import {
  bytesByteSource,
  checkpointDigest,
  digestOfFiles,
  encodeSafetensors,
  openDecoderCheckpoint,
  openSafetensors,
  type SafetensorsTensorInput,
  sha256OfSource,
  tiedHeadReadingGap,
} from "../../../src/model/mod.ts";
import { checkpointDir } from "../../../src/assets/mod.ts";
import { BF16, convert, FP16 } from "../../../src/numerics/mod.ts";
import { nativeSha256 } from "../../../src/cli/native_sha256.ts";
import { sha256Hex } from "../../../src/sha256_hex.ts";
import {
  type MemDir,
  memFiles,
  rewrite,
  synthDir,
  TINY_DENSE,
  TINY_MOE,
} from "./_checkpoint_fixture.ts";

async function code(p: Promise<unknown>): Promise<[string, string]> {
  try {
    await p;
  } catch (e) {
    if (e instanceof InputError) return [e.code, e.message];
    throw e;
  }
  throw new Error("expected a coded error");
}

Deno.test("openDecoderCheckpoint() reads a tied single-file dense checkpoint", async () => {
  const ckpt = await openDecoderCheckpoint(memFiles(synthDir(TINY_DENSE)));
  assert.equal(ckpt.sharded, false);
  assert.deepStrictEqual(ckpt.files, ["model.safetensors"]);
  const emb = await ckpt.tensor("model.embed_tokens.weight");
  assert.deepStrictEqual(await ckpt.tensor("lm_head.weight"), emb); // tied
  const rows = await ckpt.rows("model.embed_tokens.weight", [5, 0]);
  assert.deepStrictEqual(rows.subarray(0, 256), emb.subarray(5 * 256, 6 * 256));
  assert.deepStrictEqual(rows.subarray(256), emb.subarray(0, 256));
});

Deno.test("openDecoderCheckpoint() reads a sharded MoE checkpoint with the same values", async () => {
  const one = await openDecoderCheckpoint(memFiles(synthDir(TINY_MOE)));
  const three = await openDecoderCheckpoint(memFiles(synthDir(TINY_MOE, { shards: 3 })));
  assert.equal(three.sharded, true);
  assert.equal(three.files.length, 3);
  for (const name of ["model.layers.1.mlp.experts.7.down_proj.weight", "lm_head.weight"]) {
    assert.deepStrictEqual(await three.tensor(name), await one.tensor(name));
  }
});

Deno.test("checkpointDigest() follows the stated rule and streams each file", async () => {
  const dir = synthDir(TINY_MOE, { shards: 2 });
  const ckpt = await openDecoderCheckpoint(memFiles(dir));
  const d = await checkpointDigest(ckpt);
  const files: Record<string, string> = {};
  for (const name of ckpt.files) files[name] = sha256Hex(dir.get(name)!);
  assert.deepStrictEqual(d.files, files);
  const text = JSON.stringify({ files, schema: "bitaudit.checkpoint-digest/v1" });
  assert.equal(d.sha256, sha256Hex(new TextEncoder().encode(text)));
  assert.equal(d.sha256, digestOfFiles(files));
  assert.equal(ckpt.configSha256, sha256Hex(dir.get("config.json")!));
  assert.deepStrictEqual(await checkpointDigest(ckpt, { hasher: nativeSha256 }), d);
});

Deno.test("sha256OfSource() gives the same digest with the native and the portable hasher", async () => {
  // 40 MiB + 3: three 16 MiB reads, the last one short; a deliberately wrong hasher differs.
  const bytes = new Uint8Array((40 << 20) + 3);
  let x = 0x12345678;
  for (let i = 0; i < bytes.length; i += 97) bytes[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  const source = {
    size: bytes.length,
    read: (o: number, n: number) => Promise.resolve(bytes.subarray(o, o + n)),
  };
  const portable = await sha256OfSource(source);
  assert.equal(portable, sha256Hex(bytes));
  assert.equal(await sha256OfSource(source, { hasher: nativeSha256 }), portable);
  const skipsLast = () => {
    const h = nativeSha256();
    return {
      update: (b: Uint8Array) => h.update(b.subarray(0, Math.max(0, b.length - 1))),
      hex: h.hex,
    };
  };
  assert.notEqual(await sha256OfSource(source, { hasher: skipsLast }), portable);
});

/** A tensor as F64 zeros of its shape (a dtype whose cast to BF16 is not modelled). */
function f64(t: { name: string; shape: readonly number[] }): SafetensorsTensorInput {
  const n = t.shape.reduce((a, b) => a * b, 1);
  return { name: t.name, dtype: "F64", shape: [...t.shape], data: new BigUint64Array(n) };
}

Deno.test("openDecoderCheckpoint() refuses malformed checkpoints with codes naming the tensor", async () => {
  const dense = synthDir(TINY_DENSE);
  const file = "model.safetensors";
  const norm = "model.layers.1.post_attention_layernorm.weight";
  const cases: [Promise<Map<string, Uint8Array>>, string, string][] = [
    [
      rewrite(dense, file, (t) => t.filter((x) => x.name !== norm)),
      "CHECKPOINT_MISSING_TENSOR",
      norm,
    ],
    [
      rewrite(
        dense,
        file,
        (t) => [...t, { name: "model.extra", dtype: "BF16", shape: [1], data: new Uint16Array(1) }],
      ),
      "CHECKPOINT_LOAD_UNMODELLED",
      "model.extra",
    ],
    [
      rewrite(dense, file, (t) => t.map((x) => x.name === norm ? f64(x) : x)),
      "CHECKPOINT_LOAD_UNMODELLED",
      norm,
    ],
    [
      rewrite(dense, file, (t) => t.map((x) => x.name === norm ? { ...x, shape: [128, 2] } : x)),
      "CHECKPOINT_SHAPE",
      norm,
    ],
    [
      Promise.resolve(new Map([...dense].filter(([k]) => k !== file))),
      "CHECKPOINT_NO_WEIGHTS",
      file,
    ],
    [
      Promise.resolve(new Map([...dense].filter(([k]) => k !== "config.json"))),
      "CHECKPOINT_NO_CONFIG",
      "config.json",
    ],
  ];
  for (const [dir, want, name] of cases) {
    const [got, msg] = await code(openDecoderCheckpoint(memFiles(await dir)));
    assert.equal(got, want, msg);
    assert.ok(msg.includes(name), `${msg} does not name ${name}`);
  }
});

Deno.test("openDecoderCheckpoint() refuses a load it does not model only after every other check: a missing or misshapen tensor still gets its code", async () => {
  const dense = synthDir(TINY_DENSE);
  const file = "model.safetensors";
  const norm = "model.layers.1.post_attention_layernorm.weight";
  const first = "model.layers.0.input_layernorm.weight";
  const f32 = (t: { name: string; shape: readonly number[] }) => ({
    name: t.name,
    dtype: "F32" as const,
    shape: [...t.shape],
    data: new Float32Array(t.shape.reduce((a, b) => a * b, 1)),
  });
  const cases: [string, Promise<Map<string, Uint8Array>>, string, RegExp][] = [
    [
      "an F32 tensor, then a missing one",
      rewrite(
        dense,
        file,
        (t) => t.filter((x) => x.name !== norm).map((x) => x.name === first ? f32(x) : x),
      ),
      "CHECKPOINT_MISSING_TENSOR",
      /'model\.layers\.1\.post_attention_layernorm\.weight' is missing/,
    ],
    [
      "an extra tensor, and a misshapen one",
      rewrite(dense, file, (t) => [
        ...t.map((x) => x.name === norm ? { ...x, shape: [128, 2] } : x),
        { name: "model.extra", dtype: "BF16", shape: [1], data: new Uint16Array(1) },
      ]),
      "CHECKPOINT_SHAPE",
      /post_attention_layernorm/,
    ],
    [
      "an F64 tensor alone",
      rewrite(dense, file, (t) => t.map((x) => x.name === first ? f64(x) : x)),
      "CHECKPOINT_LOAD_UNMODELLED",
      /'model\.layers\.0\.input_layernorm\.weight' is F64, not BF16, F32 or F16 \(loaders cast/,
    ],
    [
      "an F32 tensor holding a NaN, and a misshapen one",
      rewrite(
        dense,
        file,
        (t) =>
          t.map((x) =>
            x.name === first
              ? { ...f32(x), data: new Float32Array([NaN, ...f32(x).data.subarray(1)]) }
              : x.name === norm
              ? { ...x, shape: [128, 2] }
              : x
          ),
      ),
      "CHECKPOINT_SHAPE",
      /post_attention_layernorm/,
    ],
  ];
  for (const [what, dir, want, message] of cases) {
    const [got, msg] = await code(openDecoderCheckpoint(memFiles(await dir)));
    assert.equal(got, want, `${what}: ${msg}`);
    assert.match(msg, message, what);
  }
});

Deno.test('openDecoderCheckpoint() with unmodelled: "keep" opens weights it does not model, their config and metadata read, the refusal in unmodelled and their tensors unreadable', async () => {
  const dense = synthDir(TINY_DENSE);
  const first = "model.layers.0.input_layernorm.weight";
  const dir = await rewrite(
    dense,
    "model.safetensors",
    (t) => t.map((x) => x.name === first ? f64(x) : x),
  );
  const [refused, message] = await code(openDecoderCheckpoint(memFiles(dir)));
  assert.equal(refused, "CHECKPOINT_LOAD_UNMODELLED", message);
  const kept = await openDecoderCheckpoint(memFiles(dir), { unmodelled: "keep" });
  assert.equal(kept.unmodelled, message);
  assert.equal(kept.config.layers, TINY_DENSE.num_hidden_layers);
  assert.deepEqual(kept.files, ["model.safetensors"]);
  assert.ok("model.safetensors" in kept.weightFormats);
  // Nothing is computed from such weights: the modelled tensors are refused as well.
  for (const read of [() => kept.tensor("model.norm.weight"), () => kept.rows(first, [0])]) {
    assert.deepEqual(await code(read()), [refused, message]);
  }
  // Weights it models come back as ever.
  const plain = await openDecoderCheckpoint(memFiles(dense), { unmodelled: "keep" });
  assert.ok(!("unmodelled" in plain));
  assert.equal((await plain.tensor("model.norm.weight")).length, TINY_DENSE.hidden_size);
});

Deno.test('openDecoderCheckpoint() with unmodelled: "keep" lists the tensors missing, in the config\'s order, and stops once more are missing than stored', async () => {
  const gone = ["model.layers.0.mlp.up_proj.weight", "model.norm.weight"];
  const dir = await rewrite(
    synthDir(TINY_DENSE),
    "model.safetensors",
    (t) => t.filter((x) => !gone.includes(x.name)),
  );
  const [refused, message] = await code(openDecoderCheckpoint(memFiles(dir)));
  assert.equal(refused, "CHECKPOINT_MISSING_TENSOR", message);
  const kept = await openDecoderCheckpoint(memFiles(dir), { unmodelled: "keep" });
  assert.deepEqual(kept.missingTensors, gone);
  assert.ok(!("unmodelled" in kept));
  assert.equal((await code(kept.tensor(gone[1]!)))[0], "CHECKPOINT_MISSING_TENSOR");
  assert.equal((await kept.tensor("model.embed_tokens.weight")).length > 0, true);
  // A single tensor stored: the walk stops at the second one missing.
  const one = await rewrite(
    synthDir(TINY_DENSE),
    "model.safetensors",
    (t) => t.filter((x) => x.name === "model.norm.weight"),
  );
  const few = await openDecoderCheckpoint(memFiles(one), { unmodelled: "keep" });
  assert.equal(few.missingTensors?.length, 2);
  const plain = await openDecoderCheckpoint(memFiles(synthDir(TINY_DENSE)), { unmodelled: "keep" });
  assert.ok(!("missingTensors" in plain));
});

/** BF16 patterns stored as F32 with these low 16 bits, per pattern. */
function asF32(x: SafetensorsTensorInput, low: (bf16: number) => number): SafetensorsTensorInput {
  const bf16 = x.data as Uint16Array;
  const bits = Uint32Array.from(bf16, (b) => ((b << 16) | low(b)) >>> 0);
  return { name: x.name, dtype: "F32", shape: x.shape, data: bits };
}

Deno.test("openDecoderCheckpoint() reads F32 and F16 tensors cast to BF16 as the loaders do (they had been refused)", async () => {
  const dense = synthDir(TINY_DENSE);
  const file = "model.safetensors";
  const plain = await openDecoderCheckpoint(memFiles(dense));
  const emb = "model.embed_tokens.weight";
  const q = "model.layers.0.self_attn.q_proj.weight";
  const norm0 = "model.layers.0.input_layernorm.weight";
  const norm1 = "model.layers.1.post_attention_layernorm.weight";
  const final = "model.norm.weight";
  const cast = await rewrite(dense, file, (t) =>
    t.map((x) => {
      // Exact values; ties and values below the tie that round back (nearest-even keeps the
      // even kept parts at a tie, the odd ones below it); an F16 copy of values F16 holds.
      if (x.name === emb || x.name === q) return asF32(x, () => 0);
      if (x.name === norm0) return asF32(x, (b) => (b & 1) === 0 ? 0x8000 : 0x7fff);
      if (x.name === norm1) {
        const data = Uint16Array.from(x.data as Uint16Array, (b) => convert(BF16, FP16, b));
        return { ...x, dtype: "F16", data };
      }
      return x;
    }));
  const ckpt = await openDecoderCheckpoint(memFiles(cast));
  assert.deepEqual(ckpt.castTensors, { [emb]: "F32", [q]: "F32", [norm0]: "F32", [norm1]: "F16" });
  assert.deepEqual(plain.castTensors, {});
  for (const name of [emb, q, norm0, norm1, final, "lm_head.weight"]) {
    assert.deepEqual(await ckpt.tensor(name), await plain.tensor(name), name);
  }
  assert.deepEqual(await ckpt.rows(emb, [63, 0, 7]), await plain.rows(emb, [63, 0, 7]));
  // Past the tie, every value rounds up to the next BF16 pattern (none is at the largest).
  const up = await rewrite(
    dense,
    file,
    (t) => t.map((x) => x.name === final ? asF32(x, () => 0x8001) : x),
  );
  const want = (await plain.tensor(final)).map((b) => b + 1);
  assert.deepEqual(await (await openDecoderCheckpoint(memFiles(up))).tensor(final), want);
});

Deno.test("openDecoderCheckpoint() refuses an F32 or F16 tensor holding a NaN as a load it does not model, naming the element", async () => {
  const dense = synthDir(TINY_DENSE);
  const file = "model.safetensors";
  const norm = "model.layers.1.input_layernorm.weight";
  const cases: [string, (x: SafetensorsTensorInput) => SafetensorsTensorInput, RegExp][] = [
    [
      "F32",
      (x) => {
        const y = asF32(x, () => 0);
        (y.data as Uint32Array)[5] = 0x7fc00000;
        return y;
      },
      /'model\.layers\.1\.input_layernorm\.weight' is F32 and holds a NaN \(element 5\)/,
    ],
    [
      "F16",
      (x) => ({
        ...x,
        dtype: "F16",
        data: Uint16Array.from(x.data as Uint16Array, (_, i) => i === 200 ? 0xfe00 : 0x3c00),
      }),
      /is F16 and holds a NaN \(element 200\)/,
    ],
  ];
  for (const [what, edit, message] of cases) {
    const dir = await rewrite(dense, file, (t) => t.map((x) => x.name === norm ? edit(x) : x));
    const [got, msg] = await code(openDecoderCheckpoint(memFiles(dir)));
    assert.equal(got, "CHECKPOINT_LOAD_UNMODELLED", `${what}: ${msg}`);
    assert.match(msg, message, what);
  }
});

Deno.test("openDecoderCheckpoint() reads an F32 tensor a bounded chunk at a time, at open and on read", async () => {
  // An 8 MiB F32 embedding (8192 x 256): reads of at most 4 MiB, the BF16 values as stored.
  const config = { ...TINY_DENSE, vocab_size: 8192 };
  const dense = synthDir(config);
  const emb = "model.embed_tokens.weight";
  const cast = await rewrite(
    dense,
    "model.safetensors",
    (t) => t.map((x) => x.name === emb ? asF32(x, () => 0) : x),
  );
  let widest = 0;
  const files = {
    open: (name: string) => {
      const b = cast.get(name);
      if (b === undefined) return Promise.resolve(null);
      const src = bytesByteSource(b);
      return Promise.resolve({
        size: src.size,
        read: (offset: number, length: number) => {
          widest = Math.max(widest, length);
          return src.read(offset, length);
        },
      });
    },
  };
  const ckpt = await openDecoderCheckpoint(files);
  const plain = await openDecoderCheckpoint(memFiles(dense));
  assert.deepEqual(await ckpt.tensor(emb), await plain.tensor(emb));
  assert.ok(widest <= 4 << 20, `a read of ${widest} bytes`);
});

Deno.test("openDecoderCheckpoint() skips old checkpoints' per-layer RoPE buffers, as the loaders do", async () => {
  const dense = synthDir(TINY_DENSE);
  const plain = await openDecoderCheckpoint(memFiles(dense));
  const buffer = (layer: string) => ({
    name: `model.layers.${layer}.self_attn.rotary_emb.inv_freq`,
    dtype: "F32" as const,
    shape: [64],
    data: new Float32Array(64),
  });
  const old = await rewrite(dense, "model.safetensors", (t) => [...t, buffer("0"), buffer("1")]);
  const opened = await openDecoderCheckpoint(memFiles(old));
  assert.deepEqual(opened.config, plain.config);
  // Only that name: anything else beside it is still refused.
  const near = await rewrite(dense, "model.safetensors", (t) => [
    ...t,
    { ...buffer("0"), name: "model.layers.0.self_attn.rotary_emb.cos_cached" },
  ]);
  assert.equal(
    (await code(openDecoderCheckpoint(memFiles(near))))[0],
    "CHECKPOINT_LOAD_UNMODELLED",
  );
});

Deno.test("openDecoderCheckpoint() refuses an index that disagrees with its shards", async () => {
  const moe = synthDir(TINY_MOE, { shards: 2 });
  const idx = "model.safetensors.index.json";
  const map = JSON.parse(new TextDecoder().decode(moe.get(idx)!));
  const shard2 = "model-00002-of-00002.safetensors";
  const missing = new Map(moe);
  missing.delete(shard2);
  assert.equal(
    (await code(openDecoderCheckpoint(memFiles(missing))))[0],
    "CHECKPOINT_MISSING_FILE",
  );
  const name = Object.keys(map.weight_map)[0]!;
  const moved = new Map(moe);
  const other = map.weight_map[name] === shard2 ? "model-00001-of-00002.safetensors" : shard2;
  moved.set(
    idx,
    new TextEncoder().encode(
      JSON.stringify({ ...map, weight_map: { ...map.weight_map, [name]: other } }),
    ),
  );
  const [c, msg] = await code(openDecoderCheckpoint(memFiles(moved)));
  assert.equal(c, "CHECKPOINT_INDEX");
  assert.ok(msg.includes(name));
  const escape = new Map(moe);
  escape.set(
    idx,
    new TextEncoder().encode(JSON.stringify({ weight_map: { [name]: "../x.safetensors" } })),
  );
  assert.equal((await code(openDecoderCheckpoint(memFiles(escape))))[0], "CHECKPOINT_INDEX");
});

Deno.test("openDecoderCheckpoint() refuses a folder holding both model.safetensors and an index with its shards, naming both", async () => {
  // HF Transformers loads model.safetensors and never reads the index; vLLM reads the shards.
  const both = new Map([
    ...synthDir(TINY_MOE, { shards: 2 }),
    ["model.safetensors", synthDir(TINY_MOE, { seed: "other" }).get("model.safetensors")!],
  ]);
  const [c, msg] = await code(openDecoderCheckpoint(memFiles(both)));
  assert.equal(c, "CHECKPOINT_INDEX");
  assert.match(msg, /both model\.safetensors and model\.safetensors\.index\.json/);
  // Each alone opens.
  const single = new Map(
    [...both].filter(([k]) => k === "config.json" || k === "model.safetensors"),
  );
  assert.equal((await openDecoderCheckpoint(memFiles(single))).sharded, false);
  const shards = new Map(both);
  shards.delete("model.safetensors");
  assert.equal((await openDecoderCheckpoint(memFiles(shards))).sharded, true);
  // A claim naming its weight files reads those, without the index.
  await openDecoderCheckpoint(memFiles(both), { weightFiles: ["model.safetensors"] });
});

Deno.test("bundled tiny checkpoints open from disk (dense single file, MoE sharded) with their files streamed", async () => {
  for (const [name, sharded] of [["qwen3-tiny-dense", false], ["qwen3-tiny-moe", true]] as const) {
    using files = await checkpointDir(
      new URL(`../../../tables/models/${name}`, import.meta.url).pathname,
    );
    const ckpt = await openDecoderCheckpoint(files);
    assert.equal(ckpt.sharded, sharded);
    for (const f of ckpt.files) {
      assert.equal(
        await sha256OfSource(ckpt.file(f)),
        sha256Hex(await Deno.readFile(`${files.dir}/${f}`)),
      );
    }
  }
});

Deno.test("openDecoderCheckpoint() refuses a config naming millions of tensors over a file holding none, at the first missing one", async () => {
  // 1,024 MoE layers of 4,096 experts name about 12.6 million tensors: the reader compares them
  // with the files one by one and stops at the first missing, never listing them all.
  const config = { ...TINY_MOE, num_hidden_layers: 1024, num_experts: 4096, mlp_only_layers: [] };
  const dir = new Map([
    ["config.json", new TextEncoder().encode(JSON.stringify(config))],
    ["model.safetensors", encodeSafetensors([])],
  ]);
  const [c, message] = await code(openDecoderCheckpoint(memFiles(dir)));
  assert.equal(c, "CHECKPOINT_MISSING_TENSOR");
  assert.match(message, /'model\.embed_tokens\.weight' is missing/);
});

Deno.test("openDecoderCheckpoint() bounds each header's parse by the tensors its config explains", async () => {
  const dense = synthDir(TINY_DENSE);
  // Everything the reader accepts at once: every required tensor, a RoPE buffer per layer, a tied
  // lm_head copy and the most metadata entries: within the budget.
  const st = await openSafetensors(bytesByteSource(dense.get("model.safetensors")!));
  const tensors: SafetensorsTensorInput[] = [];
  for (const e of st.header.tensors) {
    const data = (await st.tensorView(e.name)).slice() as SafetensorsTensorInput["data"];
    tensors.push({ name: e.name, dtype: e.dtype, shape: e.shape, data });
  }
  const embed = tensors.find((t) => t.name === "model.embed_tokens.weight")!;
  for (const layer of [0, 1]) {
    const name = `model.layers.${layer}.self_attn.rotary_emb.inv_freq`;
    tensors.push({ name, dtype: "F32", shape: [64], data: new Float32Array(64) });
  }
  tensors.push({ ...embed, name: "lm_head.weight" });
  const metadata = Object.fromEntries(Array.from({ length: 1024 }, (_, i) => [`k${i}`, "v"]));
  const full = new Map(dense).set("model.safetensors", encodeSafetensors(tensors, { metadata }));
  await openDecoderCheckpoint(memFiles(full));
  // Thousands of empty tensors (as cheap to write as metadata entries): the parse stops at the
  // budget instead of reading them all, and says why.
  const junk = Array.from({ length: 4000 }, (_, i): SafetensorsTensorInput => ({
    name: `x${i}`,
    dtype: "U8",
    shape: [0],
    data: new Uint8Array(0),
  }));
  const big = new Map(dense).set("model.safetensors", encodeSafetensors([...tensors, ...junk]));
  const [c, message] = await code(openDecoderCheckpoint(memFiles(big)));
  assert.equal(c, "SAFETENSORS_HEADER_TOO_LARGE", message);
  assert.match(message, /bitaudit reads no metadata/);
});

Deno.test("openDecoderCheckpoint() reads config.json as Python does: a byte-order mark and an integer written 256.0 are refused, floats elsewhere kept", async () => {
  const dense = synthDir(TINY_DENSE);
  const text = new TextDecoder().decode(dense.get("config.json")!);
  const withConfig = (t: string) =>
    memFiles(new Map([...dense, ["config.json", new TextEncoder().encode(t)]]));
  // A float field written as a float, and an exponent on a float field, are what HF writes.
  const config = JSON.parse(text);
  const floats = JSON.stringify({ ...config, rms_norm_eps: 1e-6 }).replace(
    /"rms_norm_eps":[^,}]+/,
    '"rms_norm_eps":1e-06',
  );
  await openDecoderCheckpoint(withConfig(floats));
  const [bom, bomMsg] = await code(openDecoderCheckpoint(withConfig("\ufeff" + text)));
  assert.equal(bom, "CHECKPOINT_JSON", bomMsg);
  assert.match(bomMsg, /byte-order mark/);
  for (const form of ["256.0", "2.56e2", "256E0"]) {
    const t = text.replace(/"hidden_size":\s*256/, `"hidden_size": ${form}`);
    assert.notEqual(t, text);
    const [got, msg] = await code(openDecoderCheckpoint(withConfig(t)));
    assert.equal(got, "CONFIG_FIELD", `${form}: ${msg}`);
    assert.match(msg, /hidden_size must be an integer, but it is written as a fraction/);
  }
});

Deno.test("openDecoderCheckpoint(): a tied checkpoint that also stores lm_head.weight reads the embedding (Transformers 4.5x, vLLM) and says so, for Transformers 5 stacks to refuse", async () => {
  const dense = synthDir(TINY_DENSE);
  const plain = await openDecoderCheckpoint(memFiles(dense));
  assert.equal(plain.storedTiedHead, false);
  const head = {
    name: "lm_head.weight",
    dtype: "BF16" as const,
    shape: [TINY_DENSE.vocab_size, TINY_DENSE.hidden_size],
    data: new Uint16Array(TINY_DENSE.vocab_size * TINY_DENSE.hidden_size).fill(0x3f80),
  };
  const stored = await openDecoderCheckpoint(
    memFiles(await rewrite(dense, "model.safetensors", (t) => [...t, head])),
  );
  assert.equal(stored.storedTiedHead, true);
  assert.deepStrictEqual(
    await stored.tensor("lm_head.weight"),
    await stored.tensor("model.embed_tokens.weight"),
  );
  const on = (transformers: string) => ({ components: { transformers } });
  assert.equal(tiedHeadReadingGap(stored, on("4.5x")), null);
  assert.match(tiedHeadReadingGap(stored, on("5.x")) ?? "", /Transformers 5 keeps untied/);
  assert.equal(tiedHeadReadingGap(plain, on("5.x")), null);
});

Deno.test("openDecoderCheckpoint(): a folder named model.safetensors is not weights (as HF's isfile reads it), and the refusal says a regular file is wanted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-ckpt-folder-" });
  try {
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(TINY_DENSE));
    await Deno.mkdir(`${dir}/model.safetensors`);
    using files = await checkpointDir(dir);
    const [c, message] = await code(openDecoderCheckpoint(files));
    assert.equal(c, "CHECKPOINT_NO_WEIGHTS");
    assert.match(message, /neither model\.safetensors nor .* in the directory as a regular file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openDecoderCheckpoint() refuses a listable folder holding a *.safetensors beside its weight files, as an ambiguous weight set", async () => {
  // vLLM, without an index, loads every *.safetensors of the folder; HF Transformers loads
  // model.safetensors alone. Before, the stray file was silently left out.
  const listed = (dir: MemDir, extra: readonly string[] = []) => ({
    ...memFiles(dir),
    names: async function* () {
      yield* [...dir.keys(), ...extra];
    },
  });
  const single = synthDir(TINY_DENSE);
  const norm = (await openSafetensors(bytesByteSource(single.get("model.safetensors")!)))
    .entry("model.norm.weight");
  const extra = encodeSafetensors([
    {
      name: "model.norm.weight",
      dtype: "BF16",
      shape: norm.shape,
      data: new Uint16Array(norm.elementCount),
    },
  ]);
  const stray = new Map([...single, ["extra.safetensors", extra]]);
  const [c, msg] = await code(openDecoderCheckpoint(listed(stray)));
  assert.equal(c, "CHECKPOINT_AMBIGUOUS");
  assert.match(
    msg,
    /'extra\.safetensors' is beside model\.safetensors with no model\.safetensors\.index\.json/,
  );
  // Any kind of entry vLLM's glob matches, named first by name order with the count.
  const [c2, msg2] = await code(
    openDecoderCheckpoint(listed(single, ["z.safetensors", "b\u001b.safetensors"])),
  );
  assert.equal(c2, "CHECKPOINT_AMBIGUOUS");
  assert.match(msg2, /^[\x20-\x7e]+$/);
  assert.match(msg2, /'b\?\.safetensors' \(and 1 other \*\.safetensors\)/);
  // Beside shards, a file the index does not list (vLLM reads a consolidated*.safetensors in
  // their place); the index's own shards are the weights.
  const shards = synthDir(TINY_MOE, { shards: 2 });
  const [c3, msg3] = await code(
    openDecoderCheckpoint(listed(shards, ["consolidated.safetensors"])),
  );
  assert.equal(c3, "CHECKPOINT_AMBIGUOUS");
  assert.match(msg3, /is not among the shards model\.safetensors\.index\.json lists/);
  assert.equal((await openDecoderCheckpoint(listed(shards))).sharded, true);
  // What no loader reads while safetensors weights are there, and hidden files, are left alone.
  const harmless = [
    "pytorch_model.bin",
    "pytorch_model-00001-of-00002.bin",
    "training_args.pt",
    "tokenizer.json",
    "tokenizer_config.json",
    "generation_config.json",
    "README.md",
    ".model.safetensors.swp.safetensors",
    "MODEL.SAFETENSORS",
  ];
  assert.equal((await openDecoderCheckpoint(listed(single, harmless))).sharded, false);
  // A claim's named weight files are what it commits: nothing is listed.
  await openDecoderCheckpoint(listed(stray), { weightFiles: ["model.safetensors"] });
  // Files that cannot be listed (a bundle) are opened as before.
  await openDecoderCheckpoint(memFiles(stray));
});
