/**
 * What the `claims append` CLI tests share: a temporary folder; the checks of the log built in it
 * (`<dir>/log/claims.jsonl`): schema validation and an audit by a fresh inspector key with fixed
 * randomness, each sampled record's status asserted; refusals (exit 2, one coded line) that leave
 * the log and its blob folder as they were.
 *
 * @module
 */
import assert from "node:assert/strict";
import { generateKeys } from "../../src/cli/commands/key.ts";
import type { CliErrorCode } from "../../src/cli/exit_codes.ts";
import { assertCliCode } from "../_assert_code.ts";
import { tempDir } from "../_temp.ts";
import { type CliRun, runBitaudit } from "./_run.ts";

/** A temporary folder removed when the test module ends. */
export function appendTempDir(): Promise<string> {
  return tempDir({ prefix: "bitaudit-append-" });
}

/**
 * Validates `<dir>/log/claims.jsonl` against the schema, audits it sampling as many records as
 * `statuses` names, into `<dir>/<out>`, and asserts the exit code, the verdict and the status of
 * each record by index.
 *
 * @param dir the test's folder (the inspector key is made there once)
 * @param o the output folder's name and the expected status of records 0, 1, ...
 */
export async function assertAudit(
  dir: string,
  o: { out: string; statuses: readonly ("PASS" | "FAIL" | "NOT_VERIFIED")[] },
): Promise<void> {
  const log = `${dir}/log/claims.jsonl`;
  const valid = await runBitaudit(["claims", "validate", "--log", log]);
  assert.equal(valid.code, 0, `the records match schemas/claim-record.json: ${valid.stdout}`);
  const key = `${dir}/inspector.key`;
  try {
    await Deno.stat(key);
  } catch {
    await generateKeys(`${dir}/inspector`);
  }
  const r = await runBitaudit([
    ...["audit", "--log", log, "--randomness", "ab".repeat(32), "--round", "7"],
    ...["--k", String(o.statuses.length), "--key", key, "--out", `${dir}/${o.out}`],
    ...["--threads", "1", "--json"],
  ]);
  const [code, verdict] = o.statuses.includes("FAIL")
    ? [1, "FAILED"]
    : o.statuses.includes("NOT_VERIFIED")
    ? [3, "INCONCLUSIVE"]
    : [0, "PASSED"];
  assert.equal(r.code, code, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.verdict, verdict);
  const byIndex = new Map(
    out.results.map((x: { index: number; status: string }) => [x.index, x.status]),
  );
  assert.deepEqual(o.statuses.map((_, i) => byIndex.get(i)), o.statuses);
}

/**
 * Runs each case and asserts a refusal: exit 2, one line naming the code; then asserts that the
 * log and the names in its blob folder are as they were before the cases.
 *
 * @param dir the test's folder (its log exists)
 * @param o the cases (extra flags and the expected code) and how to run one
 */
export async function assertRefusals(
  dir: string,
  o: {
    readonly cases: readonly (readonly [string[], CliErrorCode])[];
    readonly run: (extra: string[]) => Promise<CliRun>;
  },
): Promise<void> {
  const log = `${dir}/log/claims.jsonl`;
  const blobs = () => [...Deno.readDirSync(`${dir}/log/blobs`)].map((e) => e.name).sort();
  const before = { text: await Deno.readTextFile(log), blobs: blobs() };
  for (const [extra, code] of o.cases) {
    const r = await o.run(extra);
    assert.equal(r.code, 2, `${extra.join(" ")}: ${r.stderr}`);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assertCliCode(r.stderr, code);
  }
  assert.equal(await Deno.readTextFile(log), before.text, "the log is unchanged");
  assert.deepEqual(blobs(), before.blobs, "no blob (and no staged copy) left behind");
}

/**
 * A digest with its last hex digit changed.
 *
 * @param hex 64 hex digits
 */
export function flippedHex(hex: string): string {
  return hex.slice(0, -1) + (hex.endsWith("0") ? "1" : "0");
}
