/** Issue 25, item 7: the output rule of `writeNewFile`, `makeDirs` and `prepareOutputDir`. */
import assert from "node:assert/strict";
import { InputError } from "../../src/errors.ts";
import { prepareOutputDir } from "../../src/cli/load_inputs.ts";
import { makeDirs, parentDir } from "../../src/cli/make_dirs.ts";
import { writeNewFile } from "../../src/cli/write_new_file.ts";
import { assertRejectsCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";

const tmp = await tempDir({ prefix: "bitaudit-write-" });

Deno.test("writeNewFile() creates missing folders and refuses an existing path", async () => {
  await writeNewFile(`${tmp}/w/x/y.txt`, "1");
  assert.equal(await Deno.readTextFile(`${tmp}/w/x/y.txt`), "1");
  await assertRejectsCode(() => writeNewFile(`${tmp}/w/x/y.txt`, "2"), InputError, "OUTPUT_EXISTS");
  assert.equal(await Deno.readTextFile(`${tmp}/w/x/y.txt`), "1");
});

Deno.test("writeNewFile() under a file is OUTPUT_WRITE and leaves the file as it was", async () => {
  await Deno.writeTextFile(`${tmp}/file`, "mine");
  for (const path of [`${tmp}/file/y.txt`, `${tmp}/file/a/b/y.txt`]) {
    await assertRejectsCode(() => writeNewFile(path, "x"), InputError, "OUTPUT_WRITE");
  }
  assert.equal(await Deno.readTextFile(`${tmp}/file`), "mine");
});

Deno.test("writeNewFile() that fails after creating folders removes them again", async () => {
  const long = "n".repeat(300); // longer than a file name may be (ENAMETOOLONG)
  await assertRejectsCode(
    () => writeNewFile(`${tmp}/gone/a/${long}`, "x"),
    InputError,
    "OUTPUT_WRITE",
  );
  await assert.rejects(() => Deno.stat(`${tmp}/gone`), Deno.errors.NotFound);
});

Deno.test("makeDirs() returns the topmost folder it created, null when there was nothing to do", async () => {
  assert.equal(await makeDirs(`${tmp}/m/n/o/`), `${tmp}/m`);
  assert.equal(await makeDirs(`${tmp}/m/n/o`), null);
  assert.deepEqual(["a/b", "b", "/a", "/"].map(parentDir), ["a", ".", "/", "/"]);
});

Deno.test("prepareOutputDir() refuses a file as the folder (OUTPUT_EXISTS) and under a file (OUTPUT_WRITE)", async () => {
  await Deno.writeTextFile(`${tmp}/site`, "mine");
  await assertRejectsCode(
    () => prepareOutputDir(`${tmp}/site`, ["a"]),
    InputError,
    "OUTPUT_EXISTS",
  );
  await assertRejectsCode(
    () => prepareOutputDir(`${tmp}/site/sub`, ["a"]),
    InputError,
    "OUTPUT_WRITE",
  );
  assert.equal(await Deno.readTextFile(`${tmp}/site`), "mine");
  const done = await prepareOutputDir(`${tmp}/p/q`, ["a"]);
  await done(false); // a failed command leaves none of the folders it created
  await assert.rejects(() => Deno.stat(`${tmp}/p`), Deno.errors.NotFound);
});
