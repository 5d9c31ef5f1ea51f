/**
 * `signVerdict()` from the library against the audit command's path: same report, key and time,
 * same attestation bytes.
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  checkAttestation,
  encodePrivateKeyPem,
  keyId,
  openAssetStore,
  openBlobStore,
  parseClaimLog,
  parseEnvelope,
  parseTrustRoot,
  publicKeyFromPrivate,
  runAudit,
  signVerdict,
} from "../../mod.ts";
import { auditLog } from "../../src/cli/commands/audit.ts";
import { createGemmWalker } from "../../src/engine/mod.ts";
import { loadGemmEngine } from "../../src/resolve/mod.ts";
import { makeAuditFixture } from "./_audit_fixture.ts";

const TIME = "2026-03-01T12:00:00Z";
const f = await makeAuditFixture({
  records: 6,
  falsify: [{ seq: 1, kind: "fingerprint", bit: 5 }],
  blocks: 2,
});
// A fixed inspector key: Ed25519 signatures are deterministic, so fixed key + time = fixed bytes.
const privateKey = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
const key = { privateKey, publicKey: await publicKeyFromPrivate(privateKey) };
await Deno.writeTextFile(`${f.dir}/fixed.key`, encodePrivateKeyPem(privateKey), { mode: 0o600 });
const audit = { randomness: "ab".repeat(32), round: 7, k: 8 };

/** The library path: what a user writes without the CLI. */
async function libraryAudit() {
  const store = await openAssetStore();
  const blobs = openBlobStore(`${f.dir}/log/blobs`);
  const log = parseClaimLog(await Deno.readTextFile(f.log));
  const w = createGemmWalker(await loadGemmEngine(store), { threads: 1 });
  try {
    const report = await runAudit({ store, blobs, walker: w.walker, attention: w.attention }, {
      log,
      auditId: `audit-${log.root.slice(0, 16)}-r${audit.round}`,
      ...audit,
    });
    // The CLI records the inspector key as the worker of an in-process audit.
    const workers = {
      byResult: report.results.map(() => keyId(key.publicKey)),
      keys: [key.publicKey],
      reverified: [],
    };
    return await signVerdict(report, {
      keys: [key],
      time: TIME,
      store,
      engine: w.engine,
      workers,
    });
  } finally {
    w.close();
  }
}

Deno.test("signVerdict() writes the bytes of the audit command's attestation for a fixed key and time", async () => {
  const cli = await auditLog({
    log: f.log,
    randomness: audit.randomness,
    round: String(audit.round),
    k: String(audit.k),
    keys: [`${f.dir}/fixed.key`],
    out: `${f.dir}/cli`,
    threads: "1",
    progress: false,
    time: TIME,
  });
  const lib = await libraryAudit();
  assert.equal(cli.report.verdict, "FAILED");
  assert.equal(lib.text, await Deno.readTextFile(cli.attestation));
  assert.equal(lib.statement.predicate?.timeVerified, TIME);
  assert.equal((await libraryAudit()).text, lib.text, "deterministic");
  const trustRoot = parseTrustRoot(
    JSON.stringify(buildTrustRoot([key.publicKey], { start: "2026-01-01T00:00:00Z" })),
  );
  const log = parseClaimLog(await Deno.readTextFile(f.log));
  const checked = await checkAttestation(parseEnvelope(lib.text), { trustRoot, log });
  assert.ok(checked.valid, JSON.stringify(checked.checks));
  assert.equal(checked.verdict, "FAILED");
});
