/**
 * The checker page on the full demo's attestation (every workload kind of the demo, the drand
 * beacon, the signed prover checkpoint and the announcement bound in): the same named checks and
 * verdict as `bitaudit check` on the same files, and a payload edit makes it INVALID.
 */
import assert from "node:assert/strict";
import { decodeBase64, encodeBase64 } from "../../mod.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import { runBitaudit } from "../cli/_run.ts";
import { driveChecker } from "./_checker_browser.ts";
import { runCheck } from "../../src/web/mod.ts";
import { tempDir } from "../_temp.ts";

const dir = await tempDir({ prefix: "bitaudit-checker-demo-" });
const demo = await runBitaudit(["demo", "--out", `${dir}/run`, "--json"]);
assert.equal(demo.code, 0, demo.stderr);
const files = {
  attestation: `${dir}/run/attestation.dsse.json`,
  trustRoot: `${dir}/run/trust-root.json`,
  log: `${dir}/run/claims.jsonl`,
};
const env = JSON.parse(await Deno.readTextFile(files.attestation));
const payload = new TextDecoder().decode(decodeBase64(env.payload));
const lie = payload.replace('"verdict":"FAILED"', '"verdict":"PASSED"');
assert.notEqual(lie, payload);
const tampered = `${dir}/tampered.json`;
await Deno.writeTextFile(
  tampered,
  JSON.stringify({ ...env, payload: encodeBase64(new TextEncoder().encode(lie)) }),
);
const [genuine, edited] = await driveChecker([
  { files },
  { files: { ...files, attestation: tampered } },
]);
const now = (row: string[]) =>
  row.map((c) => c.replace(/verification \d{4}-\d\d-\d\dT[\d:.]+Z/g, "verification <now>"));

Deno.test("checker page: the full demo's attestation shows VALID with the CLI's checks, sequence records included", async () => {
  const cli = await checkFile(files);
  assert.equal(cli.valid, true);
  assert.equal(genuine!.state, "valid");
  assert.equal(
    genuine!.headline,
    "✔ VALID attestation: signed by a key of your trust root, every check made here passed (its assets are compared by bitaudit check only)",
  );
  assert.equal(genuine!.verdict, "✖ Verdict FAILED: the claim log holds false claims");
  assert.deepEqual(
    genuine!.checks.map(now),
    // The page holds no release manifest: the CLI's `assets` line is its own.
    cli.checks.filter((c) => c.check !== "assets")
      .map((c) => [c.check, c.ok ? "ok" : "FAIL", c.detail]).map(now),
  );
  assert.match(genuine!.text, /sequence/);
  // A single-process audit of the demo's falsified log: the inspector computed every result, in
  // the page and in check's lines (its own key is the results' worker key, not a delegate).
  const lines = await runBitaudit([
    "check",
    files.attestation,
    "--trust-root",
    files.trustRoot,
    "--log",
    files.log,
  ]);
  assert.match(lines.stdout, /^Verdict FAILED: 7 of the 120 sampled records did not match/m);
  for (const text of [genuine!.text, lines.stdout]) assert.doesNotMatch(text, /Sharded audit/);
});

Deno.test("checker page: the full demo's attestation with an edited verdict is INVALID", () => {
  assert.equal(edited!.state, "invalid");
});

Deno.test("runCheck() reads the claim log in steps, telling its progress, with the CLI's result", async () => {
  const texts = {
    attestation: await Deno.readTextFile(files.attestation),
    trustRoot: await Deno.readTextFile(files.trustRoot),
    log: await Deno.readTextFile(files.log),
  };
  const records = texts.log.trim().split("\n").length;
  const seen: [number, number][] = [];
  const r = await runCheck(texts, { progress: (done, total) => seen.push([done, total]) });
  assert.equal(r.kind, "checked");
  if (r.kind !== "checked") return;
  assert.equal(r.report.valid, (await checkFile(files)).valid);
  assert.equal(r.log?.records.length, records);
  assert.deepEqual(seen.at(-1), [records, records]);
});
