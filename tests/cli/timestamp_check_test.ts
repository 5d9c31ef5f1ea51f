/**
 * `check --timestamp`: RFC 3161 tokens from a local `openssl ts` TSA over the attestation's
 * signature; keys are judged at the token's time, which defeats a revoked key's backdating.
 */
import assert from "node:assert/strict";
import { buildTrustRoot, decodeBase64, decodePublicKeyPem } from "../../src/attest/mod.ts";
import { auditLog } from "../../src/cli/commands/audit.ts";
import { checkAttestationFile, checkFile } from "../../src/cli/commands/check.ts";
import { localTsa } from "../attest/timestamp/_openssl_tsa.ts";
import { makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** Everything the tests share, built once. */
async function setup() {
  const f = await makeAuditFixture({ records: 6, falsify: [] });
  const tsa = await localTsa();
  const pub = decodePublicKeyPem(await Deno.readTextFile(f.pub));
  let n = 0;
  const audit = async (time?: string) => {
    const r = await auditLog({
      log: f.log,
      randomness: "ab".repeat(32),
      round: "7",
      k: "2",
      keys: [f.key],
      out: `${f.dir}/ts-audit-${n++}`,
      progress: false,
      threads: "1",
      ...(time === undefined ? {} : { time }),
    });
    const env = JSON.parse(await Deno.readTextFile(r.attestation));
    return { path: r.attestation, sig: decodeBase64(env.signatures[0].sig) };
  };
  const root = async (name: string, o: { revokedAt?: number; tsa?: boolean } = {}) => {
    const doc = buildTrustRoot([pub], {
      start: "2026-01-01T00:00:00Z",
      ...(o.tsa === false ? {} : { tsa: [{ certificate: tsa.caDer, name: "local" }] }),
    });
    if (o.revokedAt !== undefined) {
      (doc.keys[0] as Record<string, unknown>).revoked = {
        time: iso(o.revokedAt),
        reason: "stolen",
      };
    }
    const path = `${f.dir}/${name}.json`;
    await Deno.writeTextFile(path, JSON.stringify(doc));
    return path;
  };
  const token = async (bytes: Uint8Array, name: string, expired = false) => {
    const path = `${f.dir}/${name}.tsr`;
    await Deno.writeFile(path, await tsa.stamp(bytes, { expired }));
    return path;
  };
  return { f, audit, root, token };
}
const ctx = await setup();

Deno.test({
  name: "check --timestamp accepts a token over the signature and judges keys at its time",
  fn: async () => {
    const { audit, root, token } = ctx;
    const a = await audit();
    const r = await checkFile({
      attestation: a.path,
      trustRoot: await root("tsa"),
      timestamp: await token(a.sig, "ok"),
    });
    assert.equal(r.valid, true, JSON.stringify(r.checks));
    const detail = r.checks.find((c) => c.check === "timestamp")!.detail;
    assert.match(detail, /signature 0 existed at /);
    // The token's time is on the report as a field (the checker page shows it beside the
    // stated time), the one the check's line names.
    assert.ok(r.tokenTime !== undefined && detail.endsWith(`existed at ${r.tokenTime}`));
    // The same through the CLI.
    const cli = await runBitaudit([
      "check",
      a.path,
      "--trust-root",
      await root("tsa-cli"),
      "--timestamp",
      await token(a.sig, "ok-cli"),
    ]);
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
    assert.match(cli.stdout, /^ok {3}timestamp: RFC 3161 token/m);
  },
});

Deno.test({
  name: "check --timestamp fails a token for another message, an expired TSA and an unpinned TSA",
  fn: async () => {
    const { audit, root, token } = ctx;
    const a = await audit();
    const other = a.sig.slice();
    other[0] = (other[0] as number) ^ 1;
    const fail = async (rootPath: string, tokenPath: string, why: RegExp) => {
      const r = await checkFile({ attestation: a.path, trustRoot: rootPath, timestamp: tokenPath });
      assert.equal(r.valid, false);
      assert.match(r.checks.find((c) => c.check === "timestamp")!.detail, why);
    };
    const tsaRoot = await root("tsa-2");
    await fail(tsaRoot, await token(other, "other"), /another message/);
    await fail(tsaRoot, await token(a.sig, "expired", true), /expired|not valid at the token/);
    await fail(await root("no-tsa", { tsa: false }), await token(a.sig, "ok-2"), /lists no TSA/);
  },
});

Deno.test({
  name: "a revoked key backdating its signature fails with and without a token (issue 19)",
  fn: async () => {
    const { audit, root, token } = ctx;
    // The key was revoked an hour ago; its thief signs now but writes a time before revocation.
    const revoked = await root("revoked-past", { revokedAt: Date.now() - 3600_000 });
    const backdated = await audit("2026-06-01T00:00:00Z");
    // Without a token the key must also be unrevoked at verification time, so the stated time
    // cannot clear it.
    const plain = await checkFile({ attestation: backdated.path, trustRoot: revoked });
    assert.equal(plain.valid, false);
    assert.match(
      plain.checks.find((c) => c.check === "signatures")?.detail ?? "",
      /is revoked.* at the verification time/,
    );
    const stamped = await checkFile({
      attestation: backdated.path,
      trustRoot: revoked,
      timestamp: await token(backdated.sig, "backdated"),
    });
    assert.equal(stamped.valid, false);
    assert.equal(stamped.checks.find((c) => c.check === "signatures")?.ok, false);
    // Its hint names the token's time the key was judged at, never a missing token.
    const { hints } = await checkAttestationFile({
      attestation: backdated.path,
      trustRoot: revoked,
      timestamp: await token(backdated.sig, "backdated-hint"),
    });
    assert.equal(hints.length, 1, hints.join("\n"));
    assert.match(hints[0]!, /statement says it was signed at 2026-06-01T00:00:00Z/);
    assert.match(
      hints[0]!,
      /token given to `check --timestamp` dates the signature at .*, outside/,
    );
    assert.doesNotMatch(hints[0]!, /only with an RFC 3161 token/);
    // Timestamped before the revocation (revoked an hour from now): still valid afterwards.
    const a = await audit();
    const later = await root("revoked-future", { revokedAt: Date.now() + 3600_000 });
    const before = await checkFile({
      attestation: a.path,
      trustRoot: later,
      timestamp: await token(a.sig, "before"),
    });
    assert.equal(before.valid, true, JSON.stringify(before.checks));
  },
});
