/**
 * `removeStaleStaged()`: a blob folder's staged copies that killed appends left are removed once
 * they are a day old; younger ones (another log's append may be copying) and anything not named
 * as a staged copy stay.
 */
import assert from "node:assert/strict";
import { removeStaleStaged, STALE_STAGED_MS } from "../../src/cli/commands/claims_append_blobs.ts";
import { tempDir } from "../_temp.ts";

Deno.test("removeStaleStaged() removes day-old staged copies only", async () => {
  const dir = await tempDir({ prefix: "bitaudit-staged-" });
  const uuid = (n: number) => `0f8c1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5${n}`;
  const now = Date.now();
  const old = new Date(now - STALE_STAGED_MS - 60_000);
  const young = new Date(now - STALE_STAGED_MS + 60_000);
  const write = async (name: string, mtime: Date) => {
    await Deno.writeTextFile(`${dir}/${name}`, "partial");
    await Deno.utime(`${dir}/${name}`, mtime, mtime);
  };
  await write(`.staged-${uuid(1)}`, old);
  await write(`.staged-${uuid(2)}`, young);
  await write(`.staged-not-a-uuid`, old);
  await write("a".repeat(64), old); // a blob
  await Deno.mkdir(`${dir}/.staged-${uuid(3)}`); // not a file
  await Deno.symlink(`${dir}/${"a".repeat(64)}`, `${dir}/.staged-${uuid(4)}`);
  await Deno.utime(`${dir}/.staged-${uuid(3)}`, old, old);
  assert.deepEqual(await removeStaleStaged(dir, now), [`.staged-${uuid(1)}`]);
  const left = [];
  for await (const e of Deno.readDir(dir)) left.push(e.name);
  assert.deepEqual(left.sort(), [
    `.staged-${uuid(2)}`,
    `.staged-${uuid(3)}`,
    `.staged-${uuid(4)}`,
    ".staged-not-a-uuid",
    "a".repeat(64),
  ]);
  assert.deepEqual(await removeStaleStaged(`${dir}/missing`, now), []);
});
