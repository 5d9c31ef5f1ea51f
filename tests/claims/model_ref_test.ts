import assert from "node:assert/strict";
import { parseModelRef } from "../../src/claims/model_ref.ts";

const h = "0".repeat(64);
const bad = (path: string, why: string): never => {
  throw new Error(`${path}: ${why}`);
};
const ref = (files: Record<string, string>) =>
  parseModelRef({ type: "qwen3", checkpointSha256: h, configSha256: h, files }, {
    path: "m",
    bad,
  });

Deno.test("parseModelRef() takes plain weight file names", () => {
  assert.deepEqual(Object.keys(ref({ "model-00001-of-00002.safetensors": h }).files), [
    "model-00001-of-00002.safetensors",
  ]);
});

Deno.test("parseModelRef() refuses the checkpoint's JSON file names as weight files", () => {
  // A weight blob named config.json would replace the config committed by configSha256.
  for (const name of ["config.json", "model.safetensors.index.json"]) {
    assert.throws(() => ref({ [name]: h }), new RegExp(`must not name '${name}'`));
  }
});
