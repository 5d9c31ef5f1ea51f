/**
 * An option that takes one value, given twice, is refused (USAGE_REPEATED, exit 2) before anything
 * is read: commander keeps the last value and never looks at the others, so a policy such as
 * `--require-root 00 --require-root <root>` would be checked against the second value alone.
 * Options that take several values (`--key <files...>`, `--pub <files...>`) may still repeat.
 */
import assert from "node:assert/strict";
import { assertCliCode } from "../_assert_code.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { tempDir } from "../_temp.ts";
import { runBitaudit } from "./_run.ts";

const dir = await tempDir({ prefix: "bitaudit-repeated-" });
const MISSING = `${dir}/missing`;
const ROOT = "ab".repeat(32);
const CHECK = ["check", MISSING, "--trust-root", MISSING];
const AUDIT = ["audit", "--log", MISSING, "--randomness", "00", "--key", MISSING];
const MERGE = ["audit", "merge", "--plan", MISSING, "--key", MISSING, "--worker-pub", MISSING];

Deno.test("a single-valued option given twice is refused with USAGE_REPEATED (exit 2)", async () => {
  const lines = [
    [...CHECK, "--require-root", "00", "--require-root", ROOT],
    [...CHECK, "--threshold", "2", "--threshold", "1"],
    [...CHECK, "--require-verdict", "FAILED", "--require-verdict", "PASSED"],
    [...CHECK, "--require-prover", "00", "--require-prover=11"],
    [
      ...CHECK,
      "--require-evidence",
      "measured-on-gpu",
      "--require-evidence",
      "derived-from-source",
    ],
    [...CHECK, "--log", MISSING, "--log", MISSING],
    [...AUDIT, "--k", "1", "--k", "2", "--out", `${dir}/o`],
    [...AUDIT, "--k", "1", "--out", `${dir}/o`, "--out", `${dir}/p`],
    [...AUDIT, "--k", "1", "--out", `${dir}/o`, "--time", "2025-01-01T00:00:00Z", "--time", "x"],
    [...MERGE, "--out", `${dir}/o`, "--reverify", "1", "--reverify", "0", MISSING],
    ["key", "generate", "--out", `${dir}/a`, "--out", `${dir}/b`],
  ];
  for (const args of lines) {
    const r = await runBitaudit(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assertCliCode(r.stderr, "USAGE_REPEATED");
  }
  await assert.rejects(() => Deno.stat(`${dir}/a.key`), Deno.errors.NotFound);
});

Deno.test("options taking several values may still be given more than once", async () => {
  const a = await generateKeys(`${dir}/ka`);
  const b = await generateKeys(`${dir}/kb`);
  const r = await runBitaudit([
    ...["key", "trust-root", "--pub", a.publicKey, "--pub", b.publicKey],
    ...["--out", `${dir}/root.json`],
  ]);
  assert.equal(r.code, 0, r.stderr);
  const root = JSON.parse(await Deno.readTextFile(`${dir}/root.json`));
  assert.equal(root.keys.length, 2);
});
