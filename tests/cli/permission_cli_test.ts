/**
 * A permission Deno was not given is the CLI's PERMISSION error (exit 2) naming what to grant,
 * wherever the refusal comes from: the install's manifest and assets (not a tampered install,
 * exit 5), a pool worker's or the weight digest's worker script (not an internal error, nor the
 * checkpoint's fault), a checkpoint folder (not CHECKPOINT_DIR) and an output file (not
 * OUTPUT_WRITE). Nothing is left written.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { type CliRun, REPO_ROOT, runBitaudit } from "./_run.ts";

/** Asserts a one-line PERMISSION error naming `what`, with no trace of a worker's own report. */
function assertPermission(r: CliRun, what: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "PERMISSION");
  assert.match(r.stderr, what);
  assert.doesNotMatch(r.stderr, /internal error|Uncaught|\n\s+at /, r.stderr);
  assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
}

function _exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

Deno.test("a command that may not read the install's manifest or an asset says PERMISSION, not a tampered install", async () => {
  const noManifest = await runBitaudit(["profiles", "list"], {
    perms: [`--allow-read=${REPO_ROOT}/src`],
  });
  assertPermission(noManifest, /"[^"]*\/tables\/manifest\.json".*--allow-read/);
  const noProfiles = await runBitaudit(["profiles", "list"], {
    perms: [`--allow-read=${REPO_ROOT}/src,${REPO_ROOT}/tables`],
  });
  assertPermission(noProfiles, /"[^"]*\/profiles\/gpu\/[^"]+\.json".*--allow-read/);
});

Deno.test("an audit that may not read a pool worker's script says PERMISSION naming it, not an internal error", async () => {
  const f = await makeAuditFixture({ records: 1, falsify: [] });
  const out = `${f.dir}/out`;
  const r = await runBitaudit([...auditArgs(f, out, 1), "--threads", "2"], {
    perms: [
      `--allow-read=${REPO_ROOT},${f.dir}`,
      `--allow-write=${f.dir}`,
      `--deny-read=${REPO_ROOT}/src/engine/gemm_worker.ts`,
    ],
  });
  assertPermission(r, /"[^"]*\/src\/engine\/gemm_worker\.ts".*--allow-read/);
  assert.equal(await _exists(out), false, "nothing written");
});

Deno.test("model forward that may not read the weight digest's worker script says PERMISSION, not CHECKPOINT_DIGEST, and writes nothing", async () => {
  const dir = await tempDir({ prefix: "bitaudit-permission-" });
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify({ sequences: [[1, 2, 3]] }));
  const out = `${dir}/hidden.safetensors`;
  const r = await runBitaudit([
    ...["model", "forward", "--checkpoint", `${REPO_ROOT}/tables/models/qwen3-tiny-dense`],
    ...["--tokens", `${dir}/tokens.json`, "--profile", "a100"],
    ...["--stack", "hf-qwen3-flash-attn-torch2.8", "--kernel", "demo-qwen3-tiny-a100"],
    ...["--out", out, "--threads", "1"],
  ], {
    perms: [
      `--allow-read=${REPO_ROOT},${dir}`,
      `--allow-write=${dir}`,
      `--deny-read=${REPO_ROOT}/src/cli/file_digest_worker.ts`,
    ],
  });
  assertPermission(r, /"[^"]*\/src\/cli\/file_digest_worker\.ts".*--allow-read/);
  assert.equal(await _exists(out), false, "no output left");
});

Deno.test("a checkpoint folder or an output file the runtime refuses is PERMISSION, not CHECKPOINT_DIR or OUTPUT_WRITE", async () => {
  const dir = await tempDir({ prefix: "bitaudit-permission-" });
  await Deno.writeTextFile(`${dir}/tokens.json`, JSON.stringify({ sequences: [[1, 2, 3]] }));
  const ckpt = `${dir}/ckpt`;
  await Deno.mkdir(ckpt);
  for (const name of ["config.json", "model.safetensors"]) {
    await Deno.copyFile(`${REPO_ROOT}/tables/models/qwen3-tiny-dense/${name}`, `${ckpt}/${name}`);
  }
  const forward = await runBitaudit([
    ...["model", "forward", "--checkpoint", ckpt, "--tokens", `${dir}/tokens.json`],
    ...["--profile", "a100", "--stack", "hf-qwen3-flash-attn-torch2.8"],
    ...["--kernel", "demo-qwen3-tiny-a100", "--out", `${dir}/hidden.safetensors`],
  ], { perms: [`--allow-read=${REPO_ROOT},${dir}/tokens.json`, `--allow-write=${dir}`] });
  assertPermission(forward, new RegExp(`"${ckpt}".*--allow-read`));
  const key = await runBitaudit(["key", "generate", "--out", `${dir}/inspector`], {
    perms: [
      `--allow-read=${REPO_ROOT},${dir}`,
      `--allow-write=${dir}`,
      `--deny-write=${dir}/inspector.key`,
    ],
  });
  assertPermission(key, new RegExp(`"${dir}/inspector\\.key".*--allow-write`));
  assert.equal(await _exists(`${dir}/inspector.key`), false);
  assert.equal(await _exists(`${dir}/inspector.pub`), false);
});
