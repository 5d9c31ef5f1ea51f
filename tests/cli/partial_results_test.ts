/**
 * `openPartial()` writes every result line through the one handle it opened: a link (or another
 * file) put in place of the partial file between two results is refused with OUTPUT_REPLACED,
 * and neither the link's target nor the link is written or removed.
 */
import assert from "node:assert/strict";
import { openPartial } from "../../src/cli/partial_results.ts";
import { tempDir } from "../_temp.ts";

const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;

Deno.test("openPartial() refuses to append through a link planted in place of the partial file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-partial-" });
  const path = `${dir}/r0.jsonl.partial`;
  const victim = `${dir}/victim.txt`;
  await Deno.writeTextFile(victim, "precious\n");
  const partial = openPartial(path);
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
  const partial = openPartial(path);
  await partial.append("line 1\n");
  await partial.append("line 2\n");
  assert.equal(await Deno.readTextFile(path), "line 1\nline 2\n");
  await partial.finish();
  await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
});
