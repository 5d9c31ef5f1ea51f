import assert from "node:assert/strict";
import { tempDir } from "../_temp.ts";
import { runBitaudit } from "./_run.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("page writes the checker's three files, byte for byte the manifest's assets", async () => {
  const out = `${await tempDir({ prefix: "bitaudit-page-" })}/site`;
  const r = await runBitaudit(["page", "--out", out, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).files, [
    `${out}/index.html`,
    `${out}/checker.js`,
    `${out}/checker.css`,
  ]);
  for (const f of ["index.html", "checker.js", "checker.css"]) {
    assert.deepEqual(
      await Deno.readFile(`${out}/${f}`),
      await Deno.readFile(`${ROOT}tables/web/${f}`),
    );
  }
  const html = await Deno.readTextFile(`${out}/index.html`);
  assert.match(html, /connect-src 'none'/);
  assert.doesNotMatch(html, /https?:\/\//);
});

Deno.test("page exits 2 and leaves an existing file as it was", async () => {
  const out = await tempDir({ prefix: "bitaudit-page-" });
  await Deno.writeTextFile(`${out}/checker.js`, "mine");
  const r = await runBitaudit(["page", "--out", out]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^error \[OUTPUT_EXISTS\]: Cannot write '.*checker\.js'/);
  assert.equal(await Deno.readTextFile(`${out}/checker.js`), "mine");
  assert.deepEqual([...Deno.readDirSync(out)].map((e) => e.name), ["checker.js"]);
});
