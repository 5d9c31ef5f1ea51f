/**
 * Announced audits: the inspector signs (checkpoint, k, chain, round) before the round; the audit
 * id is derived, so grinding attempts are refused or labelled (issue 18, section 2).
 */
import assert from "node:assert/strict";
import {
  announcedAuditId,
  announcementStatement,
  buildTrustRoot,
  createLocalTsa,
  decodeBase64,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  encodeStatement,
  formatSignedNote,
  IN_TOTO_PAYLOAD_TYPE,
  keyId,
  parseRfc3339,
  parseSignedNote,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { InputError } from "../../src/errors.ts";
import { announceAudit } from "../../src/cli/commands/announce.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import {
  beaconAudit,
  CHAIN,
  checkpoint,
  f,
  goodCheckpoint,
  inspectorPub,
  prover,
  proverPub,
  QUICKNET,
  refused,
  resign,
  stranger,
  trustRoot,
} from "./_trust_fixture.ts";
import { runBitaudit } from "./_run.ts";

// Inspector keys valid from 2023: announcements are dated before quicknet round 123.
const root = await trustRoot("root-2023", { inspectorFrom: "2023-01-01T00:00:00Z" });
let n = 0;
const announce = (
  o: { round?: string; k?: string; time?: string; key?: string; cp?: string } = {},
) =>
  announceAudit({
    checkpoint: o.cp ?? goodCheckpoint,
    proverPub: prover.publicKey,
    chain: CHAIN,
    round: o.round ?? "123",
    k: o.k ?? "3",
    keys: [o.key ?? f.key],
    out: `${f.dir}/announcement-${n++}.dsse.json`,
    time: o.time ?? "2023-08-23T15:15:10Z",
  });
const lastAnnouncement = () => `${f.dir}/announcement-${n - 1}.dsse.json`;

const first = await announce();
const firstPath = lastAnnouncement();
const announced = await beaconAudit({ announcement: firstPath });

Deno.test("an announced audit takes the derived audit id and check confirms the announcement", async () => {
  assert.equal(announced.report.auditId, first.auditId);
  assert.match(first.auditId, /^announced-[0-9a-f]{32}$/);
  const r = await checkFile({ attestation: announced.attestation, trustRoot: root, log: f.log });
  assert.equal(r.valid, true, JSON.stringify(r.checks.filter((c) => !c.ok)));
  assert.deepEqual(r.trust, {
    randomness: "drand",
    commitment: "prover-signed",
    announcement: "pre-committed",
  });
  assert.match(await Deno.readTextFile(announced.reportPath), /- announced: /);
});

Deno.test("grinding: a second announcement for the same checkpoint and round gives the same audit id", async () => {
  // Announced again later, over a re-signed copy of the same checkpoint.
  const resigned = await checkpoint("cp-resigned", { time: "2023-08-23T15:05:00Z" });
  const second = await announce({ time: "2023-08-23T15:15:20Z", cp: resigned });
  assert.equal(second.auditId, first.auditId);
  const again = await beaconAudit({ announcement: lastAnnouncement(), checkpoint: resigned });
  assert.deepEqual(again.report.selected, announced.report.selected);
  // Choosing another audit id or another k than announced is refused.
  await refused(
    "ANNOUNCEMENT_MISMATCH",
    () => beaconAudit({ announcement: firstPath, auditId: "my-own-id" }),
  );
  await refused("ANNOUNCEMENT_MISMATCH", () => beaconAudit({ announcement: firstPath, k: "4" }));
});

Deno.test("grinding: a round not after the announcement is refused; another round does not fit", async () => {
  await refused("ANNOUNCEMENT_LATE", () => announce({ time: "2023-08-23T15:15:33Z" }));
  await refused("ANNOUNCEMENT_LATE", () => announce({ round: "100" }));
  // More records than the checkpoint holds cannot be drawn: refused when announcing, not later.
  await refused("AUDIT_K", () => announce({ k: "3200" }));
  // A round whose time is past any date (or past 2^53 ms) is a bad flag, not a crash.
  await refused("USAGE_NUMBER", () => announce({ round: "3000000000000" }));
  await refused("USAGE_NUMBER", () => announce({ round: "9007199254740991" }));
  await announce({ round: "124" });
  await refused("ANNOUNCEMENT_MISMATCH", () => beaconAudit({ announcement: lastAnnouncement() }));
  // Signed by a key that is not the auditing inspector's.
  await announce({ key: stranger.privateKey });
  await refused("ANNOUNCEMENT_MISMATCH", () => beaconAudit({ announcement: lastAnnouncement() }));
  // A hand-made announcement dated after the round is refused when read.
  const key = decodePrivateKeyPem(await Deno.readTextFile(f.key));
  const late = announcementStatement({ ...first, announcedAt: "2023-08-23T15:15:10Z" });
  const edited = { ...late, predicate: { ...late.predicate, announcedAt: "2023-08-23T15:16:00Z" } };
  const env = await signEnvelope(encodeStatement(edited), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [{ privateKey: key, publicKey: inspectorPub }],
  });
  const path = `${f.dir}/late.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(env));
  await refused("ANNOUNCEMENT_MISMATCH", () => beaconAudit({ announcement: path }));
});

Deno.test("check labels an audit without announcement and fails a doctored one", async () => {
  const plain = await beaconAudit();
  const r = await checkFile({ attestation: plain.attestation, trustRoot: root });
  assert.equal(r.valid, true);
  assert.equal(r.trust?.announcement, "none");
  assert.match(
    r.checks.find((c) => c.check === "announcement")!.detail,
    /sample not pre-committed/,
  );
  // The inspector re-signs the announced attestation with another audit id.
  const otherId = await resign<{ auditId: string }>(announced.attestation, {
    name: "other-id",
    edit: (a) =>
      a.auditId = announcedAuditId({
        bodySha256: "00".repeat(32),
        chainHash: QUICKNET,
        round: 123,
      }),
  });
  const bad = await checkFile({ attestation: otherId, trustRoot: root });
  assert.equal(bad.valid, false);
  assert.match(
    bad.checks.find((c) => c.check === "announcement")!.detail,
    /audit id is not the announced/,
  );
  // Inspector keys valid only from 2026: the 2023 announcement is not signed by a valid key.
  const late = await checkFile({
    attestation: announced.attestation,
    trustRoot: await trustRoot("root-2026"),
  });
  assert.match(
    late.checks.find((c) => c.check === "announcement")!.detail,
    /no inspector key valid/,
  );
});

/** Asserts that `run` rejects with an InputError of `code` whose message matches `message`. */
const refusedWith = async (
  code: InputError["code"],
  message: RegExp,
  run: () => Promise<unknown>,
) =>
  await assert.rejects(run, (e: unknown) => {
    assert.ok(e instanceof InputError && e.code === code, String(e));
    assert.match(e.message, message);
    return true;
  });

Deno.test("audit given a --key that did not sign the announcement names the key that did", async () => {
  await announce({ key: stranger.privateKey });
  const id = keyId(decodePublicKeyPem(await Deno.readTextFile(stranger.publicKey)));
  await refusedWith(
    "ANNOUNCEMENT_MISMATCH",
    new RegExp(`signed by key ${id.slice(0, 16)}…, not by any --key given`),
    () => beaconAudit({ announcement: lastAnnouncement() }),
  );
});

Deno.test("announce without --time for a round already published says what to do", async () => {
  await refusedWith(
    "ANNOUNCEMENT_LATE",
    /must precede its round: name a later round, or, to replay a past round .*give --time before the round's time/,
    () =>
      announceAudit({
        checkpoint: goodCheckpoint,
        proverPub: prover.publicKey,
        chain: CHAIN,
        round: "123",
        k: "3",
        keys: [f.key],
        out: `${f.dir}/announcement-now.dsse.json`,
      }),
  );
});

Deno.test("a checkpoint without its timestamped cosignature is refused by announce, as audit and check refuse it", async () => {
  // The same body with the prover's note signature alone: the announcement's date check would
  // have nothing to compare with, and the prover could cosign the body with any time after the
  // round is public (the audit id does not depend on signatures).
  const signed = parseSignedNote(await Deno.readTextFile(goodCheckpoint));
  const bare = `${f.dir}/cp-no-cosignature.txt`;
  await Deno.writeTextFile(
    bare,
    formatSignedNote({ text: signed.text, signatures: [signed.signatures[0]!] }),
  );
  await refusedWith(
    "CHECKPOINT_SIGNATURE",
    /cp-no-cosignature\.txt' has no timestamped cosignature by the prover key/,
    () => announce({ cp: bare, time: "2023-01-02T00:00:00Z" }),
  );
});

Deno.test("an announcement dated before its checkpoint was signed is refused by announce and audit and fails check", async () => {
  // The checkpoint was signed at 15:00:00; 40 s before is within the clock skew every check
  // allows, ten minutes is not.
  await announce({ time: "2023-08-23T14:59:20Z" });
  await refusedWith(
    "ANNOUNCEMENT_MISMATCH",
    /checkpoint .* was signed later \(2023-08-23T15:00:00Z\)/,
    () => announce({ time: "2023-08-23T14:50:00Z" }),
  );
  // A hand-made one (the same audit id: it does not depend on the time).
  const key = decodePrivateKeyPem(await Deno.readTextFile(f.key));
  const env = await signEnvelope(
    encodeStatement(announcementStatement({ ...first, announcedAt: "2023-08-23T14:50:00Z" })),
    { payloadType: IN_TOTO_PAYLOAD_TYPE, keys: [{ privateKey: key, publicKey: inspectorPub }] },
  );
  const path = `${f.dir}/early.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(env));
  await refusedWith(
    "ANNOUNCEMENT_MISMATCH",
    /before the checkpoint it names was signed/,
    () => beaconAudit({ announcement: path }),
  );
  // The announced attestation re-signed with the early announcement in it.
  const early = await resign<{ announcement: { envelope: unknown } }>(announced.attestation, {
    name: "early-announcement",
    edit: (a) => a.announcement.envelope = env,
  });
  const r = await checkFile({ attestation: early, trustRoot: root });
  assert.equal(r.valid, false);
  assert.match(
    r.checks.find((c) => c.check === "announcement")!.detail,
    /dated 2023-08-23T14:50:00Z, before the checkpoint it names was signed/,
  );
  assert.ok(r.checks.filter((c) => !c.ok).every((c) => c.check === "announcement"));
});

Deno.test("an announcement's RFC 3161 time is what audit and check both read against the checkpoint, with the clock skew every check allows", async () => {
  // The checkpoint was signed at 15:00:00 by the prover's clock; the TSA dates the announcement.
  const tsa = await createLocalTsa({
    name: "t",
    notBefore: parseRfc3339("2023-01-01T00:00:00Z"),
    notAfter: Date.now() + 86_400_000,
  });
  const root = `${f.dir}/skew-root.json`;
  await Deno.writeTextFile(
    root,
    JSON.stringify(buildTrustRoot([inspectorPub], {
      start: "2023-01-01T00:00:00Z",
      provers: { keys: [proverPub], start: "2023-01-01T00:00:00Z" },
      drand: [{ chainHash: QUICKNET, beaconId: "quicknet" }],
      tsa: [{ certificate: tsa.anchor, name: "t" }],
    })),
  );
  const stamped = async (name: string, tokenTime: string) => {
    const path = `${f.dir}/${name}.dsse.json`;
    await announceAudit({
      checkpoint: goodCheckpoint,
      proverPub: prover.publicKey,
      chain: CHAIN,
      round: "123",
      k: "3",
      keys: [f.key],
      out: path,
      time: "2023-08-23T15:00:30Z",
    });
    const sig = JSON.parse(await Deno.readTextFile(path)).signatures[0].sig;
    const tsr = `${f.dir}/${name}.tsr`;
    await Deno.writeFile(
      tsr,
      await tsa.stamp(decodeBase64(sig, { alphabet: "any" }), { time: parseRfc3339(tokenTime) }),
    );
    return { announcement: path, announcementTimestamp: tsr };
  };
  // 10 s before the checkpoint by the TSA's clock: within the skew, signed and VALID.
  const near = await beaconAudit(await stamped("skew-near", "2023-08-23T14:59:50Z"));
  assert.equal((await checkFile({ attestation: near.attestation, trustRoot: root })).valid, true);
  // Ten minutes before: audit refuses it, as check would (audit used to read the stated time).
  await refusedWith(
    "ANNOUNCEMENT_MISMATCH",
    /dated 2023-08-23T14:50:00.000Z, before the checkpoint it names was signed/,
    async () => beaconAudit(await stamped("skew-far", "2023-08-23T14:50:00Z")),
  );
});

Deno.test("check says an announcement came before the round only when a timestamp vouches for it, and --require-announcement asks for one", async () => {
  const tsa = await createLocalTsa({
    name: "t",
    notBefore: parseRfc3339("2023-01-01T00:00:00Z"),
    notAfter: Date.now() + 86_400_000,
  });
  const stampedRoot = `${f.dir}/policy-tsa-root.json`;
  await Deno.writeTextFile(
    stampedRoot,
    JSON.stringify(buildTrustRoot([inspectorPub], {
      start: "2023-01-01T00:00:00Z",
      provers: { keys: [proverPub], start: "2023-01-01T00:00:00Z" },
      drand: [{ chainHash: QUICKNET, beaconId: "quicknet" }],
      tsa: [{ certificate: tsa.anchor, name: "t" }],
    })),
  );
  const sig = JSON.parse(await Deno.readTextFile(firstPath)).signatures[0].sig;
  const tsr = `${f.dir}/policy-announcement.tsr`;
  await Deno.writeFile(
    tsr,
    await tsa.stamp(decodeBase64(sig, { alphabet: "any" }), {
      time: parseRfc3339("2023-08-23T15:15:10Z"),
    }),
  );
  const stamped = await beaconAudit({ announcement: firstPath, announcementTimestamp: tsr });
  const plain = await beaconAudit();
  const check = (attestation: string, trust: string) =>
    runBitaudit(["check", attestation, "--trust-root", trust, "--require-announcement"]);
  // Timestamped: in advance, the policy is met.
  const ok = await check(stamped.attestation, stampedRoot);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
  assert.match(
    ok.stdout,
    /; sample announced in advance \(RFC 3161 timestamp: the TSA vouches\)$/m,
  );
  assert.match(
    ok.stdout,
    /^ok {3}policy --require-announcement: a verified RFC 3161 timestamp dates the announcement before the round$/m,
  );
  assert.match(ok.stdout, /^policy met$/m);
  // The inspector's stated time only: valid, but never "in advance", and the policy is not met.
  const stated = await check(announced.attestation, root);
  assert.equal(stated.code, 1, stated.stdout + stated.stderr);
  assert.match(stated.stdout, /^VALID attestation: /m);
  assert.match(
    stated.stdout,
    /; sample announced at the inspector's stated time only \(no timestamp: the order is the inspector's word\)$/m,
  );
  assert.doesNotMatch(stated.stdout, /announced in advance/);
  assert.match(
    stated.stdout,
    /^ok {3}announcement: audit announced at 2023-08-23T15:15:10Z, the inspector's stated time only \(no timestamp: that it preceded round 123 is the inspector's word\)$/m,
  );
  assert.match(
    stated.stdout,
    /^FAIL policy --require-announcement: the announcement has no timestamp/m,
  );
  assert.match(stated.stdout, /^POLICY NOT MET: --require-announcement$/m);
  // No announcement at all.
  const none = await check(plain.attestation, root);
  assert.equal(none.code, 1);
  assert.match(none.stdout, /^FAIL policy --require-announcement: the audit was not announced$/m);
  const json = JSON.parse(
    (await runBitaudit([
      "check",
      announced.attestation,
      "--trust-root",
      root,
      "--require-announcement",
      "--json",
    ])).stdout,
  );
  assert.deepEqual(json.policy.requirements, [
    { flag: "--require-announcement", required: "timestamped", found: "pre-committed", met: false },
  ]);
});

Deno.test("an audit id of the announced form without its announcement is refused by audit and fails check", async () => {
  // The inspector drops the announcement from an announced verdict and re-signs it: the id still
  // reads as derived from an announcement.
  const dropped = await resign<{ announcement?: unknown }>(announced.attestation, {
    name: "announced-id-without-announcement",
    edit: (a) => delete a.announcement,
  });
  const r = await checkFile({ attestation: dropped, trustRoot: root });
  assert.equal(r.valid, false);
  assert.deepEqual(r.checks.filter((c) => !c.ok).map((c) => c.check), ["predicate"]);
  assert.match(
    r.checks.find((c) => c.check === "predicate")!.detail,
    /^\[VERDICT_FIELD_VALUE\] .*'predicate\.audit\.auditId' starts with 'announced-' but the verdict carries no announcement/,
  );
  // audit does not sign one: an id of that form is taken only with its --announcement.
  await refusedWith(
    "ANNOUNCEMENT_MISMATCH",
    /^Cannot use the audit id 'announced-0{32}': an id starting with 'announced-' is derived from an announcement/,
    () => beaconAudit({ auditId: `announced-${"0".repeat(32)}` }),
  );
});
