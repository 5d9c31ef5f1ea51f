/**
 * `audit --bundle` and `bundle --timestamp` write Sigstore bundles v0.3 that the stock
 * `@sigstore/verify` accepts (public-key verification material, no transparency log), with the
 * RFC 3161 timestamp of a local `openssl ts` TSA where present.
 */
import assert from "node:assert/strict";
import { bundleFromJSON } from "@sigstore/bundle";
import { toSignedEntity, toTrustMaterial, Verifier } from "@sigstore/verify";
import { decodeBase64, decodePem } from "../../src/attest/mod.ts";
import { auditLog } from "../../src/cli/commands/audit.ts";
import { HAS_OPENSSL, localTsa } from "../attest/timestamp/_openssl_tsa.ts";
import { makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

const f = await makeAuditFixture({ records: 4, falsify: [] });
const spki = decodePem(await Deno.readTextFile(f.pub), "PUBLIC KEY");
const out = `${f.dir}/bundled`;
await auditLog({
  log: f.log,
  randomness: "ab".repeat(32),
  round: "7",
  k: "2",
  keys: [f.key],
  out,
  progress: false,
  threads: "1",
  bundle: true,
});
const bundleJson = JSON.parse(await Deno.readTextFile(`${out}/attestation.sigstore.json`));

type Root = Parameters<typeof toTrustMaterial>[0];
/** Verifies with @sigstore/verify: the inspector key by hint, optional TSA, no tlog. */
function sigstoreVerify(json: unknown, o: { key?: Uint8Array; tsa?: Uint8Array[] } = {}) {
  const root = {
    certificateAuthorities: [],
    tlogs: [],
    ctlogs: [],
    timestampAuthorities: o.tsa === undefined ? [] : [{
      certChain: { certificates: o.tsa.map((rawBytes) => ({ rawBytes })) },
      validFor: { start: new Date(0) },
    }],
  } as unknown as Root;
  const hint = (json as { verificationMaterial: { publicKey: { hint: string } } })
    .verificationMaterial.publicKey.hint;
  const material = toTrustMaterial(root, { [hint]: { rawBytes: o.key ?? spki } } as never);
  const verifier = new Verifier(material, {
    tlogThreshold: 0,
    ctlogThreshold: 0,
    timestampThreshold: o.tsa === undefined ? 0 : 1,
  });
  return verifier.verify(toSignedEntity(bundleFromJSON(json)));
}

Deno.test("@sigstore/verify accepts the bundle audit --bundle writes, and refuses tampering", () => {
  assert.equal(bundleJson.mediaType, "application/vnd.dev.sigstore.bundle.v0.3+json");
  sigstoreVerify(bundleJson);
  const tampered = structuredClone(bundleJson);
  const payload = decodeBase64(tampered.dsseEnvelope.payload);
  payload[20] = (payload[20] as number) ^ 1;
  tampered.dsseEnvelope.payload = btoa(String.fromCharCode(...payload));
  assert.throws(() => sigstoreVerify(tampered), /signature verification failed/);
  const otherKey = spki.slice();
  otherKey[otherKey.length - 1] = (otherKey[otherKey.length - 1] as number) ^ 1;
  assert.throws(() => sigstoreVerify(bundleJson, { key: otherKey }));
});

Deno.test({
  name: "bundle --timestamp adds an RFC 3161 token that @sigstore/verify checks against the TSA",
  ignore: !HAS_OPENSSL,
  fn: async () => {
    const tsa = await localTsa();
    const env = JSON.parse(await Deno.readTextFile(`${out}/attestation.dsse.json`));
    const sig = decodeBase64(env.signatures[0].sig);
    await Deno.writeFile(`${f.dir}/sig.tsr`, await tsa.stamp(sig));
    const r = await runBitaudit([
      "bundle",
      `${out}/attestation.dsse.json`,
      "--timestamp",
      `${f.dir}/sig.tsr`,
      "--out",
      `${f.dir}/stamped.sigstore.json`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const stamped = JSON.parse(await Deno.readTextFile(`${f.dir}/stamped.sigstore.json`));
    assert.equal(
      stamped.verificationMaterial.timestampVerificationData.rfc3161Timestamps.length,
      1,
    );
    const leaf = decodePem(await Deno.readTextFile(`${tsa.dir}/tsa.crt`), "CERTIFICATE");
    sigstoreVerify(stamped, { tsa: [leaf, tsa.caDer] });
    // A token over another signature does not count as the one timestamp required.
    const other = sig.slice();
    other[0] = (other[0] as number) ^ 1;
    const wrong = structuredClone(stamped);
    wrong.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0].signedTimestamp =
      btoa(String.fromCharCode(...await tsa.stamp(other, { response: true })));
    assert.throws(() => sigstoreVerify(wrong, { tsa: [leaf, tsa.caDer] }));
  },
});
