/**
 * `checkFiles`, what the checker page's worker runs: the files' bytes decoded as `bitaudit check`
 * decodes files, the same view as `checkView(runCheck(...))`, a refusal naming the input that is
 * not text, and the page's own failures said as such.
 */
import assert from "node:assert/strict";
import { buildTrustRoot, generateKeyPair } from "../../mod.ts";
import { checkFiles, checkView, refusedView, runCheck } from "../../src/web/mod.ts";
import { auditArgs, makeAuditFixture } from "../cli/_audit_fixture.ts";
import { runBitaudit } from "../cli/_run.ts";

// With a falsified record, as the demo's log has: a valid attestation of a FAILED verdict.
const f = await makeAuditFixture({
  records: 6,
  falsify: [{ seq: 3, kind: "fingerprint", bit: 5 }],
});
const audited = await runBitaudit(auditArgs(f, `${f.dir}/out`, 6));
assert.equal(audited.code, 1, audited.stderr);
const bytes = {
  attestation: await Deno.readFile(`${f.dir}/out/attestation.dsse.json`),
  trustRoot: await Deno.readFile(f.trustRoot),
  log: await Deno.readFile(f.log),
};
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const now = (s: string) => s.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");

Deno.test("checkFiles() shows what checkView(runCheck()) shows for the same files, with the log's progress", async () => {
  const seen: number[] = [];
  const view = await checkFiles(bytes, { progress: (done) => seen.push(done) });
  const direct = checkView(
    await runCheck({
      attestation: text(bytes.attestation),
      trustRoot: text(bytes.trustRoot),
      log: text(bytes.log),
    }),
  );
  assert.equal(view.tone, "valid");
  assert.equal(view.verdict?.tone, "failed");
  assert.ok(view.results.some((r) => r.index === 3 && r.status === "FAIL"));
  assert.equal(now(JSON.stringify(view)), now(JSON.stringify(direct)));
  assert.equal(seen.at(-1), 6);
});

Deno.test("checkFiles() refuses a file that is not UTF-8 and names its input", async () => {
  const bad = new Uint8Array([0x7b, 0xff, 0x7d]);
  for (
    const [slot, input] of [
      ["attestation", "attestation"],
      ["trustRoot", "trust root"],
      ["log", "claim log"],
    ] as const
  ) {
    const view = await checkFiles({ ...bytes, [slot]: bad });
    assert.equal(view.tone, "refused");
    assert.equal(view.headline, `Cannot read the ${input}`);
    assert.equal(view.summary[0], `[READ] Cannot read the ${input}: not valid UTF-8`);
  }
});

Deno.test("checkFiles() keeps a byte-order mark, which the strict parsers refuse as the CLI does", async () => {
  const bom = (b: Uint8Array) => new Uint8Array([0xef, 0xbb, 0xbf, ...b]);
  const onLog = await checkFiles({ ...bytes, log: bom(bytes.log) });
  assert.equal(onLog.headline, "Cannot read the claim log");
  const onAttestation = await checkFiles({ ...bytes, attestation: bom(bytes.attestation) });
  assert.equal(onAttestation.headline, "Cannot read the attestation");
});

Deno.test("checkFiles() without a log, and against another trust root, as runCheck() does", async () => {
  const { log: _, ...noLog } = bytes;
  assert.equal((await checkFiles(noLog)).tone, "valid");
  const other = await generateKeyPair();
  const root = new TextEncoder().encode(
    JSON.stringify(buildTrustRoot([other.publicKey], { start: "2026-01-01T00:00:00Z" })),
  );
  assert.equal((await checkFiles({ ...noLog, trustRoot: root })).tone, "invalid");
});

Deno.test("refusedView() says the page's own failure and an insecure context apart from an unreadable file, escaped", () => {
  const internal = refusedView({
    kind: "refused",
    input: "attestation",
    code: "INTERNAL",
    message: "boom \u202e",
  });
  assert.equal(
    internal.headline,
    "Internal error of the checker page (not a finding about your files)",
  );
  assert.equal(internal.summary[0], "[INTERNAL] boom \\u{202e}");
  const insecure = refusedView({
    kind: "refused",
    input: "attestation",
    code: "INSECURE_CONTEXT",
    message: "open it from a file",
  });
  assert.match(insecure.headline, /^Cannot check here/);
  assert.equal(
    refusedView({ kind: "refused", input: "timestamp", code: "READ", message: "x" }).headline,
    "Cannot read the timestamp",
  );
});
