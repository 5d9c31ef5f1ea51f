/**
 * `bitaudit claims validate` (issue 29): every record of a claim log against
 * schemas/claim-record.json and the strict parser, one line per invalid record with its line
 * number and the JSON path of its first defect, escaped for the terminal; exit 0 when all are
 * valid, 1 when some are not, 2 when the log cannot be read. The schema is read from the
 * checkout, under the CLI's ordinary read permission.
 */
import assert from "node:assert/strict";
import { runProver } from "../../src/cli/commands/claims.ts";
import { tempDir } from "../_temp.ts";
import { REPO_ROOT, runBitaudit } from "../cli/_run.ts";

const dir = await tempDir({ prefix: "bitaudit-validate-" });
const DEMO = new URL("../../demo/scenario.json", import.meta.url).pathname;
await runProver(DEMO, { out: `${dir}/demo`, progress: false, threads: 2 });
const LOG = `${dir}/demo/claims.jsonl`;
const lines = (await Deno.readTextFile(LOG)).trimEnd().split("\n");
const validate = (log: string, more: string[] = [], perms?: string[]) =>
  runBitaudit(["claims", "validate", "--log", log, ...more], perms === undefined ? {} : { perms });

Deno.test("claims validate accepts every record of the demo log (exit 0), also in JSON", async () => {
  const [text, json] = await Promise.all([validate(LOG), validate(LOG, ["--json"])]);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, `${lines.length} of ${lines.length} records valid\n`);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout), {
    log: LOG,
    records: lines.length,
    invalid: [],
    valid: lines.length,
  });
});

Deno.test("claims validate names each invalid record's line and first defect, escaped, and exits 1", async () => {
  const edit = (
    i: number,
    f: (r: Record<string, Record<string, Record<string, unknown>>>) => void,
  ) => {
    const r = JSON.parse(lines[i]!);
    f(r);
    return JSON.stringify(r);
  };
  const log = `${dir}/bad.jsonl`;
  await Deno.writeTextFile(
    log,
    [
      lines[0],
      edit(1, (r) => r.predicate!["x\u001b[2J"] = {}), // unknown field, named with an escape
      edit(2, (r) => delete r.predicate!.workload!.m), // missing field
      edit(3, (r) => r.predicate!.workload!.kernel = { catalog: "c", catalogSha256: "AB" }),
      edit(4, (r) => (r.predicate!.workload!.weights as { shape: number[] }).shape = [1, 2]),
      '{"_type":1,"_type":2}',
      lines[6],
    ].join("\n") + "\n",
  );
  const [r, j] = await Promise.all([validate(log), validate(log, ["--json"])]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stdout,
    [
      'line 2: $.predicate["x\\u001b[2J"]: must NOT have additional properties (schema)',
      "line 3: $.predicate.workload.m: must have required property 'm' (schema)",
      'line 4: $.predicate.workload.kernel.catalogSha256: must match pattern "^[0-9a-f]{64}$" (schema)',
      `line 5: $.predicate.workload.weights.shape: must be [${
        JSON.parse(lines[4]!).predicate.workload.n
      }, ${JSON.parse(lines[4]!).predicate.workload.k}] (parser)`,
      "line 6: $: duplicate key '_type' (json)",
      "2 of 7 records valid",
      "",
    ].join("\n"),
  );
  assert.equal(r.stdout.includes("\u001b"), false, "no raw escape reaches the terminal");
  assert.equal(j.code, 1, j.stderr);
  assert.deepEqual(
    JSON.parse(j.stdout).invalid.map((x: { line: number; by: string }) => [x.line, x.by]),
    [
      [2, "schema"],
      [3, "schema"],
      [4, "schema"],
      [5, "parser"],
      [6, "json"],
    ],
  );
});

Deno.test("claims validate exits 2 for a log it cannot read: missing, empty, not UTF-8", async () => {
  const empty = `${dir}/empty.jsonl`;
  await Deno.writeTextFile(empty, "");
  const binary = `${dir}/binary.jsonl`;
  await Deno.writeFile(binary, new Uint8Array([0xff, 0xfe, 0x0a]));
  const cases = [
    [`${dir}/missing.jsonl`, "INPUT_MISSING"],
    [empty, "LOG_EMPTY"],
    [binary, "INPUT_UTF8"],
  ] as const;
  const runs = await Promise.all(cases.map(([log]) => validate(log)));
  runs.forEach((r, i) => {
    const [log, code] = cases[i]!;
    assert.equal(r.code, 2, log);
    assert.match(r.stderr, new RegExp(`^error \\[${code}\\]`), log);
  });
});

Deno.test("claims validate reads the schema under the CLI's read permission (checkout and log), nothing more", async () => {
  const [narrow, noSchema] = await Promise.all([
    validate(LOG, [], [`--allow-read=${REPO_ROOT},${LOG}`]),
    validate(LOG, [], [`--allow-read=${LOG}`]),
  ]);
  assert.equal(narrow.code, 0, narrow.stderr);
  assert.equal(noSchema.code, 2);
  assert.match(noSchema.stderr, /^error \[PERMISSION\].*claim-record\.json/);
});

Deno.test("claims validate shows a record's keys short: a long key is clipped, its white-space runs as one space", async () => {
  const edit = (i: number, key: string) => {
    const r = JSON.parse(lines[i]!);
    r.predicate[key] = {};
    return JSON.stringify(r);
  };
  const log = `${dir}/long-keys.jsonl`;
  const spaced = "x" + " ".repeat(150_000) + "line 9: forged" + " ".repeat(150_000);
  const dup = `{"${"d".repeat(300_000)}":1,"${"d".repeat(300_000)}":2}`; // refused by strict JSON
  await Deno.writeTextFile(
    log,
    [edit(0, spaced), edit(1, "k".repeat(300_000)), dup].join("\n") + "\n",
  );
  const [r, j] = await Promise.all([validate(log), validate(log, ["--json"])]);
  assert.equal(r.code, 1, r.stderr);
  const out = r.stdout.trimEnd().split("\n");
  assert.equal(out.length, 4, r.stdout.slice(0, 300));
  for (const l of out) assert.ok(l.length < 1100, `${l.length} characters: ${l.slice(0, 100)}`);
  assert.equal(
    out[0],
    'line 1: $.predicate["x line 9: forged "]: must NOT have additional properties (schema)',
  );
  assert.equal(
    out[1],
    `line 2: $.predicate["${"k".repeat(64)}... (299936 more characters)"]: must NOT have ` +
      "additional properties (schema)",
  );
  assert.ok(j.stdout.length < 2000, `${j.stdout.length} characters of JSON`);
});
