/**
 * `openPartial()` writes every result line through the one handle it opened: a link (or another
 * file) put in place of the partial file between two results is refused with OUTPUT_REPLACED,
 * and neither the link's target nor the link is written or removed. When `resumePartial()` found
 * no file, anything at the path by the first append (a hard link to another file, a plain file)
 * is refused; a resumed file is appended to only while it is the file checked, with no other
 * hard link.
 */
import assert from "node:assert/strict";
import { openPartial, resumePartial } from "../../src/cli/partial_results.ts";
import { workerKeys } from "../../src/attest/mod.ts";
import { fileIdentity } from "../../src/cli/cleanup.ts";
import { tempDir } from "../_temp.ts";

// Only the file's kind and links are looked at before these tests' refusals.
const shard = {
  planDigest: "00".repeat(32),
  items: [],
  workers: workerKeys([]),
  build: { version: "0.1.0", manifest: "00".repeat(32) },
};
const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("openPartial() refuses to append through a link planted in place of the partial file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  const victim = `${dir}/victim.txt`;
  await Deno.writeTextFile(victim, "precious\n");
  const partial = openPartial(path, null);
  await partial.append("line 1\n");
  await Deno.rename(path, `${dir}/moved.partial`);
  await Deno.symlink(victim, path);
  await assert.rejects(partial.append("line 2\n"), code("OUTPUT_REPLACED"));
  await assert.rejects(partial.finish(), code("OUTPUT_REPLACED"));
  assert.equal(await Deno.readTextFile(victim), "precious\n");
  assert.ok((await Deno.lstat(path)).isSymlink);
  assert.equal(await Deno.readTextFile(`${dir}/moved.partial`), "line 1\n");
});

Deno.test("openPartial() appends to the file it opened and removes it when finished", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  const partial = openPartial(path, null);
  await partial.append("line 1\n");
  await partial.append("line 2\n");
  assert.equal(await Deno.readTextFile(path), "line 1\nline 2\n");
  await partial.finish();
  await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
});

Deno.test("openPartial() refuses a hard link or a plain file put at the path after resumePartial() found none", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  const victim = `${dir}/victim.txt`;
  await Deno.writeTextFile(victim, "precious\n");
  const { lines, found } = await resumePartial(path, shard);
  assert.equal(found, null);
  assert.equal(lines.size, 0);
  for (const plant of [() => Deno.link(victim, path), () => Deno.writeTextFile(path, "mine\n")]) {
    await plant();
    const partial = openPartial(path, found);
    await assert.rejects(partial.append("line 1\n"), code("OUTPUT_REPLACED"));
    await assert.rejects(partial.finish(), code("OUTPUT_REPLACED"));
    assert.equal(await Deno.readTextFile(victim), "precious\n");
    assert.ok((await Deno.lstat(path)).isFile);
    await Deno.remove(path);
  }
});

Deno.test("openPartial() refuses to append to a resumed partial file that gained another hard link", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  await Deno.writeTextFile(path, "line 1\n");
  const found = fileIdentity(await Deno.lstat(path)); // as resumePartial() saw it
  await Deno.link(path, `${dir}/elsewhere`);
  const partial = openPartial(path, found);
  await assert.rejects(partial.append("line 2\n"), code("OUTPUT_REPLACED"));
  await assert.rejects(partial.finish(), code("OUTPUT_REPLACED"));
  assert.equal(await Deno.readTextFile(`${dir}/elsewhere`), "line 1\n");
  assert.equal(await Deno.readTextFile(path), "line 1\n");
  // Resuming it again refuses it too, and cuts nothing.
  await assert.rejects(resumePartial(path, shard), code("OUTPUT_EXISTS"));
});

Deno.test("openPartial() refuses a file put in place of the resumed one before the first append", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  await Deno.writeTextFile(path, "line 1\n");
  const found = fileIdentity(await Deno.lstat(path));
  await Deno.rename(path, `${dir}/moved.partial`);
  await Deno.writeTextFile(path, "planted\n");
  const partial = openPartial(path, found);
  await assert.rejects(partial.append("line 2\n"), code("OUTPUT_REPLACED"));
  await assert.rejects(partial.finish(), code("OUTPUT_REPLACED"));
  assert.equal(await Deno.readTextFile(path), "planted\n");
  assert.equal(await Deno.readTextFile(`${dir}/moved.partial`), "line 1\n");
});

Deno.test("resumePartial() resumes an empty partial file (killed before its first line) with nothing kept, and openPartial() appends to it", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  await Deno.writeTextFile(path, "");
  const { lines, found } = await resumePartial(path, shard);
  assert.equal(lines.size, 0);
  assert.notEqual(found, null, "the empty file is the one appended to");
  const partial = openPartial(path, found);
  await partial.append("line 1\n");
  assert.equal(await Deno.readTextFile(path), "line 1\n");
  await partial.finish();
  await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
});

Deno.test("openPartial(): a run interrupted after creating the partial file and before its first line leaves no empty file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  const mod = new URL("../../src/cli/partial_results.ts", import.meta.url).href;
  // The child creates the file (an append of nothing), says so, and waits for a result that is
  // never computed: it is interrupted while the file is still empty.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { openPartial } from "${mod}";
       const partial = openPartial(Deno.args[0], null);
       const line = new Promise(() => {}); // a result that is never computed
       await partial.append("");
       console.log("created");
       await line;`,
      path,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /created/);
  assert.equal((await Deno.stat(path)).size, 0, "created, nothing written yet");
  child.kill("SIGTERM");
  reader.releaseLock();
  await child.stdout.cancel();
  await child.stderr.cancel();
  assert.equal((await child.status).code, 143);
  await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
});

Deno.test("openPartial(): an interrupt before the first line leaves a file another run put under the partial's name", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  const mod = new URL("../../src/cli/partial_results.ts", import.meta.url).href;
  // The child creates its (empty) file; another run's file takes the name; the child is
  // interrupted before its first line.
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { openPartial } from "${mod}";
       const path = Deno.args[0];
       const partial = openPartial(path, null);
       await partial.append("");
       Deno.removeSync(path);
       Deno.writeTextFileSync(path, "another run's line\\n");
       Deno.kill(Deno.pid, "SIGTERM");
       await new Promise((r) => setTimeout(r, 10_000));`,
      path,
    ],
  }).output();
  assert.equal(r.code, 143);
  assert.equal(await Deno.readTextFile(path), "another run's line\n");
});
