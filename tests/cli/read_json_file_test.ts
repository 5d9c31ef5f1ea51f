/**
 * The readers of user-named files: a read Deno's permissions deny is passed on as
 * `Deno.errors.NotCapable` (the CLI's PERMISSION error, which names the flag to add), never
 * reported as a missing file.
 */
import assert from "node:assert/strict";
import { readBinaryFile, readJsonFile, readTextFile } from "../../src/cli/read_json_file.ts";
import { checkSigningKeyFiles } from "../../src/cli/load_inputs.ts";
import { readModelConfig } from "../../src/cli/read_model_config.ts";
import { fileByteSource } from "../../src/assets/file_byte_source.ts";
import { runBitaudit } from "./_run.ts";
import { tempDir } from "../_temp.ts";

const dir = await tempDir({ prefix: "bitaudit-read-" });
const file = `${dir}/input.json`;
await Deno.writeTextFile(file, "{}");
await Deno.chmod(file, 0o600);

Deno.test({
  name:
    "readTextFile(), readJsonFile(), readBinaryFile(), checkSigningKeyFiles(), readModelConfig() and fileByteSource() throw NotCapable when Deno may not read the file",
  permissions: { read: false },
  fn: async () => {
    const readers: [string, () => Promise<unknown>][] = [
      ["readTextFile", () => readTextFile(file, { maxBytes: 1024 })],
      ["readJsonFile", () => readJsonFile(file)],
      ["readBinaryFile", () => readBinaryFile(file, 1024)],
      ["checkSigningKeyFiles", () => checkSigningKeyFiles([file])],
      ["readModelConfig", () => readModelConfig(file)],
      ["fileByteSource", () => fileByteSource(file)],
    ];
    for (const [name, read] of readers) {
      await assert.rejects(read(), Deno.errors.NotCapable, name);
    }
  },
});

Deno.test("a command denied the read of a file it is given stops with PERMISSION naming --allow-read, not INPUT_MISSING", async () => {
  const root = new URL("../../", import.meta.url).pathname;
  for (
    const args of [
      ["key", "trust-root", "--pub", file, "--out", `${dir}/trust-root.json`],
      ["check", file, "--trust-root", file],
    ]
  ) {
    const r = await runBitaudit(args, { perms: [`--allow-read=${root}`] });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^error \[PERMISSION\]: .*--allow-read/, r.stderr);
    assert.doesNotMatch(r.stderr, /INPUT_MISSING|NotCapable/, r.stderr);
  }
});

Deno.test("readTextFile() says why a named file cannot be read: no such file, or not a regular file (a folder)", async () => {
  await assert.rejects(
    () => readTextFile(`${dir}/missing.json`, { maxBytes: 1024 }),
    /Cannot read '.*missing\.json': no such file$/,
  );
  await assert.rejects(
    () => readTextFile(dir, { maxBytes: 1024 }),
    /Cannot read '.*': not a regular file \(a folder\)$/,
  );
  // Any other cause is named by the system's message, not as "Error" (review h103).
  await assert.rejects(
    () => readTextFile(`${dir}/${"q".repeat(256)}`, { maxBytes: 1024 }),
    /Cannot read '.*': File name too long \(os error 36\)/,
  );
});

Deno.test("readTextFile() names the file as its caller says (what it is and the flag that gave it), for every reason it cannot be read", async () => {
  const what = "key 'w.pub' (--worker-pub)";
  const big = `${dir}/big.pub`;
  await Deno.writeTextFile(big, "x".repeat(2048));
  const latin1 = `${dir}/latin1.pub`;
  await Deno.writeFile(latin1, new Uint8Array([0xe9]));
  for (
    const [path, why] of [
      [`${dir}/missing.pub`, "no such file"],
      [dir, "not a regular file (a folder)"],
      [big, "2048 bytes exceeds the 1024-byte limit"],
      [latin1, "not valid UTF-8"],
    ]
  ) {
    await assert.rejects(
      () => readTextFile(path!, { maxBytes: 1024, what }),
      (e: Error) => e.message === `Cannot read ${what}: ${why}`,
    );
  }
});

Deno.test("readBinaryFile() (a --timestamp token) says why a file cannot be read in the words readTextFile() uses, never an error's class name", async () => {
  await assert.rejects(
    () => readBinaryFile(`${dir}/missing.tsr`, 1024),
    (e: Error) => e.message === `Cannot read '${dir}/missing.tsr': no such file`,
  );
  await assert.rejects(
    () => readBinaryFile(`${dir}/${"q".repeat(256)}`, 1024),
    /Cannot read '.*': File name too long \(os error 36\)/,
  );
});
