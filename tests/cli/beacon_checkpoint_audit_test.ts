/**
 * Audits whose randomness is a real drand round (quicknet round 123, demo/drand/) published after
 * a prover-signed checkpoint, checked offline; every tampered input is refused by `audit` or
 * failed by `check` with a named reason, and typed randomness stays possible but labelled.
 */
import assert from "node:assert/strict";
import { decodeBase64 } from "../../src/attest/mod.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import { runBitaudit } from "./_run.ts";
import { assertCliCode } from "../_assert_code.ts";
import {
  audit,
  BEACON,
  beaconAudit,
  CHAIN,
  checkpoint,
  checkpointCosignedAt,
  f,
  goodCheckpoint,
  goodRoot,
  prover,
  QUICKNET,
  refused,
  resign,
  stranger,
  trustRoot,
} from "./_trust_fixture.ts";

const good = await beaconAudit();

Deno.test("audit with a drand round and a signed checkpoint binds both; check re-verifies them", async () => {
  const payload = JSON.parse(
    new TextDecoder().decode(
      decodeBase64(JSON.parse(await Deno.readTextFile(good.attestation)).payload),
    ),
  );
  const a = payload.predicate.audit;
  assert.equal(a.beacon.source, "drand");
  assert.equal(a.beacon.round, 123);
  assert.equal(a.beacon.drand.chainHash, QUICKNET);
  assert.equal(a.beacon.drand.roundTime, "2023-08-23T15:15:33Z");
  assert.equal(a.checkpoint.signedAt, "2023-08-23T15:00:00Z");
  assert.equal(a.checkpoint.rootHash, a.logRoot);
  const report = await checkFile({
    attestation: good.attestation,
    trustRoot: goodRoot,
    log: f.log,
  });
  assert.equal(report.valid, true, JSON.stringify(report.checks.filter((c) => !c.ok)));
  assert.deepEqual(report.trust, {
    randomness: "drand",
    commitment: "prover-signed",
    announcement: "none",
  });
  for (const c of ["beacon", "checkpoint", "beacon-after-commitment"]) {
    assert.ok(report.checks.some((x) => x.check === c && x.ok), c);
  }
  const md = await Deno.readTextFile(good.reportPath);
  assert.match(md, /drand `quicknet` round 123 .*BLS signature verified/);
  assert.match(md, /checkpoint `bitaudit\.example\/prover-1\/log` of 6 records/);
});

Deno.test("typed randomness still audits, recorded as source unverified and labelled", async () => {
  const r = await audit({ randomness: "ab".repeat(32), round: "7" });
  const payload = JSON.parse(
    new TextDecoder().decode(
      decodeBase64(JSON.parse(await Deno.readTextFile(r.attestation)).payload),
    ),
  );
  assert.deepEqual(payload.predicate.audit.beacon, {
    randomness: "ab".repeat(32),
    round: 7,
    source: "unverified",
  });
  assert.equal(payload.predicate.audit.checkpoint, undefined);
  const report = await checkFile({ attestation: r.attestation, trustRoot: goodRoot });
  assert.equal(report.valid, true);
  assert.deepEqual(report.trust, {
    randomness: "unverified",
    commitment: "none",
    announcement: "none",
  });
  assert.match(
    report.checks.find((c) => c.check === "beacon")!.detail,
    /NOT from a verified beacon/,
  );
  assert.match(await Deno.readTextFile(r.reportPath), /NOT a verified beacon/);
});

Deno.test("audit refuses tampered beacons, foreign or mismatched checkpoints and late commitments", async () => {
  const round = JSON.parse(await Deno.readTextFile(BEACON));
  const write = async (name: string, value: unknown) => {
    await Deno.writeTextFile(`${f.dir}/${name}`, JSON.stringify(value));
    return `${f.dir}/${name}`;
  };
  const flipped = {
    ...round,
    signature: (round.signature[0] === "b" ? "a" : "b") + round.signature.slice(1),
  };
  await refused(
    "BEACON_INVALID",
    async () => beaconAudit({ beacon: await write("flipped.json", flipped) }),
  );
  await refused(
    "BEACON_INVALID",
    async () => beaconAudit({ beacon: await write("r124.json", { ...round, round: 124 }) }),
  );
  const info = JSON.parse(await Deno.readTextFile(CHAIN));
  await refused(
    "BEACON_INVALID",
    async () => beaconAudit({ chain: await write("period.json", { ...info, period: 30 }) }),
  );
  await refused(
    "BEACON_INVALID",
    async () =>
      beaconAudit({
        chain: await write("scheme.json", { ...info, schemeID: "pedersen-bls-chained" }),
      }),
  );
  await refused(
    "BAD_BEACON",
    async () => beaconAudit({ beacon: await write("bad.json", { round: 1 }) }),
  );
  // A checkpoint signed by another key, of another log, or after the round was published.
  await refused(
    "CHECKPOINT_SIGNATURE",
    async () =>
      beaconAudit({ checkpoint: await checkpoint("cp-stranger", { key: stranger.privateKey }) }),
  );
  const prefix = `${f.dir}/prefix.jsonl`;
  const lines = (await Deno.readTextFile(f.log)).split("\n").filter((l) => l.length > 0);
  await Deno.writeTextFile(prefix, lines.slice(0, 5).map((l) => `${l}\n`).join(""));
  await refused(
    "CHECKPOINT_MISMATCH",
    async () => beaconAudit({ checkpoint: await checkpoint("cp-prefix", { log: prefix }) }),
  );
  await refused(
    "BEACON_TOO_EARLY",
    async () =>
      beaconAudit({ checkpoint: await checkpoint("cp-late", { time: "2023-08-23T15:15:33Z" }) }),
  );
  // Flag combinations.
  await refused("USAGE_TRUST", () => audit({ beacon: BEACON, chain: CHAIN }));
  await refused(
    "USAGE_TRUST",
    () => audit({ beacon: BEACON, chain: CHAIN, randomness: "ab", round: "1" }),
  );
  await refused("USAGE_TRUST", () => audit({}));
  await refused(
    "USAGE_TRUST",
    () => audit({ randomness: "ab", round: "1", checkpoint: goodCheckpoint }),
  );
});

Deno.test("check fails an unpinned chain, a prover key not yet valid, and an inspector's re-signed forgery", async () => {
  const fail = async (root: string, check: string, attestation = good.attestation) => {
    const r = await checkFile({ attestation, trustRoot: root });
    assert.equal(r.valid, false);
    const item = r.checks.find((c) => c.check === check);
    assert.ok(item !== undefined && !item.ok, `${check}: ${JSON.stringify(r.checks)}`);
    return item.detail;
  };
  assert.match(await fail(await trustRoot("unpinned", { pin: false }), "beacon"), /not pinned/);
  assert.match(
    await fail(
      await trustRoot("late-prover", { proverFrom: "2024-01-01T00:00:00Z" }),
      "checkpoint",
    ),
    /not valid when it signed/,
  );
  // The inspector holds a valid key and re-signs statements with doctored trust inputs.
  const statement = JSON.parse(
    new TextDecoder().decode(
      decodeBase64(JSON.parse(await Deno.readTextFile(good.attestation)).payload),
    ),
  );
  const forge = (name: string, edit: (a: _Audit) => void) =>
    resign<_Audit>(good.attestation, { name, edit });
  const sig = statement.predicate.audit.beacon.drand.signature as string;
  const forgedSig = await forge(
    "sig",
    (a) => a.beacon.drand!.signature = (sig[0] === "b" ? "a" : "b") + sig.slice(1),
  );
  assert.match(await fail(goodRoot, "beacon", forgedSig), /does not verify/);
  const forgedRound = await forge(
    "round",
    (a) => a.beacon.round = 124,
  );
  assert.match(await fail(goodRoot, "beacon", forgedRound), /beacon\.round differs/);
  const forgedTime = await forge(
    "time",
    (a) => a.checkpoint.signedAt = "2023-08-23T14:00:00Z",
  );
  assert.match(await fail(goodRoot, "checkpoint", forgedTime), /differ from the signed note/);
  const forgedNote = await forge(
    "note",
    (a) => a.checkpoint.note = a.checkpoint.note.replace("\n6\n", "\n7\n"),
  );
  assert.match(await fail(goodRoot, "checkpoint", forgedNote), /no valid prover signature/);
  const dropped = await forge(
    "dropped",
    (a) => delete a.beacon.drand,
  );
  assert.match(await fail(goodRoot, "beacon", dropped), /must come together/);
  // Claiming "unverified" for a beacon round is honest labelling, not a forgery: it passes as such.
  const relabelled = await forge(
    "relabelled",
    (a) => {
      a.beacon.source = "unverified";
      delete a.beacon.drand;
    },
  );
  const r = await checkFile({ attestation: relabelled, trustRoot: goodRoot });
  assert.deepEqual(r.trust, {
    randomness: "unverified",
    commitment: "prover-signed",
    announcement: "none",
  });
});

Deno.test("the audit CLI exits 2 with a one-line coded error for a tampered beacon", async () => {
  const round = JSON.parse(await Deno.readTextFile(BEACON));
  const path = `${f.dir}/cli-flipped.json`;
  await Deno.writeTextFile(path, JSON.stringify({ ...round, round: 122 }));
  const r = await runBitaudit([
    "audit",
    "--log",
    f.log,
    "--beacon",
    path,
    "--chain",
    CHAIN,
    "--checkpoint",
    goodCheckpoint,
    "--prover-pub",
    prover.publicKey,
    "--k",
    "2",
    "--key",
    f.key,
    "--out",
    `${f.dir}/cli-out`,
  ]);
  assert.equal(r.code, 2);
  assertCliCode(r.stderr, "BEACON_INVALID");
  assert.match(r.stderr, /^error \[\w+\]: Cannot use beacon .*: signature-invalid\n$/);
  await assert.rejects(
    () => Deno.stat(`${f.dir}/cli-out/attestation.dsse.json`),
    Deno.errors.NotFound,
  );
});

Deno.test("a checkpoint cosigned after 9999-12-31T23:59:59Z is refused by announce and audit (exit 2, coded) and fails check", async () => {
  const far = await checkpointCosignedAt("cp-far", 2 ** 53 - 1);
  const common = ["--checkpoint", far, "--prover-pub", prover.publicKey, "--chain", CHAIN];
  const announced = await runBitaudit([
    "announce",
    ...common,
    "--round",
    "123",
    "--k",
    "2",
    "--key",
    f.key,
    "--out",
    `${f.dir}/far-announcement.json`,
    "--time",
    "2023-08-23T15:15:10Z",
  ]);
  assert.equal(announced.code, 2, announced.stderr);
  assertCliCode(announced.stderr, "CHECKPOINT_SIGNATURE");
  assert.match(announced.stderr, /\(bad-timestamp\)\n$/);
  const audited = await runBitaudit([
    "audit",
    "--log",
    f.log,
    "--beacon",
    BEACON,
    ...common,
    "--k",
    "2",
    "--key",
    f.key,
    "--out",
    `${f.dir}/far-out`,
  ]);
  assert.equal(audited.code, 2, audited.stderr);
  assertCliCode(audited.stderr, "CHECKPOINT_SIGNATURE");
  // The inspector's attestation re-signed around it: the checkpoint check fails, no crash.
  const note = await Deno.readTextFile(far);
  const forged = await resign<_Audit>(good.attestation, {
    name: "far-checkpoint",
    edit: (a) => a.checkpoint.note = note,
  });
  const r = await checkFile({ attestation: forged, trustRoot: goodRoot });
  assert.equal(r.valid, false);
  assert.deepEqual(r.checks.filter((c) => !c.ok).map((c) => [c.check, c.detail]), [
    ["checkpoint", "no valid prover signature (bad-timestamp)"],
  ]);
});

Deno.test("a verdict dated before its drand round fails check (verdict-time), and audit --time before the round is refused", async () => {
  // Inspector keys valid from 2023, so that the signatures check judges the stated times alone.
  const root = await trustRoot("root-2023-verdict-time", { inspectorFrom: "2023-01-01T00:00:00Z" });
  const dated = (name: string, time: string) =>
    resign(good.attestation, { name, edit: (_, p) => p.timeVerified = time });
  const early = await checkFile({
    attestation: await dated("verdict-before-round", "2023-02-01T00:00:00Z"),
    trustRoot: root,
  });
  assert.equal(early.valid, false);
  assert.deepEqual(early.checks.filter((c) => !c.ok).map((c) => [c.check, c.detail]), [[
    "verdict-time",
    "the verdict states it was signed 2023-02-01T00:00:00Z, before drand round 123 (published " +
    "2023-08-23T15:15:33Z): a verdict cannot be computed before the inputs it rests on exist",
  ]]);
  // After the round (or within the clock skew of it): the check passes and says so.
  for (const time of ["2023-08-23T15:15:00Z", "2024-01-01T00:00:00Z"]) {
    const r = await checkFile({
      attestation: await dated(`verdict-${time}`, time),
      trustRoot: root,
    });
    assert.equal(r.valid, true, JSON.stringify(r.checks.filter((c) => !c.ok)));
    assert.match(r.checks.find((c) => c.check === "verdict-time")!.detail, /^verdict signed /);
  }
  // audit --time before the round (beyond the skew) is refused before anything is written.
  await refused("USAGE_TIME", () => beaconAudit({ time: "2023-08-23T15:05:00Z" }));
  await refused("USAGE_TIME", () => beaconAudit({ time: "2023-02-01T00:00:00Z" }));
  const later = await beaconAudit({ time: "2023-08-23T15:20:00Z" });
  assert.equal((await checkFile({ attestation: later.attestation, trustRoot: root })).valid, true);
});

/** The parts of the predicate's `audit` object the forgeries edit. */
interface _Audit {
  beacon: { source: string; round: number; drand?: { signature: string } };
  checkpoint: { signedAt: string; note: string };
}
