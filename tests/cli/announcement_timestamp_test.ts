/**
 * An announcement timestamped by an RFC 3161 TSA (`openssl ts`, local) before its round: the TSA's
 * time replaces the inspector's. The round must lie in the future at announcement time, so these
 * tests use a drand-format chain of their own (BLS key made here, rounds signed here with the
 * quicknet scheme) pinned in the trust root; the verification path is the one real rounds take.
 */
import assert from "node:assert/strict";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { buildTrustRoot, drandChainHash, type DrandChainInfo } from "../../src/attest/mod.ts";
import { announceAudit } from "../../src/cli/commands/announce.ts";
import { checkFile } from "../../src/cli/commands/check.ts";
import { bytesToHex } from "../../src/claims/mod.ts";
import { InputError } from "../../src/errors.ts";
import { localTsa } from "../attest/timestamp/_openssl_tsa.ts";
import { audit, checkpoint, f, inspectorPub, prover, proverPub } from "./_trust_fixture.ts";

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const DST = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_";
const bls = bls12_381.shortSignatures;
const secret = bls12_381.utils.randomSecretKey();
const now = Math.floor(Date.now() / 1000);
const GENESIS = now - 10 * 86_400;
const info: DrandChainInfo = (() => {
  const base = {
    publicKey: bytesToHex(bls.getPublicKey(secret).toBytes()),
    period: 3,
    genesisTime: GENESIS,
    groupHash: bytesToHex(crypto.getRandomValues(new Uint8Array(32))),
    schemeId: "bls-unchained-g1-rfc9380",
    beaconId: "bitaudit-test",
    hash: "",
  };
  return { ...base, hash: drandChainHash(base) };
})();
const chainFile = `${f.dir}/test-chain.json`;
await Deno.writeTextFile(
  chainFile,
  JSON.stringify({
    public_key: info.publicKey,
    period: info.period,
    genesis_time: info.genesisTime,
    hash: info.hash,
    groupHash: info.groupHash,
    schemeID: info.schemeId,
    metadata: { beaconID: info.beaconId },
  }),
);
/** Signs round `r` of the test chain (quicknet scheme) and writes it. */
async function roundFile(r: number): Promise<string> {
  const msg = new Uint8Array(8);
  new DataView(msg.buffer).setBigUint64(0, BigInt(r));
  const sig = bls.sign(bls.hash(sha256(msg), DST), secret).toBytes();
  const path = `${f.dir}/test-round-${r}.json`;
  await Deno.writeTextFile(path, JSON.stringify({ round: r, signature: bytesToHex(sig) }));
  return path;
}
const roundAt = (t: number) => Math.ceil((t - GENESIS) / 3) + 1;

async function scenario(
  o: { announceAt: number; round: number; name: string; stamped?: (sig: Uint8Array) => Uint8Array },
) {
  const tsa = await localTsa();
  const cp = await checkpoint(`cp-${o.name}`, { time: iso((o.announceAt - 60) * 1000) });
  const annPath = `${f.dir}/${o.name}.announcement.json`;
  await announceAudit({
    checkpoint: cp,
    proverPub: prover.publicKey,
    chain: chainFile,
    round: String(o.round),
    k: "3",
    keys: [f.key],
    out: annPath,
    time: iso(o.announceAt * 1000),
  });
  const env = JSON.parse(await Deno.readTextFile(annPath));
  const sig = Uint8Array.from(atob(env.signatures[0].sig), (c) => c.charCodeAt(0));
  const stamp = `${f.dir}/${o.name}.tsr`;
  await Deno.writeFile(stamp, await tsa.stamp(o.stamped?.(sig) ?? sig));
  const r = await audit({
    beacon: await roundFile(o.round),
    chain: chainFile,
    checkpoint: cp,
    proverPub: prover.publicKey,
    announcement: annPath,
    announcementTimestamp: stamp,
  });
  const root = `${f.dir}/${o.name}.root.json`;
  await Deno.writeTextFile(
    root,
    JSON.stringify(buildTrustRoot([inspectorPub], {
      start: "2026-01-01T00:00:00Z",
      provers: { keys: [proverPub], start: "2026-01-01T00:00:00Z" },
      drand: [{ chainHash: info.hash, beaconId: info.beaconId }],
      tsa: [{ certificate: tsa.caDer, name: "local" }],
    })),
  );
  return { audited: r, report: await checkFile({ attestation: r.attestation, trustRoot: root }) };
}

Deno.test({
  name: "an announcement timestamped before its round is checked at the TSA's time",
  fn: async () => {
    // The round a minute after the TSA's time, the verdict signed now: within the clock skew a
    // verdict may precede its round by (a verdict dated an hour before its round is refused).
    const { report } = await scenario({
      announceAt: now,
      round: roundAt(now + 60),
      name: "future",
    });
    assert.equal(report.valid, true, JSON.stringify(report.checks.filter((c) => !c.ok)));
    assert.equal(report.trust?.announcement, "timestamped");
    assert.match(
      report.checks.find((c) => c.check === "announcement")!.detail,
      /RFC 3161 timestamp/,
    );
  },
});

Deno.test({
  name: "the audit's reports state a timestamped announcement as unchecked against a pinned TSA",
  fn: async () => {
    // The audit has no trust root: it reads the token's time with any authority's signature, so
    // its reports cannot say the authority vouches for the order (check --trust-root does).
    const { audited } = await scenario({
      announceAt: now,
      round: roundAt(now + 60),
      name: "reports",
    });
    const md = await Deno.readTextFile(audited.reportPath);
    const announced = md.split("\n").find((l) => l.startsWith("- announced: "))!;
    assert.doesNotMatch(announced, /signed before the round/);
    assert.match(announced, /did not check the time-stamp authority against a pinned one/);
    const html = await Deno.readTextFile(audited.htmlPath);
    assert.doesNotMatch(html, /vouches for the order/);
    assert.match(html, /did not check against a pinned one/);
  },
});

Deno.test({
  name: "an announcement backdated before a round already published fails on its timestamp",
  fn: async () => {
    // The inspector writes a time two days ago for a round published yesterday; the TSA says now.
    // The audit refuses to sign what every checker would refuse.
    await assert.rejects(
      () =>
        scenario({
          announceAt: now - 2 * 86_400,
          round: roundAt(now - 86_400),
          name: "backdated",
        }),
      (e) =>
        e instanceof InputError && e.code === "ANNOUNCEMENT_LATE" &&
        /not before round \d+/.test(e.message),
    );
  },
});

Deno.test({
  name: "an announcement timestamp over other bytes than its signatures is refused at the audit",
  fn: async () => {
    await assert.rejects(
      () =>
        scenario({
          announceAt: now,
          round: roundAt(now + 3600),
          name: "other-bytes",
          stamped: (sig) => sig.map((b) => b ^ 1),
        }),
      (e) => e instanceof InputError && e.code === "ANNOUNCEMENT_MISMATCH",
    );
  },
});
