/**
 * Issue 19, part 7: recompute workers run sandboxed (no permission at all), and the hermetic
 * command lines of the inspector's guide (docs/inspector.md) work under exactly the flags they show.
 */
import assert from "node:assert/strict";
import { createGemmEngine, startWorkerGroup } from "../../src/engine/mod.ts";
import { auditArgs, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";

Deno.test("a recompute worker can read no file, no environment, no network and start no process", async () => {
  const { module } = createGemmEngine(
    await Deno.readFile(`${REPO_ROOT}/tables/wasm/gemm_engine.wasm`),
  );
  const group = startWorkerGroup(new URL("./fixtures/probe_worker.ts", import.meta.url), {
    count: 1,
    module,
  });
  try {
    const [r] = await Promise.allSettled(
      group.post((id) => ({ id, path: `${REPO_ROOT}/deno.json` })),
    );
    assert.equal(r?.status, "rejected");
    const why = String((r as PromiseRejectedResult).reason);
    for (const what of ["file", "env", "run"]) {
      assert.match(why, new RegExp(`${what}: NotCapable`), why);
    }
    assert.match(why, /net: \w+ \(Requires net access/, why);
  } finally {
    group.close();
  }
});

/** The hermetic command lines of docs/inspector.md, with the example paths replaced. */
async function hermeticLines(): Promise<string[][]> {
  const guide = await Deno.readTextFile(`${REPO_ROOT}/docs/inspector.md`);
  const block = guide.split("\n## Hermetic one-shot run\n")[1]!.split("```sh\n")[1]!.split(
    "```",
  )[0]!;
  return block.replace(/\\\n\s*/g, "").trim().split("\n").map((l) => l.trim().split(/\s+/));
}

Deno.test("the inspector guide's hermetic audit and check run under exactly the flags shown", async () => {
  const f = await makeAuditFixture({ records: 3, falsify: [] });
  const out = `${f.dir}/out`;
  const args = auditArgs(f, out, 2);
  const subst = (word: string) =>
    word
      .replaceAll("/path/to/claims.jsonl", f.log)
      .replaceAll("/path/to/blobs", `${f.dir}/log/blobs`)
      .replaceAll("/path/to/inspector.key", f.key)
      .replaceAll("/path/to/trust-root.json", f.trustRoot)
      .replaceAll("/path/to/out", out)
      .replace("<hex>", args[args.indexOf("--randomness") + 1]!)
      .replace("<n>", args[args.indexOf("--round") + 1]!);
  const lines = await hermeticLines();
  assert.equal(lines.length, 2);
  for (const line of lines) {
    assert.deepEqual(line.slice(0, 2), ["deno", "run"]);
    const words = line.slice(2).map(subst).map((w) => w === "100" ? "2" : w);
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...words],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    assert.equal(r.code, 0, `${words.join(" ")}\n${dec.decode(r.stdout)}${dec.decode(r.stderr)}`);
  }
});

Deno.test("an audit the sandbox does not let read the blobs stops with PERMISSION, blaming no prover", async () => {
  const f = await makeAuditFixture({ records: 3, falsify: [] });
  const out = `${f.dir}/out`;
  // The hermetic line's read list without the blob folder: every sampled tensor is denied.
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      `--allow-read=.,${f.log},${f.key},${out}`,
      `--allow-write=${out}`,
      "src/cli/main.ts",
      ...auditArgs(f, out, 2),
    ],
    cwd: REPO_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  const err = dec.decode(r.stderr);
  assert.equal(r.code, 2, `${dec.decode(r.stdout)}${err}`);
  assert.match(err, /^error \[PERMISSION\]: .*blobs/m, err);
  assert.doesNotMatch(err, /internal error|\n\s+at /, err);
  await assert.rejects(Deno.stat(`${out}/attestation.dsse.json`), Deno.errors.NotFound);
});

Deno.test("an audit or check --recompute given a blob folder that is not there stops, blaming no prover", async () => {
  const f = await makeAuditFixture({ records: 3, falsify: [] });
  const out = `${f.dir}/out`;
  const dec = new TextDecoder();
  const run = async (args: string[]) => {
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "src/cli/main.ts", ...args],
      cwd: REPO_ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: r.code, err: dec.decode(r.stderr), out: dec.decode(r.stdout) };
  };
  const audit = await run([...auditArgs(f, out, 2), "--blobs", `${f.dir}/mistyped`]);
  assert.equal(audit.code, 2, audit.out + audit.err);
  assert.match(
    audit.err,
    /^error \[INPUT_MISSING\]: Cannot read blobs from .*mistyped.*no such folder/m,
  );
  await assert.rejects(Deno.stat(`${out}/attestation.dsse.json`), Deno.errors.NotFound);
  // With the right folder the same audit signs, and check --recompute refuses a missing one too.
  const ok = await run(auditArgs(f, out, 2));
  assert.equal(ok.code, 0, ok.err);
  const check = await run([
    ...["check", `${out}/attestation.dsse.json`, "--trust-root", f.trustRoot],
    ...["--log", f.log, "--recompute", "--blobs", `${f.dir}/mistyped`],
  ]);
  assert.equal(check.code, 2, check.out + check.err);
  assert.match(check.err, /^error \[INPUT_MISSING\]: Cannot read blobs from /m);
  // A folder that cannot be reached at all (a link loop) is missing too, not an internal error.
  await Deno.symlink(`${f.dir}/loop2`, `${f.dir}/loop1`);
  await Deno.symlink(`${f.dir}/loop1`, `${f.dir}/loop2`);
  const loop = await run([...auditArgs(f, `${f.dir}/out2`, 2), "--blobs", `${f.dir}/loop1`]);
  assert.equal(loop.code, 2, loop.out + loop.err);
  assert.match(loop.err, /^error \[INPUT_MISSING\]: Cannot read blobs from .*loop1/m);
});
