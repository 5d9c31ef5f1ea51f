/**
 * `audit`'s own flags: an empty value is refused by that option's rule, naming it, and a missing
 * option is named as missing; neither is an internal error. The keys that will sign are read
 * before anything is recomputed.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { auditArgs, makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const dir = await tempDir({ prefix: "bitaudit-audit-flags-" });
const MISSING = `${dir}/missing`;
const BASE = ["--log", MISSING, "--k", "1", "--key", MISSING, "--out", `${dir}/out`];

/** `BASE` with one option's value replaced, or the option left out (`value` undefined). */
function withFlag(flag: string, value: string | undefined): string[] {
  const at = BASE.indexOf(flag);
  const args = [...BASE];
  if (value === undefined) args.splice(at, 2);
  else args[at + 1] = value;
  return ["audit", "--randomness", "00", ...args];
}

Deno.test("audit with an empty --k is refused with USAGE_NUMBER naming --k (exit 2, not 70)", async () => {
  const r = await runBitaudit(withFlag("--k", ""));
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE_NUMBER");
  assert.match(r.stderr, /--k/);
});

Deno.test("audit with an empty --log or --out is refused with USAGE_PATH naming it", async () => {
  for (const flag of ["--log", "--out"]) {
    const r = await runBitaudit(withFlag(flag, ""));
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE_PATH");
    assert.match(r.stderr, new RegExp(`Cannot use ${flag}:`));
  }
});

Deno.test("audit without --k, --log or --out names the missing option (exit 2)", async () => {
  for (const flag of ["--k", "--log", "--out"]) {
    const r = await runBitaudit(withFlag(flag, undefined));
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE");
    assert.match(r.stderr, new RegExp(`required option '${flag} `));
  }
});

Deno.test("audit reads and parses its signing keys before it recomputes anything", async () => {
  const f = await makeAuditFixture({ records: 2, falsify: [] });
  const bad = `${dir}/bad.key`;
  await Deno.writeTextFile(bad, "-----BEGIN PRIVATE KEY-----\nnot a key\n", { mode: 0o600 });
  // The blob folder is missing: recomputing would stop with INPUT_MISSING; the key comes first.
  const blobs = ["--blobs", `${dir}/no-blobs`];
  const withKey = (key: string, extra: string[]) => {
    const args = auditArgs(f, `${dir}/out-${extra.length}`, 2);
    args[args.indexOf("--key") + 1] = key;
    return [...args, ...blobs, ...extra];
  };
  for (const args of [withKey(bad, []), withKey(f.key, ["--worker-key", bad])]) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "BAD_PEM");
  }
  const good = await runBitaudit(withKey(f.key, []));
  assertCliCode(good.stderr, "INPUT_MISSING");
});

Deno.test("audit's own options before a subcommand are refused (exit 2), never dropped: a sharded audit takes no --require-evidence, and one the subcommand has goes after its name", async () => {
  const plan = `${dir}/plan.json`;
  const args = ["--log", MISSING, "--randomness", "00", "--round", "1", "--k", "1", "--out", plan]
    .concat(["--key", MISSING]);
  const cases: [string[], string][] = [
    [["audit", "--require-evidence", "measured-on-gpu", "plan", ...args], "--require-evidence"],
    [
      ["audit", "--require-evidence", "measured-on-gpu", "merge", "--plan", plan],
      "--require-evidence",
    ],
    [["audit", "--audit-id", "a", "merge", "--plan", plan], "--audit-id"],
  ];
  for (const [argv, flag] of cases) {
    const r = await runBitaudit(argv);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE");
    assert.match(
      r.stderr,
      new RegExp(
        `option '${flag}' is the single-process audit's: 'audit ${argv[3]}' does not read it`,
      ),
    );
  }
  await assert.rejects(() => Deno.stat(plan), Deno.errors.NotFound);
  // Review h175: one the subcommand has too is refused as well, but not as one it does not read.
  const own: [string[], string][] = [
    [["audit", "--max-record-products", "5", "plan", ...args], "--max-record-products"],
    [["audit", "--k", "1", "plan", ...args], "--k"],
    [["audit", "--log", MISSING, "plan", ...args], "--log"],
    // `--key` is variadic: a name after it would be a key file, so another option ends it.
    [["audit", "--key", MISSING, "--k", "1", "plan", ...args], "--key"],
    [["audit", "--threads", "2", "work", "--plan", plan], "--threads"],
  ];
  for (const [argv, flag] of own) {
    const sub = argv.find((a) => a === "plan" || a === "work");
    const r = await runBitaudit(argv);
    assert.equal(r.code, 2, r.stderr);
    assertCliCode(r.stderr, "USAGE");
    assert.match(
      r.stderr,
      new RegExp(
        `option '${flag}' is the single-process audit's: 'audit ${sub}' reads its own ` +
          `'${flag}' only after its name`,
      ),
    );
    assert.doesNotMatch(r.stderr, /does not read it/);
  }
  await assert.rejects(() => Deno.stat(plan), Deno.errors.NotFound);
  // After the subcommand's name it is that subcommand's unknown option, as before.
  const after = await runBitaudit([
    "audit",
    "plan",
    ...args,
    "--require-evidence",
    "measured-on-gpu",
  ]);
  assert.equal(after.code, 2, after.stderr);
  assert.match(after.stderr, /unknown option '--require-evidence'/);
});

Deno.test("audit and audit plan refuse a malformed --root with USAGE_ROOT before reading anything", async () => {
  // Review h56: '00' and 64 G's were read as roots and reported as AUDIT_ROOT_MISMATCH.
  for (const root of ["00", "G".repeat(64), "a".repeat(63), "a".repeat(65)]) {
    const plan = ["audit", "plan", "--log", MISSING, "--randomness", "00", "--round", "1"]
      .concat(["--key", MISSING]);
    for (const args of [withFlag("--k", "1"), [...plan, "--k", "1", "--out", `${dir}/p.json`]]) {
      const r = await runBitaudit([...args, "--root", root]);
      assert.equal(r.code, 2, r.stderr);
      assertCliCode(r.stderr, "USAGE_ROOT");
      assert.match(r.stderr, /Cannot use --root '.*': expected 64 hex digits/);
    }
  }
});

Deno.test("audit and audit plan refuse an --audit-id outside printable ASCII with USAGE_AUDIT_ID before reading anything", async () => {
  // Review h123: 'announced\u2011...' (a non-breaking hyphen) passed the announced-form rule, and
  // any text, newlines and escapes included, reached the signed verdict and the reports.
  const ids = [`announced\u2011${"0".repeat(32)}`, "x\n# forged heading\u001b[2J", "a b", ""];
  for (const id of [...ids, "a".repeat(129)]) {
    const plan = ["audit", "plan", "--log", MISSING, "--randomness", "00", "--round", "1"]
      .concat(["--key", MISSING]);
    for (const args of [withFlag("--k", "1"), [...plan, "--k", "1", "--out", `${dir}/p.json`]]) {
      const r = await runBitaudit([...args, "--audit-id", id]);
      assert.equal(r.code, 2, r.stderr);
      assertCliCode(r.stderr, "USAGE_AUDIT_ID");
      assert.match(r.stderr, /Cannot use --audit-id '.*': expected 1-128 of A-Z a-z 0-9 \. _ : -/);
      // deno-lint-ignore no-control-regex
      assert.doesNotMatch(r.stderr, /[\u0000-\u0008\u000b-\u001f\u2011]/);
    }
  }
});
