/**
 * Issue 25, item 7: every command that writes follows one rule for `--out`. Missing folders on
 * the way are created; a path that exists but is not a folder is refused with a coded error
 * (exit 2, never 70), and what the user had there is left as it was.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { REPO_ROOT, runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 4, falsify: [] });
const MINE = "the user's own file\n";
const PLAN = `${f.dir}/plan.json`;
const RESULTS = `${f.dir}/results.jsonl`;
const planArgs = (out: string) => ["audit", "plan", ...auditArgs(f, out, 2).slice(1)];
const workArgs = (out: string) => [
  "audit",
  "work",
  "--plan",
  PLAN,
  "--log",
  f.log,
  "--key",
  f.worker.key,
  "--shard",
  "0/1",
  "--out",
  out,
];
for (const args of [planArgs(PLAN), workArgs(RESULTS)]) {
  const r = await runBitaudit(args);
  assert.equal(r.code, 0, r.stderr);
}
await Deno.writeTextFile(`${f.dir}/scenario-small.json`, await _smallScenario());
await Deno.writeTextFile(`${f.dir}/config.json`, await _smallConfig());

/** A command writing to `out`: its arguments and the exit code of a successful run. */
interface Writer {
  /** The command line with `out` as its output. */
  args: (out: string) => string[];
  /** Exit code of a run that writes (an audit's verdict decides it). */
  ok: number;
  /** What it writes at `out`: a folder, a file, or `<out>.key` and `<out>.pub`. */
  writes: "folder" | "file" | "prefix";
}

const WRITERS: Record<string, Writer> = {
  page: { args: (out) => ["page", "--out", out], ok: 0, writes: "folder" },
  audit: { args: (out) => auditArgs(f, out, 2), ok: 0, writes: "folder" },
  "audit merge": {
    args: (out) => [
      "audit",
      "merge",
      "--plan",
      PLAN,
      RESULTS,
      "--key",
      f.key,
      "--worker-pub",
      f.worker.pub,
      "--out",
      out,
    ],
    ok: 0,
    writes: "folder",
  },
  "claims make": {
    args: (out) => ["claims", "make", "--scenario", `${f.dir}/scenario-small.json`, "--out", out],
    ok: 0,
    writes: "folder",
  },
  "model synth": {
    args: (out) => [
      "model",
      "synth",
      "--config",
      `${f.dir}/config.json`,
      "--seed",
      "s",
      "--out",
      out,
    ],
    ok: 0,
    writes: "folder",
  },
  "key generate": { args: (out) => ["key", "generate", "--out", out], ok: 0, writes: "prefix" },
  "key trust-root": {
    args: (out) => ["key", "trust-root", "--pub", f.pub, "--out", out],
    ok: 0,
    writes: "file",
  },
  "audit plan": { args: planArgs, ok: 0, writes: "file" },
  "audit work": { args: workArgs, ok: 0, writes: "file" },
  bundle: {
    args: (out) => ["bundle", `${f.dir}/ok/attestation.dsse.json`, "--out", out],
    ok: 0,
    writes: "file",
  },
};

const audited = await runBitaudit(auditArgs(f, `${f.dir}/ok`, 2));
assert.equal(audited.code, 0, audited.stderr);

for (const [name, w] of Object.entries(WRITERS)) {
  Deno.test(`${name} --out: an existing file is refused or kept, missing folders are created, a file on the way is refused`, async () => {
    const dir = await Deno.makeTempDir({ dir: f.dir, prefix: name.replace(" ", "-") });
    const file = `${dir}/mine.txt`;
    await Deno.writeTextFile(file, MINE);
    const [onFile, missing, under] = await Promise.all([
      runBitaudit(w.args(file)),
      runBitaudit(w.args(`${dir}/new/deeper/out`)),
      runBitaudit(w.args(`${file}/out`)),
    ]);
    // `--out` an existing file: `key generate` writes beside it (<file>.key, <file>.pub).
    if (w.writes === "prefix") assert.equal(onFile.code, w.ok, onFile.stderr);
    else {
      assert.equal(onFile.code, 2, onFile.stderr);
      assertCliCode(onFile.stderr, "OUTPUT_EXISTS");
    }
    assert.equal(missing.code, w.ok, missing.stderr);
    const made = `${dir}/new/deeper/out${w.writes === "prefix" ? ".pub" : ""}`;
    const info = await Deno.stat(made);
    assert.ok(w.writes === "folder" ? info.isDirectory : info.isFile, made);
    assert.equal(under.code, 2, under.stderr);
    assertCliCode(under.stderr, "OUTPUT_WRITE");
    assert.match(under.stderr, /'[^']*mine\.txt' is not a folder/);
    assert.equal(await Deno.readTextFile(file), MINE, "the user's file is as it was");
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    const besides = w.writes === "prefix" ? ["mine.txt.key", "mine.txt.pub"] : [];
    assert.deepEqual(left, ["mine.txt", ...besides, "new"].sort());
  });
}

for (const [name, w] of Object.entries(WRITERS)) {
  Deno.test(`${name} --out lnk/../out: written at the normalised path, nothing left or touched where the system resolves the name`, async () => {
    // Under the CLI's --allow-read --allow-write Deno resolves `..` by the text for a write but
    // by the file system for a removal: unnormalised, a probe, temporary or partial file was
    // written at `out` and removed (or not) at `elsewhere/out`.
    const dir = await Deno.makeTempDir({ dir: f.dir, prefix: name.replace(" ", "-") });
    await Deno.mkdir(`${dir}/elsewhere/d`, { recursive: true });
    await Deno.symlink(`${dir}/elsewhere/d`, `${dir}/lnk`);
    const theirs = ["out", "out.key", "out.partial", "out.pub"];
    for (const n of theirs) await Deno.writeTextFile(`${dir}/elsewhere/${n}`, MINE);
    const r = await runBitaudit(w.args(`${dir}/lnk/../out`));
    assert.equal(r.code, w.ok, r.stderr);
    // Its lines name the path written, not the one given (`lnk/../out` is elsewhere/out to a shell).
    assert.ok(!`${r.stdout}${r.stderr}`.includes("lnk/.."), r.stdout);
    assert.ok(r.stdout.includes(`${dir}/out`), r.stdout);
    const made = w.writes === "prefix" ? ["out.key", "out.pub"] : ["out"];
    assert.deepEqual(await _names(dir), ["elsewhere", "lnk", ...made]);
    if (w.writes === "folder") {
      assert.ok(!(await _names(`${dir}/out`)).some((n) => n.startsWith(".")), "no probe left");
    }
    assert.deepEqual(await _names(`${dir}/elsewhere`), ["d", ...theirs]);
    for (const n of theirs) assert.equal(await Deno.readTextFile(`${dir}/elsewhere/${n}`), MINE);
  });
}

Deno.test("demo --out lnk/../out under -A reads back what it wrote at the normalised path", async () => {
  // Under -A Deno resolves `..` by the file system for every operation: the demo wrote its files
  // at `out` (normalised) and read `lnk/../out/checkpoint.txt` from `elsewhere/out`.
  const dir = await Deno.makeTempDir({ dir: f.dir, prefix: "demo" });
  await Deno.mkdir(`${dir}/elsewhere/d`, { recursive: true });
  await Deno.symlink(`${dir}/elsewhere/d`, `${dir}/lnk`);
  const r = await runBitaudit(["demo", "--out", `${dir}/lnk/../out`, "--json"], { perms: ["-A"] });
  assert.equal(r.code, 0, r.stderr);
  assert.ok((await _names(`${dir}/out`)).includes("attestation.dsse.json"));
  assert.deepEqual(await _names(`${dir}/elsewhere`), ["d"]);
});

Deno.test("page --out a file exits 2 with OUTPUT_EXISTS naming it, never 70", async () => {
  const dir = await Deno.makeTempDir({ dir: f.dir });
  await Deno.writeTextFile(`${dir}/site`, MINE);
  const r = await runBitaudit(["page", "--out", `${dir}/site`]);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    `error [OUTPUT_EXISTS]: Cannot write into '${dir}/site': it exists and is not a folder (not overwritten)\n`,
  );
});

/** The fixture's scenario cut down to two records (`claims make` runs in a second). */
async function _smallScenario(): Promise<string> {
  const s = JSON.parse(await Deno.readTextFile(`${f.dir}/scenario.json`));
  s.records = 2;
  return JSON.stringify(s);
}

Deno.test("--out ending in /. or /.. names a folder after normalisation too: a file or key prefix there is refused as before, a folder is written and named without the dot", async () => {
  const dir = await Deno.makeTempDir({ dir: f.dir, prefix: "dots" });
  await Deno.mkdir(`${dir}/sub`);
  for (const out of [`${dir}/sub/.`, `${dir}/sub/x/..`]) {
    // `normalize` makes `sub/.` the prefix `sub`: sub.key beside the folder, where it refused.
    const keys = await runBitaudit(["key", "generate", "--out", out]);
    assert.equal(keys.code, 2, keys.stderr);
    assertCliCode(keys.stderr, "USAGE_PATH");
    assert.match(keys.stderr, /--out must end in a file name/);
    const root = await runBitaudit(["key", "trust-root", "--pub", f.pub, "--out", out]);
    assert.equal(root.code, 2, root.stderr);
    assertCliCode(root.stderr, "USAGE_PATH");
    assert.match(root.stderr, /it names a file, and '[^']*sub\/' ends in '\/'/);
  }
  assert.deepEqual(await _names(dir), ["sub"]);
  assert.deepEqual(await _names(`${dir}/sub`), []);
  const page = await runBitaudit(["page", "--out", `${dir}/site/.`]);
  assert.equal(page.code, 0, page.stderr);
  assert.ok(page.stdout.includes(`wrote ${dir}/site/index.html`), page.stdout);
});

/** The tiny dense Qwen3 config cut down further (one layer of width 64: synth runs in a second). */
async function _smallConfig(): Promise<string> {
  const c = JSON.parse(
    await Deno.readTextFile(`${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`),
  );
  Object.assign(c, {
    hidden_size: 64,
    intermediate_size: 64,
    head_dim: 32,
    num_hidden_layers: 1,
    max_window_layers: 1,
    vocab_size: 64,
  });
  return JSON.stringify(c);
}

/** The names in a folder, sorted. */
async function _names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("audit --out a folder holding one of its output names is refused before any record is recomputed, the folder as it was", async () => {
  for (const name of ["attestation.dsse.json", "report.html"]) {
    const dir = await Deno.makeTempDir({ dir: f.dir, prefix: "audit-into-" });
    await Deno.writeTextFile(`${dir}/${name}`, MINE);
    const r = await runBitaudit(auditArgs(f, dir, 2));
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "OUTPUT_EXISTS");
    // One line, the refusal: no predicted cost, so nothing was recomputed.
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /predicted cost/);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), [name]);
    assert.equal(await Deno.readTextFile(`${dir}/${name}`), MINE);
  }
});
