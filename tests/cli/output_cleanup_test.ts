/**
 * A failed or interrupted command takes away what it wrote and nothing else: its own files in an
 * output folder (new or existing), the folders it made while they are empty; another run's files
 * in the same folder stay, with the folder. Write failures (a full disk, simulated with a
 * file-size limit) are one-line OUTPUT_WRITE errors that leave no empty lock, no empty partial
 * file, no lone private key and no cut-short checkpoint.
 */
import assert from "node:assert/strict";
import { createOwnedDir } from "../../src/cli/cleanup.ts";
import { writeNewFile } from "../../src/cli/write_new_file.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { InputError } from "../../src/errors.ts";
import { tempDir } from "../_temp.ts";
import { REPO_ROOT } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("createOwnedDir(): a failed run removes its own outputs only; another run's files keep the folder", async () => {
  const root = await tempDir({ prefix: "bitaudit-own-" });
  // A new folder: this run's file and a folder made for another of its files go; another
  // run's file (written meanwhile into the same folder) stays, and so does the folder.
  const done = await createOwnedDir(`${root}/a/out`);
  await writeNewFile(`${root}/a/out/attestation.dsse.json`, "{}");
  await writeNewFile(`${root}/a/out/results/r0.jsonl`, "x");
  await Deno.writeTextFile(`${root}/a/out/report.md`, "another run's");
  await done(false);
  assert.deepEqual(await names(`${root}/a/out`), ["report.md"]);
  // Alone in it, the run's outputs go with the folders it made.
  const alone = await createOwnedDir(`${root}/b/out`);
  await writeNewFile(`${root}/b/out/attestation.dsse.json`, "{}");
  await alone(false);
  assert.deepEqual(await names(root), ["a"]);
  // An existing folder stays, with what was in it; only this run's outputs go.
  await Deno.mkdir(`${root}/c`);
  await Deno.writeTextFile(`${root}/c/notes.txt`, "mine");
  const existing = await createOwnedDir(`${root}/c`);
  await writeNewFile(`${root}/c/report.md`, "partial");
  await existing(false);
  assert.deepEqual(await names(`${root}/c`), ["notes.txt"]);
  // Success keeps everything.
  const ok = await createOwnedDir(`${root}/d`);
  await writeNewFile(`${root}/d/x`, "1");
  await ok(true);
  assert.deepEqual(await names(`${root}/d`), ["x"]);
});

Deno.test("createOwnedDir(): a failing command never removes what an earlier command of the same process wrote", async () => {
  const root = await tempDir({ prefix: "bitaudit-own-" });
  // Written with no command's folder pending (key generate), then a command over the same folder
  // that succeeded: neither belongs to the command that fails afterwards.
  await generateKeys(`${root}/inspector`);
  const first = await createOwnedDir(root);
  await writeNewFile(`${root}/claims.jsonl`, "x");
  await first(true);
  const failing = await createOwnedDir(root);
  await writeNewFile(`${root}/report.md`, "partial");
  await failing(false);
  assert.deepEqual(await names(root), ["claims.jsonl", "inspector.key", "inspector.pub"]);
});

Deno.test("generateKeys(): no private key is left when its public half cannot be written", async () => {
  const dir = await tempDir({ prefix: "bitaudit-keys-" });
  const failing: typeof writeNewFile = (path, data, o) =>
    path.endsWith(".pub")
      ? Promise.reject(new InputError("OUTPUT_WRITE", `Cannot write '${path}': full`))
      : writeNewFile(path, data, o);
  await assert.rejects(generateKeys(`${dir}/k`, failing), /full/);
  assert.deepEqual(await names(dir), []);
});

/** Runs a command with writes limited to `kib` KiB a file (a full disk, as the command sees it). */
async function limited(kib: number, args: string[]) {
  const deno = Deno.execPath();
  const out = await new Deno.Command("bash", {
    args: ["-c", `trap '' XFSZ; ulimit -f ${kib}; exec "$@"`, "limited", deno, ...args],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("model synth into an existing folder on a full disk: OUTPUT_WRITE, the folder as it was", async () => {
  const dir = await tempDir({ prefix: "bitaudit-synth-" });
  await Deno.writeTextFile(`${dir}/notes.txt`, "mine");
  const r = await limited(64, [
    ...["run", "--quiet", "--allow-read", "--allow-write", "src/cli/main.ts", "model", "synth"],
    ...["--config", "tables/models/qwen3-tiny-dense/config.json", "--seed", "1", "--out", dir],
  ]);
  assertCliCode(r.stderr, "OUTPUT_WRITE");
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
  assert.match(r.stderr, /File too large/);
  assert.deepEqual(await names(dir), ["notes.txt"]);
});

Deno.test("a full disk leaves neither an empty append lock nor an empty partial result file", async () => {
  const dir = await tempDir({ prefix: "bitaudit-full-" });
  const script = (call: string) =>
    `import { lockLog } from "${REPO_ROOT}/src/cli/commands/claims_log_lock.ts";
     import { openPartial } from "${REPO_ROOT}/src/cli/partial_results.ts";
     try { await ${call}; console.log("written"); }
     catch (e) { console.log(e.code ?? "none", e.message.split("\\n").length); }`;
  const lock = await limited(0, ["eval", script(`lockLog("${dir}/claims.jsonl")`)]);
  assert.equal(lock.stdout.trim(), "OUTPUT_WRITE 1", lock.stderr);
  const partial = await limited(0, [
    "eval",
    script(`openPartial("${dir}/r0.jsonl.partial", null).append("line\\n")`),
  ]);
  assert.equal(partial.stdout.trim(), "OUTPUT_WRITE 1", partial.stderr);
  assert.deepEqual(await names(dir), []);
});
