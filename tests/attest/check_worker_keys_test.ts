// Review h148: the worker keys of a sharded audit were never looked up in the trust root, so an
// inspector key could sign a verdict whose results the prover's own key computed, or a key the
// trust root revokes for compromise, and `check` said VALID.
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  type CheckReport,
  encodeStatement,
  generateKeyPair,
  IN_TOTO_PAYLOAD_TYPE,
  keyId,
  parseEnvelope,
  parseTrustRoot,
  signEnvelope,
  type TrustRoot,
  verdictStatement,
} from "../../mod.ts";
import { MAX_NAMED_WORKER_REFUSALS } from "../../src/attest/check_worker_keys.ts";
import { validityHints } from "../../src/web/mod.ts";
import { checkSigned, verdictReport } from "./_verdict_report.ts";

const inspector = await generateKeyPair();
const prover = await generateKeyPair();
const colleague = await generateKeyPair();
const stranger = await generateKeyPair();
const TIME = "2026-03-01T12:00:00Z";

/**
 * A trust root of the inspector and a colleague (inspector keys) and the prover, with `edit`
 * applied to the colleague's entry.
 */
function root(edit: Record<string, unknown> = {}): TrustRoot {
  const built = buildTrustRoot([inspector.publicKey, colleague.publicKey], {
    start: "2026-01-01T00:00:00Z",
    provers: { keys: [prover.publicKey], start: "2026-01-01T00:00:00Z" },
  });
  const id = keyId(colleague.publicKey);
  built.keys = built.keys.map((k) => k.keyid === id ? { ...k, ...edit } : k);
  return parseTrustRoot(JSON.stringify(built));
}

/** A statement of the shared report whose every returned result the given worker computed. */
function statement(worker: Uint8Array) {
  const report = verdictReport();
  const id = keyId(worker);
  return verdictStatement(report, {
    verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
    assets: { "tables/manifest.json": "66".repeat(32) },
    timeVerified: TIME,
    workers: { byResult: report.results.map(() => id), keys: [worker], reverified: [] },
  });
}

async function check(worker: Uint8Array, trustRoot: TrustRoot): Promise<CheckReport> {
  return await checkSigned(statement(worker), [inspector], {
    trustRoot,
    now: new Date("2026-03-02T00:00:00Z"),
  });
}
const line = (r: CheckReport) => r.checks.find((c) => c.check === "workers");
const failed = (r: CheckReport) => r.checks.filter((c) => !c.ok).map((c) => c.check);

Deno.test("checkAttestation() fails a verdict whose results a prover key of the trust root computed", async () => {
  const r = await check(prover.publicKey, root());
  assert.equal(r.valid, false);
  assert.deepEqual(failed(r), ["workers"]);
  assert.equal(r.verdict, "FAILED"); // the statement's, read; it means nothing without `valid`
  const id = keyId(prover.publicKey).slice(0, 16);
  assert.match(
    line(r)!.detail,
    new RegExp(
      `^worker key ${id}…, which computed 8 of the 8 results, is a prover key of your trust root`,
    ),
  );
});

Deno.test("checkAttestation() fails a verdict whose worker is an inspector key of the trust root revoked, expired or not yet valid at the verdict's time", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { revoked: { time: "2026-02-01T00:00:00Z", reason: "key compromise" } },
      /is an inspector key of your trust root, revoked: key compromise at the verdict's time 2026-03-01T12:00:00Z$/,
    ],
    [
      { validFor: { start: "2026-01-01T00:00:00Z", end: "2026-02-01T00:00:00Z" } },
      /, expired at the verdict's time/,
    ],
    [{ validFor: { start: "2026-04-01T00:00:00Z" } }, /, not yet valid at the verdict's time/],
  ];
  for (const [edit, detail] of cases) {
    const r = await check(colleague.publicKey, root(edit));
    assert.deepEqual(failed(r), ["workers"], JSON.stringify(edit));
    assert.match(line(r)!.detail, detail);
  }
  // Revoked only after the verdict's time: its results stand.
  const later = await check(
    colleague.publicKey,
    root({ revoked: { time: "2026-03-01T13:00:00Z", reason: "rotated" } }),
  );
  assert.ok(later.valid, JSON.stringify(later.checks));
  assert.match(
    line(later)!.detail,
    /1 inspector key\(s\) of your trust root valid at 2026-03-01T12:00:00Z/,
  );
});

Deno.test("checkAttestation() accepts worker keys the trust root does not list, and says the inspector vouches for them", async () => {
  const r = await check(stranger.publicKey, root());
  assert.ok(r.valid, JSON.stringify(r.checks));
  assert.equal(
    line(r)!.detail,
    "1 worker key(s): 1 not in your trust root (the signing inspector vouches for the workers it " +
      "merged); none is a prover key of your trust root",
  );
});

Deno.test("checkAttestation() leaves the signer's own worker key to the signatures check, and says when no worker is recorded", async () => {
  const own = await check(inspector.publicKey, root());
  assert.ok(own.valid, JSON.stringify(own.checks));
  assert.match(line(own)!.detail, /^1 worker key\(s\): 1 the signer's own;/);
  const none = await checkSigned(
    verdictStatement(verdictReport(), {
      verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
      assets: { "tables/manifest.json": "66".repeat(32) },
      timeVerified: TIME,
    }),
    [inspector],
    { trustRoot: root(), now: new Date("2026-03-02T00:00:00Z") },
  );
  assert.ok(none.valid);
  assert.equal(line(none)!.detail, "no worker keys recorded: the signer computed every result");
});

Deno.test("validityHints() names the window of a worker's inspector key that the verdict's time falls outside", async () => {
  const trustRoot = root({ validFor: { start: "2026-04-01T00:00:00Z" } });
  const env = await signEnvelope(encodeStatement(statement(colleague.publicKey)), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [inspector],
  });
  const envelope = parseEnvelope(JSON.stringify(env));
  const report = await checkAttestation(envelope, {
    trustRoot,
    now: new Date("2026-03-02T00:00:00Z"),
  });
  const hints = await validityHints({ report, envelope, trustRoot });
  assert.equal(hints.length, 1, hints.join("\n"));
  assert.match(
    hints[0]!,
    new RegExp(
      `^Your trust root lets inspector key ${
        keyId(colleague.publicKey).slice(0, 16)
      }…, which computed results of this audit as a worker, sign from 2026-04-01T00:00:00Z`,
    ),
  );
  assert.match(
    hints[0]!,
    /The verdict says it was signed at 2026-03-01T12:00:00Z\. That is before/,
  );
});

Deno.test("checkAttestation() names the first refused worker keys and counts the others", async () => {
  const provers = await Promise.all(Array.from({ length: 6 }, () => generateKeyPair()));
  const trustRoot = parseTrustRoot(JSON.stringify(
    buildTrustRoot([inspector.publicKey], {
      start: "2026-01-01T00:00:00Z",
      provers: { keys: provers.map((k) => k.publicKey), start: "2026-01-01T00:00:00Z" },
    }),
  ));
  const report = verdictReport();
  const ids = provers.map((k) => keyId(k.publicKey));
  const st = verdictStatement(report, {
    verifier: { version: "0.1.0", engine: "reference", runtime: "deno" },
    assets: { "tables/manifest.json": "66".repeat(32) },
    timeVerified: TIME,
    workers: {
      byResult: report.results.map((_, j) => ids[j % ids.length]!),
      keys: provers.map((k) => k.publicKey),
      reverified: [],
    },
  });
  const r = await checkSigned(st, [inspector], {
    trustRoot,
    now: new Date("2026-03-02T00:00:00Z"),
  });
  assert.deepEqual(failed(r), ["workers"]);
  const parts = line(r)!.detail.split("; ");
  assert.equal(parts.length, MAX_NAMED_WORKER_REFUSALS + 1, line(r)!.detail);
  assert.equal(parts.at(-1), `${6 - MAX_NAMED_WORKER_REFUSALS} more worker key(s) refused`);
});
