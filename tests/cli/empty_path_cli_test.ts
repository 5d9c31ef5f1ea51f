/**
 * An empty path on the command line is refused before anything is read or written: an empty
 * `--out` would otherwise put `<out>/report.md` at `/report.md`, and `key generate --out dir/`
 * would write the hidden files `dir/.key` and `dir/.pub`.
 */
import assert from "node:assert/strict";
import { assertCliCode, assertRejectsCode } from "../_assert_code.ts";
import { UsageError } from "../../src/errors.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { prepareOutputDir } from "../../src/cli/load_inputs.ts";
import { tempDir } from "../_temp.ts";
import { runBitaudit } from "./_run.ts";

const dir = await tempDir({ prefix: "bitaudit-empty-path-" });
const MISSING = `${dir}/missing`;

Deno.test("an empty output path is refused with USAGE_PATH (exit 2) before any input is read", async () => {
  const lines = [
    [
      ...["audit", "merge", "--plan", MISSING, "--key", MISSING, "--worker-pub", MISSING],
      ...["--out", "", MISSING],
    ],
    ["claims", "checkpoint", "--log", MISSING, "--key", MISSING, "--origin", "a/b", "--out", ""],
    ["audit", "--log", MISSING, "--k", "1", "--key", MISSING, "--randomness", "00", "--out="],
    ["model", "synth", "--config", MISSING, "--seed", "1", "--out", ""],
  ];
  for (const args of lines) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertCliCode(r.stderr, "USAGE_PATH");
  }
});

Deno.test("an empty input path or positional path is refused with USAGE_PATH (exit 2)", async () => {
  const lines = [
    ["check", MISSING, "--trust-root", ""],
    ["check", "", "--trust-root", MISSING],
    ["vectors", "bundled", "--vectors", ""],
    ["claims", "validate", "--log", ""],
    ["key", "trust-root", "--pub", MISSING, "", "--out", `${dir}/root.json`],
  ];
  for (const args of lines) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertCliCode(r.stderr, "USAGE_PATH");
  }
});

Deno.test("a file option given a path ending in '/' is refused with USAGE_PATH before any work, and nothing is written (review h103)", async () => {
  const out = `${dir}/slash`;
  await Deno.mkdir(out);
  const lines = [
    ["audit", "work", "--plan", MISSING, "--key", MISSING, "--shard", "0/1", "--out", `${out}/r/`],
    ["bundle", MISSING, "--out", `${out}/b/`],
    [
      "claims",
      "checkpoint",
      "--log",
      MISSING,
      "--key",
      MISSING,
      "--origin",
      "a/b",
      "--out",
      `${out}/c/`,
    ],
    [
      "audit",
      "plan",
      "--log",
      MISSING,
      "--k",
      "1",
      "--randomness",
      "00",
      "--round",
      "1",
      "--key",
      MISSING,
      "--out",
      `${out}/p/`,
    ],
  ];
  for (const args of lines) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertCliCode(r.stderr, "USAGE_PATH");
    assert.match(r.stderr, /ends in '\/'/);
  }
  assert.deepEqual([...Deno.readDirSync(out)], []);
});

Deno.test("generateKeys() refuses a prefix without a file name and writes nothing", async () => {
  const keys = `${dir}/keys`;
  await Deno.mkdir(keys);
  for (const prefix of [`${keys}/`, `${keys}/.`, `${keys}/..`, ""]) {
    await assertRejectsCode(() => generateKeys(prefix), UsageError, "USAGE_PATH");
  }
  assert.deepEqual([...Deno.readDirSync(keys)], []);
  const r = await runBitaudit(["key", "generate", "--out", `${keys}/`]);
  assert.equal(r.code, 2, r.stderr);
  assertCliCode(r.stderr, "USAGE_PATH");
  assert.deepEqual([...Deno.readDirSync(keys)], []);
});

Deno.test("prepareOutputDir() refuses an empty folder path", async () => {
  await assertRejectsCode(() => prepareOutputDir("", ["report.md"]), UsageError, "USAGE_PATH");
});
