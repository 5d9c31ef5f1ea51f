import assert from "node:assert/strict";
import {
  buildTrustRoot,
  decodeBase64,
  decodePrivateKeyPem,
  encodeBase64,
  encodeStatement,
  generateKeyPair,
  parseEnvelope,
  publicKeyFromPrivate,
  signEnvelope,
  type Statement,
} from "../../mod.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import { escapeForTerminal } from "../../src/escape_text.ts";
import { auditArgs, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";
import { driveChecker, type PageResult } from "./_checker_browser.ts";

const SHOTS = new URL("../../docs/", import.meta.url).pathname;
const INJECT =
  '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>\u001b[32mVALID\u001b[0m';

// The demo scenario's first records with one falsified fingerprint, audited by the CLI.
const f = await makeAuditFixture({
  records: 12,
  falsify: [{ seq: 3, kind: "fingerprint", bit: 5 }],
});
const out = `${f.dir}/out`;
const audited = await runBitaudit(auditArgs(f, out, 12));
assert.equal(audited.code, 1, audited.stderr);
const attestation = `${out}/attestation.dsse.json`;
const genuine = await Deno.readTextFile(attestation);

async function write(name: string, text: string): Promise<string> {
  await Deno.writeTextFile(`${f.dir}/${name}`, text);
  return `${f.dir}/${name}`;
}

/** Re-signs the genuine statement after `edit`, with the inspector's own key. */
async function resigned(edit: (st: { predicate: { verifier: { runtime: string } } }) => void) {
  const env = parseEnvelope(genuine);
  const st = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  edit(st);
  const privateKey = decodePrivateKeyPem(await Deno.readTextFile(f.key));
  const key = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
  const signed = await signEnvelope(encodeStatement(st as Statement), {
    payloadType: env.payloadType,
    keys: [key],
  });
  return JSON.stringify(signed);
}

/** The named checks as `bitaudit check` prints them (escaped), as the page's table rows. */
async function cliRows(files: { attestation: string; trustRoot: string; log?: string }) {
  const r = await checkFile(files);
  return {
    valid: r.valid,
    // The page holds no release manifest: the CLI's `assets` line is its own.
    rows: r.checks.filter((c) => c.check !== "assets")
      .map((c) => [c.check, c.ok ? "ok" : "FAIL", escapeForTerminal(c.detail)]),
  };
}

/** The page and the CLI run a moment apart: their verification times are not compared. */
const _sameNow = (row: string[]) =>
  row.map((c) => c.replace(/verification \d{4}-\d\d-\d\dT[\d:.]+Z/g, "verification <now>"));

async function sameAsCli(
  page: PageResult,
  files: { attestation: string; trustRoot: string; log?: string },
) {
  const cli = await cliRows(files);
  assert.deepEqual(page.checks.map(_sameNow), cli.rows.map(_sameNow));
  assert.equal(page.state, cli.valid ? "valid" : "invalid");
}

// Screenshots for docs/third-party.md go to docs/ with UPDATE_SCREENSHOTS=1, to the fixture folder
// otherwise.
const shots = Deno.env.get("UPDATE_SCREENSHOTS") === "1" ? SHOTS : `${f.dir}/`;

const tamperedEnv = JSON.parse(genuine);
const payload = new TextDecoder().decode(decodeBase64(tamperedEnv.payload));
const lie = payload.replace('"verdict":"FAILED"', '"verdict":"PASSED"');
assert.notEqual(lie, payload);
tamperedEnv.payload = encodeBase64(new TextEncoder().encode(lie));

const other = await generateKeyPair();
const revokedRoot = JSON.parse(await Deno.readTextFile(f.trustRoot));
revokedRoot.keys[0].revoked = { time: "2026-01-02T00:00:00Z", reason: "key compromised" };
const typeInjected = { ...JSON.parse(genuine), payloadType: INJECT };

const cases = {
  genuine: { attestation, trustRoot: f.trustRoot, log: f.log },
  tampered: {
    attestation: await write("tampered.json", JSON.stringify(tamperedEnv)),
    trustRoot: f.trustRoot,
  },
  wrongRoot: {
    attestation,
    trustRoot: await write(
      "other-root.json",
      JSON.stringify(buildTrustRoot([other.publicKey], { start: "2026-01-01T00:00:00Z" })),
    ),
  },
  revoked: {
    attestation,
    trustRoot: await write("revoked-root.json", JSON.stringify(revokedRoot)),
  },
  injected: {
    attestation: await write(
      "inject.json",
      await resigned((st) => st.predicate.verifier.runtime = INJECT),
    ),
    trustRoot: f.trustRoot,
  },
  typeInjected: {
    attestation: await write("inject-type.json", JSON.stringify(typeInjected)),
    trustRoot: f.trustRoot,
  },
  notAnAttestation: { attestation: f.trustRoot, trustRoot: f.trustRoot },
  // A byte-order mark, and a claim log with one: refused as `bitaudit check` refuses them (the
  // browser's File.text() would drop the mark and vouch for bytes that are not the audited ones).
  bomAttestation: {
    attestation: await write("bom.dsse.json", "\ufeff" + genuine),
    trustRoot: f.trustRoot,
  },
  bomLog: {
    attestation,
    trustRoot: f.trustRoot,
    log: await write("bom.jsonl", "\ufeff" + await Deno.readTextFile(f.log)),
  },
};
// A claim log that takes the checker a while to read (180 MB: each record line padded with 30 MB
// of spaces, which JSON allows), to stop a check under way.
const slowLog = `${f.dir}/slow.jsonl`;
{
  const pad = " ".repeat(30_000_000);
  const lines = (await Deno.readTextFile(f.log)).trim().split("\n").slice(0, 6);
  await Deno.writeTextFile(slowLog, lines.map((l) => `{${pad}${l.slice(1)}`).join("\n") + "\n");
}
const shotOf: Partial<Record<keyof typeof cases, string>> = {
  genuine: `${shots}checker-valid.png`,
  tampered: `${shots}checker-invalid.png`,
};
const names = Object.keys(cases) as (keyof typeof cases)[];
const shown = await driveChecker([
  ...names.map((n) => ({ files: cases[n], ...(shotOf[n] ? { shot: shotOf[n] } : {}) })),
  { files: cases.genuine, http: true },
  { files: cases.genuine, keyboard: true },
  // The user's trust root (which does not list the signing key) in its field, and one that came
  // with the attestation, under another name, among the dropped files: never taken.
  {
    files: {
      ...cases.wrongRoot,
      extra: [await write("verdict-evidence.json", await Deno.readTextFile(f.trustRoot))],
    },
    keyboard: true,
  },
  // The slow log chosen, the check started, and the genuine log chosen while it runs.
  { files: { ...cases.genuine, log: slowLog }, stopWith: f.log },
  // The user's own copy of the log (one record short of the audited one) chosen in its field,
  // then the attestation's folder dropped with the audited log: the user's stays.
  {
    files: {
      ...cases.genuine,
      handLog: await write(
        "my-claims.jsonl",
        (await Deno.readTextFile(f.log)).trim().split("\n").slice(0, -1).join("\n") + "\n",
      ),
    },
    keyboard: true,
  },
]);
const overHttp = shown[names.length]!;
const byKeyboard = shown[names.length + 1]!;
const twoRoots = shown[names.length + 2]!;
const restarted = shown[names.length + 3]!;
const handLog = shown[names.length + 4]!;
const page = Object.fromEntries(names.map((n, i) => [n, shown[i]!])) as Record<
  keyof typeof cases,
  PageResult
>;

Deno.test("checker page: the genuine attestation with its log shows VALID and the CLI's checks", async () => {
  const p = page.genuine;
  assert.equal(
    p.headline,
    "✔ VALID attestation: signed by a key of your trust root, every check made here passed (its assets are compared by bitaudit check only)",
  );
  // The verdict is its own line in its own colour (issue 25): valid is green, FAILED is red.
  assert.equal(p.verdict, "✖ Verdict FAILED: the claim log holds false claims");
  assert.equal(p.verdictClass, "verdict failed");
  assert.deepEqual(p.colors, { headline: "rgb(10, 107, 45)", verdict: "rgb(164, 22, 26)" });
  assert.match(p.text, /Verdict FAILED: 1 of the 12 sampled records did not match/);
  assert.match(p.text, /gemm1110/); // per-kind table row: gemm, 11 PASS, 1 FAIL, 0 NOT_VERIFIED
  assert.equal(p.focused, "headline");
  await sameAsCli(p, cases.genuine);
  const names = p.checks.map((r) => r[0]);
  for (const n of ["signatures", "seed", "sample", "results", "verdict", "log-root", "subjects"]) {
    assert.ok(names.includes(n), n);
  }
  assert.ok(p.checks.every((r) => r[1] === "ok"));
});

Deno.test("checker page: the check runs in a worker, which choosing another file ends; the next check runs", async () => {
  // Each check ran off the page's thread, in a worker of its own.
  assert.equal(page.genuine.workers, 1);
  assert.equal(restarted.workers, 2);
  // The first check was under way (its worker reporting the slow log's progress) when the file
  // changed: its worker ended, its progress left the page, and the button came back at once.
  assert.deepEqual(restarted.stopped, { running: 1, endedAfter: 1, result: "" });
  // The second check is the genuine files' own.
  assert.equal(restarted.state, "valid");
  await sameAsCli(restarted, cases.genuine);
});

Deno.test("checker page: served by a plain static HTTP server it shows the same as from disk", () => {
  const same = (p: PageResult) => ({
    ...p,
    checks: p.checks.map(_sameNow),
    text: _sameNow([p.text])[0],
  });
  assert.deepEqual(same(overHttp), same(page.genuine));
});

Deno.test("checker page: from the keyboard alone, the drop zone opens a chooser and the files are sorted in (issue 17)", () => {
  const { dropZone, ...shownByKeyboard } = byKeyboard;
  assert.deepEqual(dropZone, { outline: "solid 3px", keys: ["Enter", "Space"] });
  const same = (p: PageResult) => ({
    ...p,
    checks: p.checks.map(_sameNow),
    text: _sameNow([p.text])[0],
  });
  assert.deepEqual(same(shownByKeyboard), same(page.genuine));
});

Deno.test("checker page: a trust root among the dropped files is not taken; the user's own decides", () => {
  // The attestation's folder holds a trust root listing the signer (under another name); the
  // user's own trust root does not: the page says the dropped one was not taken, and the check
  // against the user's is INVALID, as `bitaudit check` with the user's trust root says.
  assert.match(
    twoRoots.dropNote,
    /^Not taken from the dropped files: verdict-evidence\.json \(a trust root; choose your own in the Trust root field/,
  );
  assert.equal(twoRoots.headline, "✖ INVALID attestation");
});

Deno.test("checker page: a claim log chosen in its own field stays when a drop holds another; the check uses the user's", () => {
  assert.match(handLog.chosen[2]!, /^my-claims\.jsonl \(/);
  assert.match(
    handLog.dropNote,
    /Not taken from the dropped files: claims\.jsonl \(the claim log my-claims\.jsonl was chosen in its own field and stays/,
  );
  // The user's log is not the audited one: INVALID, as `bitaudit check --log my-claims.jsonl`.
  assert.equal(handLog.headline, "✖ INVALID attestation");
  assert.ok(handLog.checks.some(([c, ok]) => c === "log-size" && ok === "FAIL"));
});

Deno.test("checker page: a payload changed after signing shows INVALID", async () => {
  const p = page.tampered;
  assert.equal(p.headline, "✖ INVALID attestation");
  assert.doesNotMatch(p.text, /verdict PASSED/);
  assert.deepEqual(p.checks.filter((r) => r[1] === "FAIL").map((r) => r[0]), ["signatures"]);
  await sameAsCli(p, cases.tampered);
});

Deno.test("checker page: a trust root without the inspector's key shows INVALID", async () => {
  assert.equal(page.wrongRoot.headline, "✖ INVALID attestation");
  await sameAsCli(page.wrongRoot, cases.wrongRoot);
});

Deno.test("checker page: a key revoked before the signing time shows INVALID", async () => {
  const p = page.revoked;
  assert.equal(p.headline, "✖ INVALID attestation");
  assert.equal(p.checks.find((r) => r[0] === "signatures")?.[1], "FAIL");
  await sameAsCli(p, cases.revoked);
});

Deno.test("checker page: markup and ANSI in a signed field are shown as text, never run", async () => {
  const p = page.injected;
  assert.equal(p.state, "valid");
  // Markup shown literally; the ESC shown as the CLI prints it (issue 25, item 8).
  assert.ok(p.text.includes(escapeForTerminal(INJECT)), "the field is shown as text");
  assert.ok(!p.text.includes("\u001b"));
  assert.deepEqual([p.foreign, p.pwned], [0, false]);
  await sameAsCli(p, cases.injected);
});

Deno.test("checker page: markup in an unsigned field shows INVALID, as text", async () => {
  const p = page.typeInjected;
  assert.equal(p.headline, "✖ INVALID attestation");
  assert.equal(p.verdict, "", "no verdict is shown for an invalid attestation");
  // Shown as text, quoted and cut short (nothing vouches for it).
  assert.ok(p.text.includes(`'${escapeForTerminal(INJECT.slice(0, 16))}... (`), p.text);
  assert.deepEqual([p.foreign, p.pwned], [0, false]);
  await sameAsCli(p, cases.typeInjected);
});

Deno.test("checker page: an input that is not an attestation is named, not checked", async () => {
  const p = page.notAnAttestation;
  assert.equal(p.headline, "✖ Cannot read the attestation");
  assert.match(p.text, /\[BAD_ENVELOPE\]/);
  await assert.rejects(checkFile(cases.notAnAttestation), { code: "BAD_ENVELOPE" });
});

Deno.test("checker page: a byte-order mark is refused in an attestation and a claim log, as by the CLI", async () => {
  assert.equal(page.bomAttestation.headline, "✖ Cannot read the attestation");
  assert.match(page.bomAttestation.text, /byte-order mark/);
  await assert.rejects(checkFile(cases.bomAttestation), { code: "BAD_ENVELOPE" });
  assert.equal(page.bomLog.headline, "✖ Cannot read the claim log");
  assert.match(page.bomLog.text, /byte-order mark/);
});

Deno.test("checker page: screenshots of both states are PNG files", async () => {
  for (const path of Object.values(shotOf)) {
    const bytes = await Deno.readFile(path!);
    assert.deepEqual([...bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
  }
});
