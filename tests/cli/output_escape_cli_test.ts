/**
 * The "wrote <path>" lines quote the path the user gave, and a path can hold any character: each
 * is escaped for the terminal like every other line a command prints, so an escape sequence in a
 * file name cannot clear the screen or paint over what the command said. The one-line error that
 * quotes an input's path is escaped the same way.
 */
import assert from "node:assert/strict";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { REPO_ROOT, runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 2, falsify: [] });
const ESC = "a\u001b[2Jb\u202e";
const SHOWN = "a\\u{1b}[2Jb\\u{202e}";

/** Asserts that the run succeeded and printed the name escaped, never raw. */
function assertEscaped(r: { code: number; stdout: string; stderr: string }): void {
  assert.equal(r.code, 0, r.stderr);
  const all = r.stdout + r.stderr;
  assert.ok(!all.includes("\u001b") && !all.includes("\u202e"), JSON.stringify(r.stdout));
  assert.ok(r.stdout.includes(SHOWN), r.stdout);
}

Deno.test("claims checkpoint, audit plan and audit work print their output path escaped", async () => {
  const prover = `${f.dir}/inspector.key`;
  assertEscaped(
    await runBitaudit([
      ...["claims", "checkpoint", "--log", f.log, "--key", prover, "--origin", "a/b"],
      ...["--out", `${f.dir}/cp-${ESC}.txt`],
    ]),
  );
  const plan = `${f.dir}/plan-${ESC}.json`;
  const planArgs = auditArgs(f, plan, 1).slice(1);
  assertEscaped(await runBitaudit(["audit", "plan", ...planArgs]));
  assertEscaped(
    await runBitaudit([
      ...["audit", "work", "--plan", plan, "--log", f.log, "--key", f.worker.key],
      ...["--shard", "0/1", "--out", `${f.dir}/results-${ESC}.jsonl`],
    ]),
  );
});

Deno.test("model synth prints its output folder escaped", async () => {
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
  await Deno.writeTextFile(`${f.dir}/config.json`, JSON.stringify(c));
  assertEscaped(
    await runBitaudit([
      ...["model", "synth", "--config", `${f.dir}/config.json`, "--seed", "1"],
      ...["--out", `${f.dir}/model-${ESC}`],
    ]),
  );
});

Deno.test("check prints the attestation path of its error escaped: a control or bidi character in a file name cannot act on the terminal", async () => {
  const path = `${f.dir}/nope-${ESC}.json`;
  const r = await runBitaudit(["check", path, "--trust-root", f.trustRoot]);
  assert.equal(r.code, 2, r.stderr);
  assert.ok(!r.stderr.includes("\u001b") && !r.stderr.includes("\u202e"), JSON.stringify(r.stderr));
  assert.ok(r.stderr.includes(`Cannot read '${f.dir}/nope-${SHOWN}.json': `), r.stderr);
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
});
