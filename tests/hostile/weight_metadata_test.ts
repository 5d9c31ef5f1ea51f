/**
 * A weight file's safetensors `__metadata__` is held to the stack's loader: HF Transformers 4.5x
 * refuses a file whose metadata is present with a `format` other than pt, tf, flax or mlx (an
 * empty map included), so a record over such weights FAILs (it had PASSed: the metadata was never
 * read); tf, flax and mlx files are loaded otherwise (converted) and are NOT_VERIFIED, never PASS;
 * `pt`, no metadata and a `null` one (the reference reader's None; it was refused) PASS. The
 * prover's tools refuse the same files.
 */
import assert from "node:assert/strict";
import { weightMetadataFinding } from "../../src/model/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { runBitaudit } from "../cli/_run.ts";
import { tempDir } from "../_temp.ts";
import { reencode, verifyOver, withHeader } from "./_weight_bytes.ts";
import { falsifiedDenseForward, honestDenseForward } from "./_recompute_fixture.ts";

const { forward, honest, digest } = await honestDenseForward();

/** The weights re-encoded with this metadata (undefined: none). */
function withMetadata(bytes: Uint8Array, metadata?: Record<string, string>) {
  return reencode(bytes, metadata === undefined ? {} : { metadata });
}

/** The weights with `"__metadata__":null` put first in the header. */
function withNullMetadata(bytes: Uint8Array): Uint8Array {
  return withHeader(bytes, (h) => `{"__metadata__":null,${h.slice(1)}`);
}

Deno.test("a record over weights HF Transformers refuses by their metadata FAILs; tf/flax/mlx are NOT_VERIFIED; pt, none and null PASS", async () => {
  const weights = forward.blobs.get(digest)!;
  const cases: [string, Uint8Array, "PASS" | "FAIL" | "NOT_VERIFIED", RegExp?][] = [
    ["format np", await withMetadata(weights, { format: "np" }), "FAIL", /format 'np'/],
    ["an empty map", await withMetadata(weights, {}), "FAIL", /without a 'format' entry/],
    ["no format", await withMetadata(weights, { other: "x" }), "FAIL", /without a 'format'/],
    ["format tf", await withMetadata(weights, { format: "tf" }), "NOT_VERIFIED", /format 'tf'/],
    ["format mlx", await withMetadata(weights, { format: "mlx" }), "NOT_VERIFIED", /'mlx'/],
    ["format pt", await withMetadata(weights, { format: "pt" }), "PASS"],
    ["none", await withMetadata(weights), "PASS"],
    ["null", withNullMetadata(await withMetadata(weights)), "PASS"],
  ];
  for (const [what, bytes, status, reason] of cases) {
    const r = await verifyOver(honest, forward.blobs, bytes);
    assert.equal(r.status, status, `${what}: ${r.reason}`);
    if (reason !== undefined) assert.match(r.reason, reason, what);
    if (status === "FAIL") {
      assert.match(r.reason, /^record contradicts its stack: HF Transformers refuses to load/);
    }
  }
});

Deno.test("a falsified record over tf-format weights is NOT_VERIFIED, never PASS (the converted weights' bits are not modelled)", async () => {
  const { forward: lying, falsified, digest: d } = await falsifiedDenseForward();
  const tf = await withMetadata(lying.blobs.get(d)!, { format: "tf" });
  const r = await verifyOver(falsified, lying.blobs, tf);
  assert.equal(r.status, "NOT_VERIFIED", r.reason);
  assert.match(r.reason, /format 'tf'/);
});

Deno.test("weightMetadataFinding(): vLLM reads no metadata; Transformers 5 reads only pt as modelled", () => {
  const np = { "model.safetensors": { format: "np" } };
  assert.equal(weightMetadataFinding({ components: { vllm: "0.11.0" } }, np), null);
  const v5 = { components: { transformers: "5.x" } };
  assert.equal(weightMetadataFinding(v5, np)?.kind, "unmodelled");
  assert.equal(weightMetadataFinding(v5, { "a.safetensors": { format: "pt" } }), null);
});

Deno.test("weightMetadataFinding(): a metadata format or file name holding controls or bidi overrides is escaped in the reason", () => {
  const hf = { components: { transformers: "4.57.1" } };
  const f = weightMetadataFinding(hf, { "w\u202e.safetensors": { format: "n\u001b[2J\u0085p" } });
  assert.equal(f?.kind, "contradiction");
  assert.doesNotMatch(f!.reason, /[\p{Cc}\p{Cf}]/u);
  assert.match(f!.reason, /'w\\u\{202e\}\.safetensors'/);
  assert.match(f!.reason, /format 'n\\u\{1b\}\[2J\\u\{85\}p'/);
});

Deno.test("model forward refuses weights HF Transformers refuses by their metadata (SAFETENSORS_METADATA) and says NOT_VERIFIED for a converted format", async () => {
  const dir = await tempDir();
  const src = new URL("../../tables/models/qwen3-tiny-dense/", import.meta.url);
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify({ sequences: [[1, 2, 3]] }));
  const run = async (name: string, metadata: Record<string, string>) => {
    const ckpt = `${dir}/${name}`;
    await Deno.mkdir(ckpt);
    await Deno.copyFile(new URL("config.json", src), `${ckpt}/config.json`);
    const weights = await Deno.readFile(new URL("model.safetensors", src));
    await Deno.writeFile(`${ckpt}/model.safetensors`, await withMetadata(weights, metadata));
    return await runBitaudit([
      ...["model", "forward", "--checkpoint", ckpt, "--tokens", `${dir}/tokens.json`],
      ...["--profile", "a100", "--stack", "hf-qwen3-flash-attn-torch2.8"],
      ...["--kernel", "demo-qwen3-tiny-a100", "--threads", "1", "--out", `${dir}/${name}.out`],
    ]);
  };
  const np = await run("np", { format: "np" });
  assert.equal(np.code, 2, np.stderr);
  assertCliCode(np.stderr, "SAFETENSORS_METADATA");
  assert.match(np.stderr, /HF Transformers refuses to load weight file 'model\.safetensors'/);
  const tf = await run("tf", { format: "tf" });
  assert.notEqual(tf.code, 0, tf.stderr);
  assert.match(tf.stdout + tf.stderr, /NOT_VERIFIED.*format 'tf'/s);
  const pt = await run("pt", { format: "pt" });
  assert.equal(pt.code, 0, pt.stderr);
});
