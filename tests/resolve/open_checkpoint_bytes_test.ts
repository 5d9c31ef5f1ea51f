import assert from "node:assert/strict";
import { InputError } from "../../src/errors.ts";
import { openCheckpointBytes } from "../../src/resolve/mod.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { synthDir, TINY_DENSE, TINY_MOE } from "../model/checkpoint/_checkpoint_fixture.ts";

Deno.test("openCheckpointBytes() opens the config and the .safetensors files held in memory", async () => {
  const one = await openCheckpointBytes(synthDir(TINY_MOE));
  const shards = synthDir(TINY_MOE, { shards: 3 });
  const three = await openCheckpointBytes(shards);
  assert.equal(three.files.length, 3, "the index is not needed: the weight files are given");
  const name = "model.layers.1.mlp.experts.5.down_proj.weight";
  assert.deepEqual(await three.tensor(name), await one.tensor(name));
});

Deno.test("openCheckpointBytes() refuses files that are no checkpoint with the reader's codes", async () => {
  const dir = synthDir(TINY_DENSE);
  dir.set("model.safetensors", new Uint8Array(4));
  await assertRejectsCode(() => openCheckpointBytes(dir), InputError, "SAFETENSORS_TOO_SHORT");
  dir.delete("model.safetensors");
  await assert.rejects(() => openCheckpointBytes(dir), RangeError, "no weight file is misuse");
  const noConfig = synthDir(TINY_DENSE);
  noConfig.delete("config.json");
  await assertRejectsCode(() => openCheckpointBytes(noConfig), InputError, "CHECKPOINT_NO_CONFIG");
});
