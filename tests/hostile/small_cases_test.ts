/**
 * Issue 19, part 6: the smaller findings. Help without environment access, coded usage errors,
 * trust roots validated on write, private key permissions, duplicate keys, and no output left by
 * a failed or interrupted run.
 */
import assert from "node:assert/strict";
import { type HostileCase, hostileTable, signedFixture } from "./_hostile.ts";
import { auditArgs } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";
import { assertCliCode } from "../_assert_code.ts";

const fx = await signedFixture();

const keyCopy = async (dir: string, mode: number) => {
  await Deno.copyFile(fx.key, `${dir}/k.key`);
  await Deno.chmod(`${dir}/k.key`, mode);
  return `${dir}/k.key`;
};

/** Adds a second `--key` value right after the first. */
const withSecondKey = (args: string[], key: string) => {
  const at = args.indexOf("--key") + 2;
  return [...args.slice(0, at), key, ...args.slice(at)];
};

const trustRootArgs = (extra: string[]) => (dir: string) => [
  "key",
  "trust-root",
  "--pub",
  fx.pub,
  "--out",
  `${dir}/root.json`,
  ...extra,
];

/** `audit serve` with one timer flag replaced; nothing listens on port 1 (a connection would fail). */
const serveArgs = (dir: string, flag: string, value: string) => [
  "audit",
  "serve",
  "--plan",
  `${dir}/plan.json`,
  "--nats",
  "nats://127.0.0.1:1",
  "--key",
  fx.key,
  "--worker-pub",
  fx.worker.pub,
  "--out",
  `${dir}/out`,
  flag,
  value,
];

const cases: HostileCase[] = [
  ...([
    ["--timeout", "2147484"], // one second past the longest timer (2^31 - 1 ms)
    ["--timeout", "0"],
    ["--timeout", "1e3"],
    ["--ack-wait", "86401"],
    ["--ack-wait", "-5"],
    ["--max-deliver", "0"],
  ] as const).map(([flag, value]): HostileCase => ({
    name: `audit serve ${flag} ${value} is a usage error before any connection`,
    args: (dir) => serveArgs(dir, flag, value),
    exit: 2,
    code: "USAGE_NUMBER",
    check: (run) => assert.match(run.stderr, new RegExp(`Cannot use ${flag} '${value}'`)),
  })),
  ...[["--help"], ["help"], ["audit", "--help"]].map((args): HostileCase => ({
    name: `'${args.join(" ")}' prints help without environment access`,
    args: () => args,
    exit: 0,
    check: (run) => assert.match(run.stdout, /Usage: bitaudit/),
  })),
  {
    name: "no command prints help and a coded usage error",
    args: () => [],
    exit: 2,
    check: (run) => {
      assertCliCode(run.stderr, "USAGE");
      assert.match(run.stderr, /^error \[\w+\]: Cannot parse the command line/m);
    },
  },
  {
    name: "an unknown option is a coded usage error",
    args: () => ["plan", "--bogus"],
    exit: 2,
    code: "USAGE",
  },
  {
    name: "audit refuses the same key file twice before doing any work",
    args: (dir) => withSecondKey(auditArgs(fx, `${dir}/out`, 2), fx.key),
    exit: 2,
    code: "USAGE_KEYS",
  },
  {
    name: "audit refuses two copies of one key",
    args: async (dir) => withSecondKey(auditArgs(fx, `${dir}/out`, 2), await keyCopy(dir, 0o600)),
    exit: 2,
    code: "USAGE_KEYS",
  },
  ...[0o644, 0o640, 0o604].map((mode): HostileCase => ({
    name: `audit refuses a private key file of mode ${mode.toString(8)}`,
    args: async (dir) => {
      const args = auditArgs(fx, `${dir}/out`, 2);
      args[args.indexOf("--key") + 1] = await keyCopy(dir, mode);
      return args;
    },
    exit: 2,
    code: "KEY_PERMISSIONS",
  })),
  {
    name: "a failed audit removes the output folder it created",
    args: (dir) => [...auditArgs(fx, `${dir}/out`, 2), "--root", "00".repeat(32)],
    exit: 2,
  },
  ...[
    ["--valid-from", "yesterday"],
    ["--valid-from", "2026-06-01T00:00:00Z", "--valid-until", "2026-01-01T00:00:00Z"],
  ].map((extra): HostileCase => ({
    name: `key trust-root refuses ${extra.join(" ")} and writes nothing`,
    args: trustRootArgs(extra),
    exit: 2,
    code: "BAD_TRUST_ROOT",
  })),
  {
    name: "key trust-root refuses the same key twice and writes nothing",
    args: trustRootArgs(["--pub", fx.pub]),
    exit: 2,
    code: "BAD_TRUST_ROOT",
  },
];

hostileTable("small", cases);

Deno.test("Ctrl-C during demo leaves neither partial outputs nor the throw-away private key", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "bitaudit-hostile-sigint-" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--allow-read",
        "--allow-write",
        "--allow-env=TMPDIR",
        `${REPO_ROOT}/src/cli/main.ts`,
        "demo",
      ],
      cwd: REPO_ROOT,
      env: { NO_COLOR: "1", TMPDIR: tmp },
      stdout: "piped",
      stderr: "null",
    }).spawn();
    // Wait until the inspector step has created the key, then interrupt.
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!/3\. audit/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    child.kill("SIGINT");
    await reader.cancel();
    const status = await child.status;
    assert.equal(status.code, 130, seen);
    const left = [...Deno.readDirSync(tmp)].map((e) => e.name);
    assert.deepEqual(left, [], `left behind: ${left.join(", ")}`);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
