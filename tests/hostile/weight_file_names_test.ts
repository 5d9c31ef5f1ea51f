/**
 * A record's weight files are held to its stack's loader: a safetensors blob committed under a
 * name the stack reads as a PyTorch pickle (`pytorch_model.bin`), or weight files beside
 * `model.safetensors` on HF Transformers (which loads that file alone), describe a run that
 * could not have read these weights, and FAIL. Both had PASSed. Renaming the single file to any
 * other `*.safetensors` (an index names it) still PASSes, and a checkpoint folder whose index
 * names a shard that is not a `*.safetensors` is refused.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate, ModelForwardWorkload } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import {
  bytesByteSource,
  digestOfFiles,
  encodeSafetensors,
  openDecoderCheckpoint,
  openSafetensors,
  weightFilesContradiction,
} from "../../src/model/mod.ts";
import {
  type Blobs,
  commit,
  forwardScenario,
  proverRun,
  verifyAlone,
} from "./_recompute_fixture.ts";

const forward = await proverRun(forwardScenario([], 1));
const honest = forward.records[1]!.predicate; // dense, honest
const w = honest.workload as ModelForwardWorkload;
const [[single, digest]] = Object.entries(w.model.files) as [[string, string]];

/** The honest record naming these weight files. */
function named(files: Record<string, string>): ClaimPredicate {
  const model = { ...w.model, files, checkpointSha256: digestOfFiles(files) };
  return { ...honest, workload: { ...w, model } };
}

Deno.test("the honest record names model.safetensors and PASSes", async () => {
  assert.equal(single, "model.safetensors");
  const r = await verifyAlone(honest, forward.blobs);
  assert.equal(r.status, "PASS", r.reason);
});

Deno.test("a safetensors blob named pytorch_model.bin FAILs: the stack would unpickle it", async () => {
  for (const name of ["pytorch_model.bin", "model.pt", "weights"]) {
    const r = await verifyAlone(named({ [name]: digest }), forward.blobs);
    assert.equal(r.status, "FAIL", `${name}: ${r.reason}`);
    assert.match(
      r.reason,
      new RegExp(
        `^record contradicts its stack: weight file '${name}' holds safetensors under a name ` +
          "HF Transformers does not read as safetensors",
      ),
    );
  }
});

Deno.test("the weights under another *.safetensors name (an index names it) still PASS", async () => {
  const r = await verifyAlone(named({ "weights.safetensors": digest }), forward.blobs);
  assert.equal(r.status, "PASS", r.reason);
});

Deno.test("weight files beside model.safetensors FAIL on HF Transformers, which loads that file alone; the same tensors as two shards PASS", async () => {
  // The checkpoint's tensors split in two files: the final norm apart from the rest.
  const st = await openSafetensors(bytesByteSource(forward.blobs.get(digest)!));
  const part = async (keep: (name: string) => boolean) =>
    encodeSafetensors(
      await Promise.all(
        st.header.tensors.filter((t) => keep(t.name)).map(async (t) => ({
          name: t.name,
          dtype: t.dtype,
          shape: t.shape,
          data: await st.tensor(t.name),
        })),
      ),
    );
  const blobs: Blobs = new Map(forward.blobs);
  const rest = commit(blobs, await part((n) => n !== "model.norm.weight"));
  const norm = commit(blobs, await part((n) => n === "model.norm.weight"));
  const beside = await verifyAlone(
    named({ "model.safetensors": rest, "norm.safetensors": norm }),
    blobs,
  );
  assert.equal(beside.status, "FAIL", beside.reason);
  assert.match(
    beside.reason,
    /^record contradicts its stack: HF Transformers loads 'model\.safetensors' alone when a checkpoint holds it, and the record names 1 other weight file\(s\) beside it/,
  );
  const shards = await verifyAlone(
    named({ "model-00001-of-00002.safetensors": rest, "model-00002-of-00002.safetensors": norm }),
    blobs,
  );
  assert.equal(shards.status, "PASS", shards.reason);
});

Deno.test("weightFilesContradiction(): vLLM reads every *.safetensors, and nothing else as safetensors", () => {
  const vllm = { components: { vllm: "0.11.0" } };
  assert.equal(
    weightFilesContradiction(vllm, ["model.safetensors", "model-00002.safetensors"]),
    null,
  );
  assert.match(
    weightFilesContradiction(vllm, ["model.safetensors", "extra.bin"])!,
    /'extra\.bin' holds safetensors under a name vLLM does not read as safetensors/,
  );
});

Deno.test("a checkpoint folder whose index names a shard that is not *.safetensors is refused (CHECKPOINT_INDEX)", async () => {
  const dir = new URL("../../tables/models/qwen3-tiny-dense/", import.meta.url);
  const config = await Deno.readFile(new URL("config.json", dir));
  const weights = await Deno.readFile(new URL("model.safetensors", dir));
  const st = await openSafetensors(bytesByteSource(weights));
  const index = new TextEncoder().encode(JSON.stringify({
    metadata: {},
    weight_map: Object.fromEntries(st.header.tensors.map((t) => [t.name, "pytorch_model.bin"])),
  }));
  const files = new Map([
    ["config.json", config],
    ["model.safetensors.index.json", index],
    ["pytorch_model.bin", weights],
  ]);
  const err = await openDecoderCheckpoint({
    open: (name) => Promise.resolve(files.has(name) ? bytesByteSource(files.get(name)!) : null),
  }).then(() => null, (e) => e);
  assert.ok(err instanceof InputError, String(err));
  assert.equal(err.code, "CHECKPOINT_INDEX");
  assert.match(err.message, /names 'pytorch_model\.bin', not a '\*\.safetensors' file/);
});

Deno.test("a falsified record under another *.safetensors name still FAILs on its fingerprint (the name rule hides nothing)", async () => {
  const falsified = await proverRun(forwardScenario([{ seq: 1, kind: "fingerprint", bit: 3 }], 1));
  const p = falsified.records[1]!.predicate;
  const fw = p.workload as ModelForwardWorkload;
  const [[, d]] = Object.entries(fw.model.files) as [[string, string]];
  const files = { "weights.safetensors": d };
  const model = { ...fw.model, files, checkpointSha256: digestOfFiles(files) };
  const r = await verifyAlone({ ...p, workload: { ...fw, model } }, falsified.blobs);
  assert.equal(r.status, "FAIL", r.reason);
  assert.doesNotMatch(r.reason, /contradicts its stack/);
  assert.notEqual(r.recomputed, p.fingerprint.sha256);
});
