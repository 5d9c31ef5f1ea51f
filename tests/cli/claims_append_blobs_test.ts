/** `stageBlob()` / `commitBlob()`: a blob the folder already holds is used, not copied again. */
import assert from "node:assert/strict";
import { commitBlob, stageBlob } from "../../src/cli/commands/claims_append_blobs.ts";
import { InputError } from "../../src/errors.ts";
import { tempDir } from "../_temp.ts";

Deno.test("stageBlob() copies a new file once, and uses the stored blob afterwards", async () => {
  const dir = await tempDir({ prefix: "bitaudit-blobs-" });
  await Deno.mkdir(`${dir}/blobs`);
  await Deno.writeTextFile(`${dir}/weights.bin`, "weights");
  const first = await stageBlob(`${dir}/weights.bin`, { dir: `${dir}/blobs`, name: "w" });
  assert.equal(first.stored, undefined);
  assert.match(first.path, /\/\.staged-/);
  assert.equal(await commitBlob(first, `${dir}/blobs`), "written");
  const again = await stageBlob(`${dir}/weights.bin`, { dir: `${dir}/blobs`, name: "w" });
  assert.equal(again.stored, true);
  assert.equal(again.path, `${dir}/blobs/${first.sha256}`);
  assert.equal(again.sha256, first.sha256);
  const names = [];
  for await (const e of Deno.readDir(`${dir}/blobs`)) names.push(e.name);
  assert.deepEqual(names, [first.sha256], "no copy was made");
  assert.equal(await commitBlob(again, `${dir}/blobs`), "present");
  await again.discard();
  assert.equal(await Deno.readTextFile(`${dir}/blobs/${first.sha256}`), "weights", "kept");
});

Deno.test("stageBlob() names a source it cannot read as the input's fault", async () => {
  const dir = await tempDir({ prefix: "bitaudit-blobs-" });
  await Deno.mkdir(`${dir}/blobs`);
  await assert.rejects(
    () => stageBlob(`${dir}/missing.bin`, { dir: `${dir}/blobs`, name: "w" }),
    (e) => e instanceof InputError && e.code === "INPUT_MISSING",
  );
});
