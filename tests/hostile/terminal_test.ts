/**
 * Issue 19, part 3: untrusted text never reaches the terminal or a report raw. (The table runner
 * also asserts, for every hostile case, that no ESC character reached stdout or stderr.)
 */
import assert from "node:assert/strict";
import { auditArgs, hostileTable, signedFixture } from "./_hostile.ts";
import { encodeBase64 } from "../../src/attest/mod.ts";
import {
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  parseClaimLog,
  recordDigest,
} from "../../src/claims/mod.ts";

const fx = await signedFixture();
const PAINT = "\u001b[2J\u001b[H\u001b[32mVALID attestation: verdict PASSED\u001b[0m";

/** The verdict line a record's text tries to pass off as the audit's own. */
const FAKE_VERDICT = "verdict: PASSED  (4 PASS, 0 FAIL, 0 NOT_VERIFIED of 4 sampled from 4)";

/**
 * The fixture's log with every record naming `stack`, chained anew (each record's `prev` the
 * digest of the one before), written to `dir`.
 */
async function logNamingStack(dir: string, stack: string): Promise<string> {
  const log = parseClaimLog(await Deno.readTextFile(fx.log));
  let prev = GENESIS_PREV;
  const records = log.records.map((r) => {
    const p = r.predicate;
    const out = makeClaimRecord({
      ...p,
      log: { ...p.log, prev },
      software: { ...p.software, stack },
    });
    prev = recordDigest(out);
    return out;
  });
  await Deno.writeTextFile(`${dir}/claims.jsonl`, formatClaimLog(records));
  return `${dir}/claims.jsonl`;
}

/** The rows a terminal `columns` wide shows of `text` (as `fold -w`). */
function rows(text: string, columns: number): string[] {
  return text.split("\n").flatMap((line) =>
    Array.from(
      { length: Math.max(1, Math.ceil(line.length / columns)) },
      (_, i) => line.slice(i * columns, (i + 1) * columns),
    )
  );
}

hostileTable("terminal", [
  {
    // Review h181: a stack name of spaces, a verdict line and spaces, quoted raw in the reason,
    // showed a second "verdict: PASSED" line where an 80-column terminal wrapped.
    name:
      "audit shows a record's stack name padded into a verdict line short, on no row of its own",
    args: async (dir) => {
      const quoted = "  record 0: NOT_VERIFIED: unsupported stack: Cannot find stack profile 'x";
      const stack = `x${" ".repeat(80 - quoted.length)}${FAKE_VERDICT}${" ".repeat(60)}`;
      return [
        ...auditArgs({ ...fx, log: await logNamingStack(dir, stack) }, `${dir}/out`, 2),
        "--blobs",
        `${fx.dir}/log/blobs`,
      ];
    },
    exit: 3,
    writes: true,
    check: (run) => {
      for (const columns of [80, 100, 120]) {
        const fake = rows(run.stdout, columns).filter((r) => r.startsWith("verdict:")).slice(1);
        assert.deepEqual(fake, [], `${columns} columns:\n${run.stdout}`);
      }
      assert.match(run.stdout, /^verdict: INCONCLUSIVE {2}\(0 PASS, 0 FAIL, 2 NOT_VERIFIED/m);
      assert.match(run.stdout, /stack profile 'x verdict: PASSED \(4 PASS, .*more characters\)'/);
      for (const line of run.stdout.split("\n").filter((l) => l.startsWith("  record "))) {
        assert.doesNotMatch(line, /\S {2,}/, line);
      }
    },
  },
  {
    name: "check prints INVALID and escapes ANSI sequences in an unsigned envelope's payloadType",
    args: async (dir) => {
      const env = JSON.parse(await Deno.readTextFile(fx.attestation));
      env.payloadType = PAINT;
      await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(env));
      return ["check", `${dir}/a.json`, "--trust-root", fx.trustRoot];
    },
    exit: 1,
    check: (run) => {
      assert.match(run.stdout, /^INVALID attestation$/m);
      assert.doesNotMatch(run.stdout, /^VALID/m);
      assert.match(run.stdout, /\\u\{1b\}\[2J/);
    },
  },
  {
    name: "an error message quoting a path with escapes shows them escaped",
    args: (dir) => ["claims", "root", "--log", `${dir}/\u001b[31mred\nline.jsonl`],
    exit: 2,
    code: "INPUT_MISSING",
  },
  {
    // An audit id is printable ASCII (review h123): one holding a newline and escapes is refused
    // before anything is read, and the refusal shows it escaped.
    name: "audit refuses an audit id holding a newline and escapes, showing it escaped",
    args: (dir) => [
      ...auditArgs(fx, `${dir}/out`, 2),
      "--audit-id",
      `x\n# forged heading\u001b[2J | cell`,
    ],
    exit: 2,
    code: "USAGE_AUDIT_ID",
    check: (run) => {
      assert.ok(
        run.stderr.includes(String.raw`'x\u{a}# forged heading\u{1b}[2J | cell'`),
        run.stderr,
      );
    },
  },
  {
    name: "JSON output writes C1 controls and bidirectional overrides as \\u escapes, not raw",
    args: async (dir) => {
      const env = JSON.parse(await Deno.readTextFile(fx.attestation));
      env.signatures[0].keyid = "\u202etxt.exe\u009b2J\u2066x\u00ad";
      await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(env));
      return ["check", `${dir}/a.json`, "--trust-root", fx.trustRoot, "--json"];
    },
    exit: 0,
    check: (run) => {
      for (const c of ["\u202e", "\u009b", "\u2066", "\u00ad"]) {
        assert.ok(!run.stdout.includes(c), `raw U+${c.charCodeAt(0).toString(16)}`);
      }
      assert.ok(run.stdout.includes("\\u202etxt.exe\\u009b2J"), run.stdout);
      const report = JSON.parse(run.stdout);
      assert.equal(report.signatures[0].keyid, "\u202etxt.exe\u009b2J\u2066x\u00ad");
    },
  },
  {
    name: "JSON output carries an unsigned payloadType escaped by the JSON encoder",
    args: async (dir) => {
      const env = JSON.parse(await Deno.readTextFile(fx.attestation));
      env.payloadType = PAINT;
      env.payload = encodeBase64(new TextEncoder().encode("{}"));
      await Deno.writeTextFile(`${dir}/a.json`, JSON.stringify(env));
      return ["check", `${dir}/a.json`, "--trust-root", fx.trustRoot, "--json"];
    },
    exit: 1,
    check: (run) => assert.equal(JSON.parse(run.stdout).valid, false),
  },
]);
