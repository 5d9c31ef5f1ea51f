/**
 * A private key file that cannot be used is named in the one-line error, with the option that
 * gave it and escaped for the terminal: "Cannot use key '<file>' (--key): <why>", and one that
 * cannot be read (missing, a folder, a device) or that others may read the same way: "Cannot read
 * key '<file>' (--key): <why>", whichever command reads it and whichever of several keys it is.
 */
import assert from "node:assert/strict";
import { encodePem, encodePublicKeyPem } from "../../src/attest/mod.ts";
import { assertCliCode } from "../_assert_code.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { type CliRun, runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 2, falsify: [] });
const ESC = "a\u001b[2Jb";
const SHOWN = "a\\u{1b}[2Jb";
/** A key file of each kind refused, with the code its error carries. */
const BAD = {
  /** An RFC 8410 prefix with a 31-byte seed: 47 bytes of DER. */
  short: `${f.dir}/short-${ESC}.key`,
  /** A public key where a private one is read. */
  pub: `${f.dir}/public-${ESC}.key`,
};
await Deno.writeTextFile(
  BAD.short,
  encodePem("PRIVATE KEY", new Uint8Array(47).map((_, i) => [0x30, 0x2d][i] ?? 0)),
  { mode: 0o600 },
);
await Deno.writeTextFile(BAD.pub, encodePublicKeyPem(new Uint8Array(32)), { mode: 0o600 });
const PLAN = `${f.dir}/plan.json`;
const planned = await runBitaudit(["audit", "plan", ...auditArgs(f, PLAN, 1).slice(1)]);
assert.equal(planned.code, 0, planned.stderr);

/** Asserts one escaped line naming the file and the option, with the code. */
function namesKey(r: CliRun, o: { path: string; option: string; code: "BAD_KEY" | "BAD_PEM" }) {
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, o.code);
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assert.ok(!r.stderr.includes("\u001b"), JSON.stringify(r.stderr));
  const shown = o.path.replace(ESC, SHOWN);
  assert.ok(r.stderr.includes(`Cannot use key '${shown}' (${o.option}): `), r.stderr);
}

Deno.test("audit names the --key or --worker-key file a BAD_KEY or BAD_PEM comes from, escaped, among several", async () => {
  const args = auditArgs(f, `${f.dir}/out`, 1);
  const at = args.indexOf("--key") + 1;
  const withKeys = (keys: string[], extra: string[] = []) => [
    ...args.slice(0, at),
    ...keys,
    ...args.slice(at + 1),
    ...extra,
  ];
  namesKey(await runBitaudit(withKeys([f.key, BAD.short, f.worker.key])), {
    path: BAD.short,
    option: "--key",
    code: "BAD_KEY",
  });
  namesKey(await runBitaudit(withKeys([f.key], ["--worker-key", BAD.pub])), {
    path: BAD.pub,
    option: "--worker-key",
    code: "BAD_PEM",
  });
});

Deno.test("audit work and claims checkpoint name the --key file a BAD_KEY or BAD_PEM comes from", async () => {
  const work = await runBitaudit([
    ...["audit", "work", "--plan", PLAN, "--log", f.log, "--shard", "0/1"],
    ...["--key", BAD.pub, "--out", `${f.dir}/results.jsonl`],
  ]);
  namesKey(work, { path: BAD.pub, option: "--key", code: "BAD_PEM" });
  const checkpoint = await runBitaudit([
    ...["claims", "checkpoint", "--log", f.log, "--key", BAD.short, "--origin", "a/b"],
    ...["--out", `${f.dir}/cp.txt`],
  ]);
  namesKey(checkpoint, { path: BAD.short, option: "--key", code: "BAD_KEY" });
});

Deno.test("audit, audit work and claims checkpoint name the --key or --worker-key file that cannot be read (missing, a folder, others may read it), escaped, and say an empty one is empty", async () => {
  const missing = `${f.dir}/missing-${ESC}.key`;
  const folder = `${f.dir}/folder-${ESC}.key`;
  const open = `${f.dir}/open-${ESC}.key`;
  const empty = `${f.dir}/empty-${ESC}.key`;
  await Deno.mkdir(folder);
  await Deno.writeTextFile(open, await Deno.readTextFile(f.key), { mode: 0o644 });
  await Deno.chmod(open, 0o644);
  await Deno.writeTextFile(empty, "", { mode: 0o600 });
  const refusals: [string, string, string][] = [
    [missing, "INPUT_MISSING", "Cannot read key '%' (%): no such file"],
    [folder, "INPUT_MISSING", "Cannot read key '%' (%): not a file"],
    [open, "KEY_PERMISSIONS", "Cannot use key '%' (%): mode 644 lets group or others access it"],
    [empty, "BAD_PEM", "Cannot use key '%' (%): it is empty"],
  ];
  const args = auditArgs(f, `${f.dir}/out-read`, 1);
  const at = args.indexOf("--key") + 1;
  for (const [path, code, message] of refusals) {
    const runs: [CliRun, string][] = [
      [await runBitaudit([...args.slice(0, at), path, ...args.slice(at + 1)]), "--key"],
      [await runBitaudit([...args, "--worker-key", path]), "--worker-key"],
      [
        await runBitaudit([
          ...["audit", "work", "--plan", PLAN, "--log", f.log, "--shard", "0/1"],
          ...["--key", path, "--out", `${f.dir}/results-read.jsonl`],
        ]),
        "--key",
      ],
      [
        await runBitaudit([
          ...["claims", "checkpoint", "--log", f.log, "--key", path, "--origin", "a/b"],
          ...["--out", `${f.dir}/cp-read.txt`],
        ]),
        "--key",
      ],
    ];
    for (const [r, option] of runs) {
      assert.equal(r.code, 2, r.stderr);
      assertCliCode(r.stderr, code as "INPUT_MISSING");
      assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
      assert.ok(!r.stderr.includes("\u001b"), JSON.stringify(r.stderr));
      const expected = message.replace("%", path.replace(ESC, SHOWN)).replace("%", option);
      assert.ok(r.stderr.includes(expected), `${option}: ${r.stderr}`);
    }
  }
  await assert.rejects(Deno.lstat(`${f.dir}/out-read`), Deno.errors.NotFound);
  await assert.rejects(Deno.lstat(`${f.dir}/cp-read.txt`), Deno.errors.NotFound);
});

Deno.test("a key file with a byte order mark or a no-break space is refused by audit --key and key trust-root --pub (BAD_PEM naming it), nothing written", async () => {
  const [key, pub] = [await Deno.readTextFile(f.key), await Deno.readTextFile(f.pub)];
  const bomKey = `${f.dir}/bom.key`;
  await Deno.writeTextFile(bomKey, `\ufeff${key}`, { mode: 0o600 });
  const args = auditArgs(f, `${f.dir}/out-bom`, 1);
  args[args.indexOf("--key") + 1] = bomKey;
  const audited = await runBitaudit(args);
  namesKey(audited, { path: bomKey, option: "--key", code: "BAD_PEM" });
  assert.match(audited.stderr, /line 1 holds U\+FEFF \(byte order mark\)/);
  for (const [i, text] of [`\ufeff${pub}`, `${pub}\u00a0\n`].entries()) {
    const file = `${f.dir}/odd-${i}.pub`;
    await Deno.writeTextFile(file, text);
    const out = `${f.dir}/root-${i}.json`;
    const r = await runBitaudit(["key", "trust-root", "--pub", file, "--out", out]);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "BAD_PEM");
    assert.match(r.stderr, i === 0 ? /U\+FEFF/ : /line 4 holds U\+00A0 \(no-break space\)/);
    await assert.rejects(Deno.lstat(out), Deno.errors.NotFound);
  }
});

Deno.test("a key given as /dev/stdin, /dev/fd/0 or /proc/self/fd/0 is refused as not a file (INPUT_MISSING, as a FIFO is), not as a missing --allow-all", async () => {
  const args = auditArgs(f, `${f.dir}/out-stdin`, 1);
  const at = args.indexOf("--key") + 1;
  for (const path of ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]) {
    for (const extra of [[], ["--worker-key", path]]) {
      const run = [...args, ...extra];
      if (extra.length === 0) run[at] = path;
      const r = await runBitaudit(run);
      assert.equal(r.code, 2, r.stderr);
      assertCliCode(r.stderr, "INPUT_MISSING");
      const option = extra.length === 0 ? "--key" : "--worker-key";
      assert.ok(r.stderr.includes(`Cannot read key '${path}' (${option}): not a file`), r.stderr);
    }
  }
  // Read access not given at all is still the permission Deno lacks.
  const denied = await runBitaudit([...args.slice(0, at), "/dev/stdin", ...args.slice(at + 1)], {
    perms: [`--allow-read=${f.dir}`, "--allow-write"],
  });
  assertCliCode(denied.stderr, "PERMISSION");
  // A link in a folder read access was given for, to a key file outside it: the permission Deno
  // lacks is the target's, not a device's rule (it said "not a file (a device, ...)").
  const outside = await Deno.makeTempDir({ prefix: "bitaudit-key-outside-" });
  try {
    await Deno.copyFile(args[at]!, `${outside}/k.key`);
    await Deno.chmod(`${outside}/k.key`, 0o600);
    await Deno.symlink(`${outside}/k.key`, `${f.dir}/link.key`);
    const link = await runBitaudit(
      [...args.slice(0, at), `${f.dir}/link.key`, ...args.slice(at + 1)],
      { perms: [`--allow-read=${f.dir}`, "--allow-write"] },
    );
    assertCliCode(link.stderr, "PERMISSION");
    assert.ok(!link.stderr.includes("not a file"), link.stderr);
  } finally {
    await Deno.remove(`${f.dir}/link.key`).catch(() => {});
    await Deno.remove(outside, { recursive: true });
  }
});
