import assert from "node:assert/strict";
import { InputError } from "../../src/errors.ts";
import { openCheckpointDir } from "../../src/resolve/mod.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { synthDir, TINY_DENSE } from "../model/checkpoint/_checkpoint_fixture.ts";

const ROOT = new URL("../../", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("openCheckpointDir() opens a directory onto shared memory that releaseTensor recycles", async () => {
  using opened = await openCheckpointDir(`${ROOT}/tables/models/qwen3-tiny-dense`);
  assert.equal(opened.ckpt.config.modelType, "qwen3");
  const norm = await opened.ckpt.tensor("model.norm.weight");
  assert.ok(norm.buffer instanceof SharedArrayBuffer);
  const buffer = norm.buffer;
  opened.releaseTensor(norm);
  const again = await opened.ckpt.tensor("model.norm.weight");
  assert.equal(again.buffer, buffer, "a released buffer is handed out for the next read");
  assert.deepEqual(again, norm);
});

Deno.test("openCheckpointDir() closes its files once closed and refuses reads afterwards", async () => {
  const opened = await openCheckpointDir(`${ROOT}/tables/models/qwen3-tiny-dense`);
  opened.close();
  opened.close();
  await assertRejectsCode(
    () => opened.ckpt.tensor("model.norm.weight"),
    InputError,
    "FILE_CLOSED",
  );
});

Deno.test("openCheckpointDir() refuses a path that is no directory, and a directory that is no checkpoint", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-ckpt-dir-" });
  try {
    await assertRejectsCode(() => openCheckpointDir(`${dir}/none`), InputError, "CHECKPOINT_DIR");
    await assertRejectsCode(() => openCheckpointDir(dir), InputError, "CHECKPOINT_NO_CONFIG");
    for (const [name, bytes] of synthDir(TINY_DENSE)) await Deno.writeFile(`${dir}/${name}`, bytes);
    const gelu = JSON.stringify({ ...TINY_DENSE, hidden_act: "gelu" });
    await Deno.writeTextFile(`${dir}/config.json`, gelu);
    await assertRejectsCode(() => openCheckpointDir(dir), InputError, "CONFIG_UNSUPPORTED");
    // A file of the checkpoint that cannot be reached (a link loop) is the checkpoint's fault.
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(TINY_DENSE));
    await Deno.remove(`${dir}/model.safetensors`);
    await Deno.symlink(`${dir}/loop`, `${dir}/model.safetensors`);
    await Deno.symlink(`${dir}/model.safetensors`, `${dir}/loop`);
    await assertRejectsCode(() => openCheckpointDir(dir), InputError, "CHECKPOINT_DIR");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openCheckpointDir() refuses a folder with another *.safetensors beside model.safetensors (a file, a link or a folder), and opens it beside tokenizer files and *.bin", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-ckpt-stray-" });
  try {
    for (const [name, bytes] of synthDir(TINY_DENSE)) await Deno.writeFile(`${dir}/${name}`, bytes);
    for (const name of ["tokenizer.json", "generation_config.json", "README.md"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "{}");
    }
    await Deno.writeFile(`${dir}/pytorch_model.bin`, new Uint8Array(8));
    (await openCheckpointDir(dir)).close();
    const strays: [string, () => Promise<void>][] = [
      [
        "extra.safetensors",
        () => Deno.copyFile(`${dir}/model.safetensors`, `${dir}/extra.safetensors`),
      ],
      ["link.safetensors", () => Deno.symlink(`${dir}/nowhere`, `${dir}/link.safetensors`)],
      ["sub.safetensors", () => Deno.mkdir(`${dir}/sub.safetensors`)],
    ];
    for (const [name, make] of strays) {
      await make();
      await assertRejectsCode(() => openCheckpointDir(dir), InputError, "CHECKPOINT_AMBIGUOUS");
      await Deno.remove(`${dir}/${name}`);
    }
    (await openCheckpointDir(dir)).close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
