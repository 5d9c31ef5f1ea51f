/** `lockLog()`: taking the lock tidies what killed appends of this log left, and nothing else. */
import assert from "node:assert/strict";
import { lockLog } from "../../src/cli/commands/claims_append_log.ts";
import { tempDir } from "../_temp.ts";

Deno.test("lockLog() removes this log's leftover temporary copies once it holds the lock", async () => {
  const dir = await tempDir({ prefix: "bitaudit-lock-" });
  const log = `${dir}/claims.jsonl`;
  const uuid = "0f8c1a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
  const leftover = `${log}.tmp-${uuid}`;
  const kept = [
    `${dir}/other.jsonl.tmp-${uuid}`,
    `${log}.tmp-not-a-uuid`,
    `${dir}/claimsXjsonl.tmp-${uuid}`,
  ];
  for (const p of [leftover, ...kept]) await Deno.writeTextFile(p, "partial");
  const unlock = await lockLog(log);
  try {
    await assert.rejects(Deno.stat(leftover), Deno.errors.NotFound);
    for (const p of kept) assert.equal(await Deno.readTextFile(p), "partial", p);
  } finally {
    await unlock();
  }
  await assert.rejects(Deno.stat(`${log}.lock`), Deno.errors.NotFound);
});
