/** Whole-file reads bounded by the bytes actually read, not by what `stat` says. */
import assert from "node:assert/strict";
import { readAtMost } from "../src/read_at_most.ts";

Deno.test("readAtMost() returns the bytes up to the limit and null one byte past it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bitaudit-read-" });
  try {
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
    await Deno.writeFile(`${dir}/f`, bytes);
    assert.deepEqual(await readAtMost(`${dir}/f`, 200_000), bytes);
    assert.equal(await readAtMost(`${dir}/f`, 199_999), null);
    assert.deepEqual(await readAtMost(`${dir}/f`, 1 << 30), bytes);
    await Deno.writeFile(`${dir}/empty`, new Uint8Array());
    assert.deepEqual(await readAtMost(`${dir}/empty`, 0), new Uint8Array());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a bounded read stops at the limit on a file whose stated size is 0 (procfs)", async () => {
  // /proc/self/maps says 0 bytes and holds more: only the bytes read decide. Reading /proc needs
  // every permission, so the read runs in a `deno eval` of its own.
  const module = new URL("../src/cli/read_json_file.ts", import.meta.url).href;
  const code = `
    const { readTextFile } = await import(${JSON.stringify(module)});
    const stated = (await Deno.stat("/proc/self/maps")).size;
    try {
      await readTextFile("/proc/self/maps", { maxBytes: 16 });
      console.log(stated, "read");
    } catch (e) {
      console.log(stated, e.code);
    }`;
  const out = await new Deno.Command(Deno.execPath(), { args: ["eval", code], stdout: "piped" })
    .output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "0 INPUT_TOO_LARGE");
});
