import assert from "node:assert/strict";
import { makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { decodePrivateKeyPem, signCheckpoint } from "../../src/attest/mod.ts";
import { merkleRoot } from "../../src/claims/mod.ts";

const f = await makeAuditFixture({ records: 6, falsify: [] });
const prover = await generateKeys(`${f.dir}/prover`);
const stranger = await generateKeys(`${f.dir}/stranger`);
const lines = (await Deno.readTextFile(f.log)).split("\n").filter((l) => l.length > 0);
const prefix = `${f.dir}/prefix.jsonl`;
await Deno.writeTextFile(prefix, lines.slice(0, 4).map((l) => `${l}\n`).join(""));
const ORIGIN = "bitaudit.example/prover-1/log";
/** `claims checkpoint` of `log` into `out` (the prover's key, ORIGIN), with `extra` flags. */
const checkpoint = (
  log: string,
  out: string,
  extra: string[],
  o: { key?: string; origin?: string } = {},
) =>
  runBitaudit([
    "claims",
    "checkpoint",
    "--log",
    log,
    "--key",
    o.key ?? prover.privateKey,
    "--origin",
    o.origin ?? ORIGIN,
    "--out",
    out,
    ...extra,
  ]);
const sign = (log: string, out: string, key = prover.privateKey) =>
  checkpoint(log, out, ["--time", "2023-08-23T15:00:00Z", "--json"], { key });

Deno.test("claims checkpoint signs a C2SP checkpoint of the log and never overwrites", async () => {
  const out = `${f.dir}/cp-full.txt`;
  const r = await sign(f.log, out);
  assert.equal(r.code, 0, r.stderr);
  const text = await Deno.readTextFile(out);
  const [origin, size] = text.split("\n");
  assert.equal(origin, ORIGIN);
  assert.equal(size, "6");
  const root = (await runBitaudit(["claims", "root", "--log", f.log])).stdout.trim();
  assert.equal(JSON.parse(r.stdout).root, root);
  const again = await sign(f.log, out);
  assert.equal(again.code, 2);
  assertCliCode(again.stderr, "OUTPUT_EXISTS");
  assert.equal(await Deno.readTextFile(out), text);
});

Deno.test("claims consistency proves that a log grew and refuses a forked one", async () => {
  await sign(prefix, `${f.dir}/cp-old.txt`);
  await sign(f.log, `${f.dir}/cp-new.txt`);
  const args = (oldCp: string, pub = prover.publicKey) => [
    "claims",
    "consistency",
    "--old",
    oldCp,
    "--new",
    `${f.dir}/cp-new.txt`,
    "--log",
    f.log,
    "--pub",
    pub,
    "--json",
  ];
  const ok = await runBitaudit(args(`${f.dir}/cp-old.txt`));
  assert.equal(ok.code, 0, ok.stderr);
  const res = JSON.parse(ok.stdout);
  assert.equal(res.consistent, true);
  assert.equal(res.oldSize, 4);
  assert.equal(res.newSize, 6);
  assert.equal(res.signaturesChecked, true);
  // An old checkpoint over another 4-record log of the same prover (record 2 differs): not a
  // prefix of the new log.
  const other = await makeAuditFixture({
    records: 4,
    falsify: [{ seq: 2, kind: "fingerprint", bit: 3 }],
  });
  const forkedCp = `${f.dir}/cp-forked.txt`;
  const s = await sign(other.log, forkedCp);
  assert.equal(s.code, 0, s.stderr);
  const bad = await runBitaudit(args(forkedCp));
  assert.equal(bad.code, 1, bad.stderr);
  assert.equal(JSON.parse(bad.stdout).consistent, false);
  // Signature by a key that is not the prover's: an input error, exit 2.
  const wrongKey = await runBitaudit(args(`${f.dir}/cp-old.txt`, stranger.publicKey));
  assert.equal(wrongKey.code, 2);
  assertCliCode(wrongKey.stderr, "CHECKPOINT_SIGNATURE");
});

Deno.test("claims consistency says NOT consistent for an old checkpoint of size 0 without the empty tree's root", async () => {
  await sign(f.log, `${f.dir}/cp-new-0.txt`);
  const signed = async (root: Uint8Array) => {
    const key = decodePrivateKeyPem(await Deno.readTextFile(prover.privateKey));
    const cp = { origin: ORIGIN, treeSize: 0, rootHash: root, extensions: [] };
    const out = `${f.dir}/cp-size0-${root[0]}.txt`;
    await Deno.writeTextFile(out, await signCheckpoint(cp, { privateKey: key, time: 1692802800 }));
    return out;
  };
  const run = async (oldCp: string) =>
    await runBitaudit([
      ...["claims", "consistency", "--old", oldCp, "--new", `${f.dir}/cp-new-0.txt`],
      ...["--log", f.log, "--pub", prover.publicKey, "--json"],
    ]);
  const bad = await run(await signed(new Uint8Array(32).fill(0x11)));
  assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  assert.equal(JSON.parse(bad.stdout).consistent, false);
  assert.match(JSON.parse(bad.stdout).reason, /tree size 0/);
  const empty = await run(await signed(merkleRoot([])));
  assert.equal(empty.code, 0, empty.stdout + empty.stderr);
  assert.equal(JSON.parse(empty.stdout).consistent, true);
});

Deno.test("claims consistency over a log that is not the new checkpoint's is refused, not called a fork", async () => {
  await sign(prefix, `${f.dir}/cp-old-2.txt`);
  await sign(f.log, `${f.dir}/cp-new-2.txt`);
  // Another 6-record log: the checkpoints are consistent, but this file is not what they signed.
  const other = await makeAuditFixture({
    records: 6,
    falsify: [{ seq: 5, kind: "fingerprint", bit: 1 }],
  });
  const r = await runBitaudit([
    ...["claims", "consistency", "--old", `${f.dir}/cp-old-2.txt`],
    ...["--new", `${f.dir}/cp-new-2.txt`, "--log", other.log, "--pub", prover.publicKey],
  ]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assertCliCode(r.stderr, "CHECKPOINT_MISMATCH");
  assert.doesNotMatch(r.stdout, /NOT consistent/);
});

Deno.test("claims consistency refuses checkpoints of two origins (two logs), not calling them a fork", async () => {
  // Review h56: an old checkpoint of another origin printed "NOT consistent: ... 3 -> 6", exit 1.
  await sign(f.log, `${f.dir}/cp-new-3.txt`);
  const key = decodePrivateKeyPem(await Deno.readTextFile(prover.privateKey));
  const cp = { origin: "other/log", treeSize: 4, rootHash: merkleRoot([]), extensions: [] };
  const oldCp = `${f.dir}/cp-other-origin.txt`;
  await Deno.writeTextFile(oldCp, await signCheckpoint(cp, { privateKey: key, time: 1692802800 }));
  const r = await runBitaudit([
    ...["claims", "consistency", "--old", oldCp, "--new", `${f.dir}/cp-new-3.txt`],
    ...["--log", f.log, "--pub", prover.publicKey],
  ]);
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assertCliCode(r.stderr, "CHECKPOINT_MISMATCH");
  assert.match(r.stderr, /different logs \(origin "other\/log" of --old, "[^"]+" of --new\)/);
  assert.doesNotMatch(r.stdout, /NOT consistent/);
});

Deno.test("claims checkpoint takes an origin of printable ASCII only, without spaces or '+', at most 256 characters", async () => {
  for (const origin of ["x\u202ey", "a\u001b[2Jb", "two words", "a+b", "o".repeat(257), "é/log"]) {
    const out = `${f.dir}/cp-bad-${origin.length}.txt`;
    const r = await checkpoint(f.log, out, [], { origin });
    assertCliCode(r.stderr, "USAGE");
    assert.match(r.stderr, /--origin must be 1 to 256 printable ASCII characters/);
    await assert.rejects(() => Deno.stat(out), Deno.errors.NotFound);
  }
});

Deno.test("claims checkpoint --time is held to every --time's rule: UTC to the second, not in the future (USAGE_TIME, nothing written)", async () => {
  for (
    const time of ["9999-12-31T23:59:59Z", "2023-08-23T15:00:00+01:00", "2023-08-23T15:00:00.999Z"]
  ) {
    const out = `${f.dir}/cp-time-${time.length}-${time.slice(-3)}.txt`;
    const r = await checkpoint(f.log, out, ["--time", time]);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE_TIME");
    if (time.startsWith("9999")) assert.match(r.stderr, /announce and audit refuse a checkpoint/);
    await assert.rejects(Deno.stat(out), Deno.errors.NotFound);
  }
});

Deno.test("claims checkpoint says '1 record' of a one-record log and 'n records' of a longer one", async () => {
  // Review h175: a one-record log was "1 records".
  const one = `${f.dir}/one.jsonl`;
  await Deno.writeTextFile(one, `${lines[0]}\n`);
  const r = await checkpoint(one, `${f.dir}/cp-one.txt`, ["--time", "2023-08-23T15:00:00Z"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^wrote .*cp-one\.txt: 1 record, root [0-9a-f]{64}\n$/);
  const six = await checkpoint(f.log, `${f.dir}/cp-six.txt`, ["--time", "2023-08-23T15:00:00Z"]);
  assert.match(six.stdout, /^wrote .*cp-six\.txt: 6 records, root [0-9a-f]{64}\n$/);
});
