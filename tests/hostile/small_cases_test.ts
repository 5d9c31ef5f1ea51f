/**
 * Issue 19, part 6: the smaller findings. Help without environment access, coded usage errors,
 * trust roots validated on write, private key permissions, duplicate keys, and no output left by
 * a failed or interrupted run.
 */
import assert from "node:assert/strict";
import { type HostileCase, hostileTable, signedFixture } from "./_hostile.ts";
import { auditArgs } from "../cli/_audit_fixture.ts";
import { REPO_ROOT } from "../cli/_run.ts";
import { encodeSafetensors } from "../../src/model/mod.ts";
import { assertCliCode } from "../_assert_code.ts";

/** `model synth` of `<dir>/config.json` into `<dir>/o`. */
const synthArgs = (
  dir: string,
) => ["model", "synth", "--config", `${dir}/config.json`, "--seed", "1", "--out", `${dir}/o`];

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

/** The demo scenario cut to its GEMM records, with one projection and one batch size set. */
async function scenarioWith(dir: string, o: { n: number; k: number; batch: number }) {
  const s = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/demo/scenario.json`));
  for (const part of ["blocks", "forward", "serving"]) delete s[part];
  Object.assign(s, { falsify: [], records: 1, batchSizes: [o.batch] });
  s.model.layers = 1;
  s.model.projections = [{ name: "q_proj", n: o.n, k: o.k }];
  await Deno.writeTextFile(`${dir}/scenario.json`, JSON.stringify(s));
  return `${dir}/scenario.json`;
}

const cases: HostileCase[] = [
  ...([
    ["a byte-order mark", (t: string) => "\ufeff" + t, "CONFIG_READ", /byte-order mark/],
    [
      "hidden_size written 256.0",
      (t: string) => t.replace(/"hidden_size":\s*256/, '"hidden_size": 256.0'),
      "CONFIG_FIELD",
      /written as a fraction/,
    ],
  ] as const).map(([what, edit, code, why]): HostileCase => ({
    name: `model synth refuses a config.json with ${what}, as opening the checkpoint would`,
    args: async (dir) => {
      const text = await Deno.readTextFile(
        `${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`,
      );
      await Deno.writeTextFile(`${dir}/config.json`, edit(text));
      return synthArgs(dir);
    },
    exit: 2,
    code,
    check: (run) => assert.match(run.stderr, why),
  })),
  ...[
    ["plan", "--population", "10", "--p-false", "1e-320", "--confidence", "0.99"],
    ["plan", "--population", "9007199254740991", "--p-false", "1e-17", "--confidence", "0.99"],
    ["demo", "--k", "0"],
  ].map((args): HostileCase => ({
    name: `'${args.join(" ")}' is a coded usage error, never an internal one`,
    args: () => args,
    exit: 2,
    check: (run) => assert.match(run.stderr, /^error \[USAGE_(NUMBER|SHARD)\]/m),
  })),
  {
    name: "gemm --max-output-mib past its bound is a usage error",
    args: async (dir) => {
      const t = (name: string) => ({
        name,
        dtype: "BF16" as const,
        shape: [2, 16],
        data: new Uint16Array(32),
      });
      await Deno.writeFile(`${dir}/ab.safetensors`, encodeSafetensors([t("a"), t("b")]));
      return [
        "gemm",
        "--profile",
        "a100",
        "--recipe",
        "cublas-serial-split-k2",
        "--in",
        `${dir}/ab.safetensors`,
        "--out",
        `${dir}/o.safetensors`,
        "--max-output-mib",
        "1000000",
      ];
    },
    exit: 2,
    code: "USAGE_NUMBER",
  },
  {
    name: "vectors check with a null capture.json entry is VECTOR_SET_CAPTURE",
    args: async (dir) => {
      await Deno.mkdir(`${dir}/bf16`);
      const src = `${REPO_ROOT}/tests/vectors/khattak-mikaitis/A100/bf16`;
      for await (const e of Deno.readDir(src)) {
        if (e.isFile) await Deno.copyFile(`${src}/${e.name}`, `${dir}/bf16/${e.name}`);
      }
      await Deno.writeTextFile(
        `${dir}/bf16/capture.json`,
        JSON.stringify({ outputs: { "d_A100_fp32.txt": null } }),
      );
      return ["vectors", "check", `${dir}/bf16`, "--profile", "a100", "--format", "bf16"];
    },
    exit: 2,
    code: "VECTOR_SET_CAPTURE",
  },
  {
    name: "vectors bundled refuses a bf16 capture under an fp16 folder (VECTOR_SET_CAPTURE)",
    args: async (dir) => {
      await Deno.mkdir(`${dir}/v/A100/fp16`, { recursive: true });
      const src = `${REPO_ROOT}/tests/vectors/khattak-mikaitis/A100/bf16`;
      for await (const e of Deno.readDir(src)) {
        if (e.isFile) await Deno.copyFile(`${src}/${e.name}`, `${dir}/v/A100/fp16/${e.name}`);
      }
      return ["vectors", "bundled", "--vectors", `${dir}/v`];
    },
    exit: 2,
    code: "VECTOR_SET_CAPTURE",
  },
  {
    name: "vectors bundled with a file or an unknown format folder is a coded error",
    args: async (dir) => {
      await Deno.mkdir(`${dir}/v/A100/xyz`, { recursive: true });
      return ["vectors", "bundled", "--vectors", `${dir}/v`];
    },
    exit: 2,
    code: "VECTOR_SET_LAYOUT",
  },
  {
    name:
      "model synth of a config whose shard cannot be held in memory is SYNTH_TOO_LARGE, nothing left",
    args: async (dir) => {
      const c = JSON.parse(
        await Deno.readTextFile(`${REPO_ROOT}/tables/models/qwen3-tiny-dense/config.json`),
      );
      // 4,194,304 x 65,536 BF16 embeddings: 512 GiB in one tensor.
      Object.assign(c, { vocab_size: 4194304, hidden_size: 65536 });
      await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify(c));
      return synthArgs(dir);
    },
    exit: 2,
    code: "SYNTH_TOO_LARGE",
    check: (run) => assert.match(run.stderr, /give more --shards/),
  },
  {
    name: "claims make refuses a scenario GEMM whose tensors exceed the verifier's limit, at once",
    args: async (dir) => [
      "claims",
      "make",
      "--scenario",
      await scenarioWith(dir, { n: 65536, k: 65536, batch: 65536 }),
      "--out",
      `${dir}/out`,
    ],
    exit: 2,
    code: "SCENARIO_INVALID",
    check: (run) => assert.match(run.stderr, /4294967296 elements, more than 268435456/),
  },
  {
    name:
      "claims make refuses a scenario's forward components beside its stacks (read by no record)",
    args: async (dir) => {
      // Review h175: `.forward.components.pytorch = "2.4.0"` made the same records.
      const s = JSON.parse(await Deno.readTextFile(`${REPO_ROOT}/demo/scenario.json`));
      s.forward.components = { pytorch: "2.4.0" };
      await Deno.writeTextFile(`${dir}/scenario.json`, JSON.stringify(s));
      return ["claims", "make", "--scenario", `${dir}/scenario.json`, "--out", `${dir}/out`];
    },
    exit: 2,
    code: "SCENARIO_INVALID",
    check: (run) =>
      assert.match(
        run.stderr,
        /'scenario\.forward\.components': not beside 'scenario\.forward\.stacks'/,
      ),
  },
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
  ...([
    [["--valid-from", "yesterday"], "USAGE_TIME"],
    [
      ["--valid-from", "2026-06-01T00:00:00Z", "--valid-until", "2026-01-01T00:00:00Z"],
      "BAD_TRUST_ROOT",
    ],
  ] as const).map(([extra, code]): HostileCase => ({
    name: `key trust-root refuses ${extra.join(" ")} and writes nothing`,
    args: trustRootArgs([...extra]),
    exit: 2,
    code,
  })),
  {
    name: "key trust-root refuses the same key twice and writes nothing",
    args: trustRootArgs(["--pub", fx.pub]),
    exit: 2,
    code: "USAGE_KEYS",
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
