/**
 * A claim log with a prover key, a signed checkpoint dated before quicknet round 123 and trust
 * roots, plus in-process audit helpers (shared by the beacon, checkpoint and announcement tests).
 */
import assert from "node:assert/strict";
import {
  buildTrustRoot,
  decodeBase64,
  decodePrivateKeyPem,
  decodePublicKeyPem,
  formatSignedNote,
  IN_TOTO_PAYLOAD_TYPE,
  NOTE_COSIGNATURE_ED25519,
  noteKeyId,
  parseSignedNote,
  sign,
  signEnvelope,
} from "../../src/attest/mod.ts";
import { canonicalJson } from "../../src/claims/mod.ts";
import { auditLog } from "../../src/cli/commands/audit.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { type InputCode, InputError, type UsageCode, UsageError } from "../../src/errors.ts";
import { makeAuditFixture } from "./_audit_fixture.ts";
import { runBitaudit } from "./_run.ts";

export const DRAND = new URL("../../demo/drand/", import.meta.url).pathname;
export const BEACON = `${DRAND}quicknet-round-123.json`;
export const CHAIN = `${DRAND}quicknet-info.json`;
export const QUICKNET = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971";
export const ORIGIN = "bitaudit.example/prover-1/log";

export const f = await makeAuditFixture({ records: 6, falsify: [] });
export const prover = await generateKeys(`${f.dir}/prover`);
export const stranger = await generateKeys(`${f.dir}/stranger`);
export const proverPub = decodePublicKeyPem(await Deno.readTextFile(prover.publicKey));
export const inspectorPub = decodePublicKeyPem(await Deno.readTextFile(f.pub));

/** Signs a checkpoint of `log` with `key` at `time` through the CLI. */
export async function checkpoint(
  name: string,
  o: { log?: string; key?: string; time?: string } = {},
) {
  const out = `${f.dir}/${name}.txt`;
  const r = await runBitaudit([
    "claims",
    "checkpoint",
    "--log",
    o.log ?? f.log,
    "--key",
    o.key ?? prover.privateKey,
    "--origin",
    ORIGIN,
    "--out",
    out,
    "--time",
    o.time ?? "2023-08-23T15:00:00Z",
  ]);
  assert.equal(r.code, 0, r.stderr);
  return out;
}
export const goodCheckpoint = await checkpoint("cp");

/**
 * Writes the good checkpoint with its cosignature replaced by one the prover key makes over a
 * time `t` (POSIX seconds) that `claims checkpoint` would refuse to write: what a hostile prover
 * can hand over.
 */
export async function checkpointCosignedAt(name: string, t: number): Promise<string> {
  const signed = parseSignedNote(await Deno.readTextFile(goodCheckpoint));
  const origin = signed.signatures[0]!.name;
  const privateKey = decodePrivateKeyPem(await Deno.readTextFile(prover.privateKey));
  const sig = await sign(
    new TextEncoder().encode(`cosignature/v1\ntime ${t}\n${signed.text}`),
    privateKey,
  );
  const co = new Uint8Array(72);
  new DataView(co.buffer).setBigUint64(0, BigInt(t));
  co.set(sig, 8);
  const keyId = noteKeyId(origin, { type: NOTE_COSIGNATURE_ED25519, publicKey: proverPub });
  const out = `${f.dir}/${name}.txt`;
  await Deno.writeTextFile(
    out,
    formatSignedNote({
      text: signed.text,
      signatures: [signed.signatures[0]!, { name: origin, keyId, signature: co }],
    }),
  );
  return out;
}

/** Writes a trust root; by default with the prover key from 2023 and quicknet pinned. */
export async function trustRoot(
  name: string,
  o: { proverFrom?: string; inspectorFrom?: string; pin?: boolean } = {},
) {
  const path = `${f.dir}/${name}.json`;
  const doc = buildTrustRoot([inspectorPub], {
    start: o.inspectorFrom ?? "2026-01-01T00:00:00Z",
    provers: { keys: [proverPub], start: o.proverFrom ?? "2023-01-01T00:00:00Z" },
    drand: o.pin === false ? [] : [{ chainHash: QUICKNET, beaconId: "quicknet" }],
  });
  await Deno.writeTextFile(path, JSON.stringify(doc));
  return path;
}
export const goodRoot = await trustRoot("root");

/**
 * Runs `bitaudit key trust-root` with `args`, writing `out`.
 *
 * @param args the flags before `--out` (`["--pub", f.pub, "--prover", prover.publicKey]`)
 * @param out the trust root's path
 * @returns the CLI's exit code and output
 */
export function keyTrustRoot(args: readonly string[], out: string): ReturnType<typeof runBitaudit> {
  return runBitaudit(["key", "trust-root", ...args, "--out", out]);
}

let outs = 0;
export const audit = (o: Record<string, string | undefined>) =>
  auditLog(
    {
      log: f.log,
      k: "3",
      keys: [f.key],
      out: `${f.dir}/audit-${outs++}`,
      progress: false,
      threads: "1",
      ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
    } as Parameters<typeof auditLog>[0],
  );
export const beaconAudit = (o: Record<string, string | undefined> = {}) =>
  audit({
    beacon: BEACON,
    chain: CHAIN,
    checkpoint: goodCheckpoint,
    proverPub: prover.publicKey,
    ...o,
  });
export const refused = async (code: InputCode | UsageCode, run: () => Promise<unknown>) =>
  await assert.rejects(
    run,
    (e: unknown) => (e instanceof InputError || e instanceof UsageError) && e.code === code,
  );

/**
 * Re-signs an attestation's statement with the fixture's (valid) inspector key after `edit`
 * changed its `predicate.audit` (or, through its second argument, the rest of the predicate):
 * what a dishonest inspector can produce.
 *
 * @param attestation path of the original attestation
 * @param o output `name` and the `edit`
 * @returns the path of the forged attestation
 */
export async function resign<A>(
  attestation: string,
  o: { name: string; edit: (audit: A, predicate: Record<string, unknown>) => void },
): Promise<string> {
  const env = JSON.parse(await Deno.readTextFile(attestation));
  const statement = JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
  o.edit(statement.predicate.audit, statement.predicate);
  const signed = await signEnvelope(canonicalJson(statement), {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    keys: [{
      privateKey: decodePrivateKeyPem(await Deno.readTextFile(f.key)),
      publicKey: inspectorPub,
    }],
  });
  const path = `${f.dir}/${o.name}.dsse.json`;
  await Deno.writeTextFile(path, JSON.stringify(signed));
  return path;
}
