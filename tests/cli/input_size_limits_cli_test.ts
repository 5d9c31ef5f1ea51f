/**
 * A file past its input's size limit is refused from its stated size, before it is read: a trust
 * root over 16 MiB (`check --trust-root`), a public key over 64 KiB (`key trust-root --pub`) and a
 * private key over 64 KiB (`claims checkpoint --key`) are INPUT_TOO_LARGE with the usage exit code
 * (2), and a file of exactly the limit is read (and refused for what it holds). The files are
 * sparse: nothing of them is ever written.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { type CliRun, runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 2, falsify: [] });

/** A sparse file of `bytes` zero bytes (a key with the mode a key file must have). */
async function sparse(name: string, bytes: number): Promise<string> {
  const path = `${f.dir}/${name}`;
  await Deno.writeFile(path, new Uint8Array(), { mode: 0o600 });
  await Deno.truncate(path, bytes);
  return path;
}

/** Asserts the run refused the file as too large, with the usage exit code, in one line. */
function tooLarge(r: CliRun, limit: number): void {
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "INPUT_TOO_LARGE");
  assert.match(r.stderr, new RegExp(`: ${limit + 1} bytes exceeds the ${limit}-byte limit\\n$`));
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
}

/** Asserts the run read the file (its size was allowed) and refused what it holds instead. */
function readThenRefused(r: CliRun): void {
  assert.equal(r.code, 2, r.stderr);
  assert.doesNotMatch(r.stderr, /INPUT_TOO_LARGE/);
}

Deno.test("check refuses a trust root over 16 MiB as INPUT_TOO_LARGE (exit 2) before reading it", async () => {
  const out = `${f.dir}/out`;
  const audited = await runBitaudit(auditArgs(f, out, 1));
  assert.equal(audited.code, 0, audited.stderr);
  const attestation = `${out}/attestation.dsse.json`;
  const limit = 16 * 1024 * 1024;
  const big = await sparse("big-root.json", limit + 1);
  tooLarge(await runBitaudit(["check", attestation, "--trust-root", big]), limit);
  const atLimit = await sparse("root-at-limit.json", limit);
  readThenRefused(await runBitaudit(["check", attestation, "--trust-root", atLimit]));
});

Deno.test("key trust-root refuses a --pub file over 64 KiB as INPUT_TOO_LARGE (exit 2) before reading it", async () => {
  const limit = 64 * 1024;
  const out = `${f.dir}/root.json`;
  const big = await sparse("big.pub", limit + 1);
  tooLarge(await runBitaudit(["key", "trust-root", "--pub", big, "--out", out]), limit);
  const atLimit = await sparse("at-limit.pub", limit);
  readThenRefused(await runBitaudit(["key", "trust-root", "--pub", atLimit, "--out", out]));
  await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
});

Deno.test("claims checkpoint refuses a --key file over 64 KiB as INPUT_TOO_LARGE (exit 2) before reading it", async () => {
  const limit = 64 * 1024;
  const out = `${f.dir}/checkpoint.txt`;
  const run = (key: string) =>
    runBitaudit([
      ...["claims", "checkpoint", "--log", f.log, "--key", key, "--origin", "a/b"],
      ...["--out", out],
    ]);
  tooLarge(await run(await sparse("big.key", limit + 1)), limit);
  readThenRefused(await run(await sparse("at-limit.key", limit)));
  await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
});
