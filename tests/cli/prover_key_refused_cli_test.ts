/**
 * Keys refused for the role a command would give them, before anything is computed or written:
 * the prover's key (`--prover-pub`, or a plan's prover key) neither signs nor computes the audit
 * of its own claims, and `audit work` is never given the key that signed its plan. Keys are
 * compared, not paths: a copy of the prover's key file is the prover's key.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { type CliRun, runBitaudit } from "./_run.ts";
import { BEACON, CHAIN, f, goodCheckpoint, prover } from "./_trust_fixture.ts";

const TRUST = [
  ...["--beacon", BEACON, "--chain", CHAIN],
  ...["--checkpoint", goodCheckpoint, "--prover-pub", prover.publicKey],
];
const AUDIT = ["--log", f.log, "--k", "3", ...TRUST];
const PROVER_COPY = `${f.dir}/renamed.key`;
await Deno.copyFile(prover.privateKey, PROVER_COPY);
await Deno.chmod(PROVER_COPY, 0o600);
const PLAN = `${f.dir}/plan.json`;
const planned = await runBitaudit(["audit", "plan", ...AUDIT, "--key", f.key, "--out", PLAN]);
assert.equal(planned.code, 0, planned.stderr);
const WORK = ["audit", "work", "--plan", PLAN, "--log", f.log, "--shard", "0/1"];
const RESULTS = `${f.dir}/results.jsonl`;
const worked = await runBitaudit([...WORK, "--key", f.worker.key, "--out", RESULTS]);
assert.equal(worked.code, 0, worked.stderr);

/** Asserts a one-line USAGE_KEYS naming the option, the file and the key id, and no `out`. */
async function refusedKey(
  r: CliRun,
  o: { option: string; path: string; keyid: string; out: string },
): Promise<void> {
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE_KEYS");
  assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
  assert.ok(r.stderr.includes(`${o.option} '${o.path}'`), r.stderr);
  assert.ok(r.stderr.includes(o.keyid.slice(0, 16)), r.stderr);
  await assert.rejects(Deno.lstat(o.out), Deno.errors.NotFound);
}

Deno.test("audit refuses a --key or --worker-key that is the --prover-pub key (a copy too) with USAGE_KEYS, writing nothing", async () => {
  for (
    const [i, args, option, path] of [
      [0, ["--key", prover.privateKey], "--key", prover.privateKey],
      [1, ["--key", f.key, PROVER_COPY], "--key", PROVER_COPY],
      [2, ["--key", f.key, "--worker-key", PROVER_COPY], "--worker-key", PROVER_COPY],
    ] as const
  ) {
    const out = `${f.dir}/audit-prover-${i}`;
    const r = await runBitaudit(["audit", ...AUDIT, ...args, "--out", out]);
    await refusedKey(r, { option, path, keyid: prover.keyid, out });
  }
});

Deno.test("audit plan and announce refuse a --key that is the --prover-pub key with USAGE_KEYS, writing nothing", async () => {
  const plan = `${f.dir}/plan-prover.json`;
  const r = await runBitaudit(["audit", "plan", ...AUDIT, "--key", PROVER_COPY, "--out", plan]);
  await refusedKey(r, { option: "--key", path: PROVER_COPY, keyid: prover.keyid, out: plan });
  const announcement = `${f.dir}/announcement-prover.dsse.json`;
  const a = await runBitaudit([
    ...["announce", "--checkpoint", goodCheckpoint, "--prover-pub", prover.publicKey],
    ...["--chain", CHAIN, "--round", "123", "--k", "3", "--key", f.key, PROVER_COPY],
    ...["--out", announcement, "--time", "2023-08-23T15:15:10Z"],
  ]);
  await refusedKey(a, {
    option: "--key",
    path: PROVER_COPY,
    keyid: prover.keyid,
    out: announcement,
  });
});

Deno.test("audit work refuses the key that signed its plan (the inspector's) and the plan's prover key with USAGE_KEYS, writing nothing", async () => {
  for (const [i, key, keyid] of [[0, f.key, f.keyid], [1, PROVER_COPY, prover.keyid]] as const) {
    const out = `${f.dir}/results-refused-${i}.jsonl`;
    const r = await runBitaudit([...WORK, "--key", key, "--out", out]);
    await refusedKey(r, { option: "--key", path: key, keyid, out });
    assert.match(r.stderr, i === 0 ? /signed the plan/ : /the plan's prover key/);
  }
});

Deno.test("audit merge refuses a --worker-pub that is the plan's prover key with USAGE_KEYS, writing nothing", async () => {
  const out = `${f.dir}/merged-prover`;
  const r = await runBitaudit([
    ...["audit", "merge", "--plan", PLAN, RESULTS, "--key", f.key],
    ...["--worker-pub", f.worker.pub, prover.publicKey, "--out", out],
  ]);
  await refusedKey(r, { option: "--worker-pub", path: prover.publicKey, keyid: prover.keyid, out });
});
