/**
 * What a failed or interrupted command removes: what it wrote (`noteWritten`), then the output
 * folder it created and the parents it created, each only while empty; never another run's output
 * written beside it or into it.
 */
import assert from "node:assert/strict";
import { createOwnedDir } from "../../src/cli/cleanup.ts";
import { writeNewFile } from "../../src/cli/write_new_file.ts";
import { tempDir } from "../_temp.ts";
import { untilReady } from "../_child_ready.ts";

const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

/**
 * Runs `body` (a module using `createOwnedDir` and `removeOnInterrupt`, with `dir` its folder) in
 * a child process until it prints "ready", then lets `meanwhile` run, sends `signal` (SIGTERM)
 * and returns the exit code.
 */
async function interrupted(
  body: string,
  dir: string,
  meanwhile: () => Promise<void> = async () => {},
  signal: Deno.Signal = "SIGTERM",
): Promise<number> {
  const cleanup = new URL("../../src/cli/cleanup.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { createOwnedDir, noteWritten, removeOnInterrupt } from "${cleanup}";
       const dir = Deno.args[0];
       ${body}
       console.log("ready");
       await new Promise((r) => setTimeout(r, 60_000));`,
      dir,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  await untilReady(child);
  await meanwhile();
  child.kill(signal);
  const { code } = await child.status;
  await child.stdout.cancel();
  await child.stderr.cancel();
  return code;
}

Deno.test("a failed run removes its own output folder and leaves another run's output beside it", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const done = await createOwnedDir(`${tmp}/rep/2026-06/auditA`);
  await writeNewFile(`${tmp}/rep/2026-06/auditA/report.md`, "A's");
  // Another run, started meanwhile, writes its output into a parent this run created.
  await Deno.mkdir(`${tmp}/rep/2026-06/auditB`);
  await Deno.writeTextFile(`${tmp}/rep/2026-06/auditB/attestation.dsse.json`, "B's");
  await done(false);
  assert.equal(await exists(`${tmp}/rep/2026-06/auditA`), false);
  assert.equal(await Deno.readTextFile(`${tmp}/rep/2026-06/auditB/attestation.dsse.json`), "B's");
});

Deno.test("a failed run alone removes every folder it created, and only those", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const done = await createOwnedDir(`${tmp}/x/y/z/`);
  await writeNewFile(`${tmp}/x/y/z/report.md`, "mine");
  await done(false);
  assert.equal(await exists(`${tmp}/x`), false);
  assert.equal(await exists(tmp), true);
  const kept = await createOwnedDir(`${tmp}/ok/out`);
  await kept(true);
  assert.equal(await exists(`${tmp}/ok/out`), true);
});

Deno.test("an interrupted run (SIGTERM) removes what it created and nothing another run wrote", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const code = await interrupted(
    `await createOwnedDir(dir);
     await Deno.writeTextFile(dir + "/report.md", "A's");
     noteWritten(dir + "/report.md");`,
    `${tmp}/rep/2026-06/auditA`,
    async () => {
      await Deno.mkdir(`${tmp}/rep/2026-06/auditB`);
      await Deno.writeTextFile(`${tmp}/rep/2026-06/auditB/report.md`, "B's");
    },
  );
  assert.equal(code, 143);
  assert.equal(await exists(`${tmp}/rep/2026-06/auditA`), false);
  assert.equal(await Deno.readTextFile(`${tmp}/rep/2026-06/auditB/report.md`), "B's");
});

Deno.test("a run whose terminal closes (SIGHUP) cleans up as an interrupted one: nothing of it is left", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const code = await interrupted(
    `await createOwnedDir(dir);
     await Deno.writeTextFile(dir + "/report.md", "A's");
     noteWritten(dir + "/report.md");`,
    `${tmp}/hup/x/y`,
    undefined,
    "SIGHUP",
  );
  assert.equal(code, 129);
  assert.equal(await exists(`${tmp}/hup`), false);
});

Deno.test("a shared folder (a claim log's) is removed only while empty: another run's log stays", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const done = await createOwnedDir(`${tmp}/logs/a`, { shared: true });
  // Another append locked the folder's log as soon as the folder existed, and wrote it.
  await Deno.writeTextFile(`${tmp}/logs/a/claims.jsonl`, "theirs\n");
  await done(false);
  assert.equal(await Deno.readTextFile(`${tmp}/logs/a/claims.jsonl`), "theirs\n");
  const empty = await createOwnedDir(`${tmp}/other/b`, { shared: true });
  await empty(false);
  assert.equal(await exists(`${tmp}/other`), false, "nothing in it: removed with its parent");
});

Deno.test("an interrupted run removes its files inside a shared folder first, then the folder", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const code = await interrupted(
    `await createOwnedDir(dir, { shared: true });
     await Deno.writeTextFile(dir + "/.staged-x", "copy");
     removeOnInterrupt(dir + "/.staged-x");`,
    `${tmp}/log/blobs`,
  );
  assert.equal(code, 143);
  assert.equal(await exists(`${tmp}/log`), false, "the staged copy, then the empty folders");
});

Deno.test("an interrupted run leaves a file another run wrote into its folder, and so the folder", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  const dir = `${tmp}/out`;
  const code = await interrupted(
    `await createOwnedDir(dir);
     await Deno.writeTextFile(dir + "/attestation.dsse.json", "A's");
     noteWritten(dir + "/attestation.dsse.json");`,
    dir,
    () => Deno.writeTextFile(`${dir}/report.md`, "B's"),
  );
  assert.equal(code, 143);
  assert.equal(await exists(`${dir}/attestation.dsse.json`), false);
  assert.equal(await Deno.readTextFile(`${dir}/report.md`), "B's");
});

Deno.test("a failed run's folders named with . or .. are removed as their plain names", async () => {
  const tmp = await tempDir({ prefix: "bitaudit-cleanup-" });
  for (const name of ["a2/./b", "a5/b/../c", "./a6//d/"]) {
    const done = await createOwnedDir(`${tmp}/${name}`);
    await done(false);
    const top = name.replace(/^\.\//, "").split("/")[0]!;
    assert.equal(await exists(`${tmp}/${top}`), false, name);
  }
});
