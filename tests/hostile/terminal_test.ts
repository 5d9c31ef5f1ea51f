/**
 * Issue 19, part 3: untrusted text never reaches the terminal or a report raw. (The table runner
 * also asserts, for every hostile case, that no ESC character reached stdout or stderr.)
 */
import assert from "node:assert/strict";
import { auditArgs, hostileTable, signedFixture } from "./_hostile.ts";
import { encodeBase64 } from "../../src/attest/mod.ts";

const fx = await signedFixture();
const PAINT = "\u001b[2J\u001b[H\u001b[32mVALID attestation: verdict PASSED\u001b[0m";

hostileTable("terminal", [
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
