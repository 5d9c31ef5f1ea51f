/**
 * The real files the published schemas describe, made the way users make them: the demo
 * scenario through the prover (every workload kind, serving histories in blobs/), and an
 * announced, sharded audit of a small log (trust root, checkpoint, announcement, `audit plan`,
 * `audit work` signing with a worker key, `audit merge` re-verifying one result).
 */
import assert from "node:assert/strict";
import { buildTrustRoot, decodeBase64, decodePublicKeyPem } from "../../src/attest/mod.ts";
import { announceAudit } from "../../src/cli/commands/announce.ts";
import { runProver } from "../../src/cli/commands/claims.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { makeAuditFixture } from "../cli/_audit_fixture.ts";
import { tempDir } from "../_temp.ts";
import { runBitaudit } from "../cli/_run.ts";

const DEMO = new URL("../../demo/", import.meta.url).pathname;
const BEACON = `${DEMO}drand/quicknet-round-123.json`;
const CHAIN = `${DEMO}drand/quicknet-info.json`;
const QUICKNET = "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971";

/** Paths and parsed contents of the files. */
export interface DemoFiles {
  /** The demo scenario's claims.jsonl (all workload kinds). */
  readonly claimLog: string;
  /** Its records' lines. */
  readonly claimLines: readonly string[];
  /** The serving-history blobs its sequence records commit to, as text. */
  readonly histories: readonly string[];
  /** Trust roots: the audit fixture's (inspector only) and a full one (prover, drand). */
  readonly trustRoots: readonly string[];
  /** plan.json of the announced audit. */
  readonly plan: string;
  /** Worker-signed result lines (`audit work`). */
  readonly signedResults: readonly string[];
  /** attestation.dsse.json of `audit merge`, as text. */
  readonly attestation: string;
  /** The announcement envelope (`announce`), as text. */
  readonly announcement: string;
}

/**
 * Makes the files in a temporary folder (removed when the test module ends).
 *
 * @returns their paths and contents
 */
export async function makeDemoFiles(): Promise<DemoFiles> {
  const dir = await tempDir({ prefix: "bitaudit-schemas-" });
  await runProver(`${DEMO}scenario.json`, { out: `${dir}/demo`, progress: false, threads: 2 });
  const claimLines = (await Deno.readTextFile(`${dir}/demo/claims.jsonl`)).trimEnd().split("\n");
  const histories = await Promise.all(
    claimLines.map((l) => JSON.parse(l).predicate.workload)
      .filter((w) => w.kind === "sequence")
      .map((w) => Deno.readTextFile(`${dir}/demo/blobs/${w.history.sha256}`)),
  );
  const audit = await _announcedAudit();
  return {
    claimLog: `${dir}/demo/claims.jsonl`,
    claimLines,
    histories,
    ...audit,
  };
}

async function _announcedAudit() {
  const f = await makeAuditFixture({
    records: 6,
    falsify: [{ seq: 2, kind: "fingerprint", bit: 3 }],
  });
  const prover = await generateKeys(`${f.dir}/prover`);
  const cli = async (args: string[], code = 0) => {
    const r = await runBitaudit(args);
    assert.equal(r.code, code, r.stderr);
  };
  const cp = `${f.dir}/checkpoint.txt`;
  await cli(["claims", "checkpoint", "--log", f.log, "--key", prover.privateKey, "--origin"]
    .concat(["bitaudit.example/prover-1/log", "--out", cp, "--time", "2023-08-23T15:00:00Z"]));
  const fullRoot = `${f.dir}/trust-root-full.json`;
  const pub = (path: string) => Deno.readTextFile(path).then(decodePublicKeyPem);
  await Deno.writeTextFile(
    fullRoot,
    JSON.stringify(buildTrustRoot([await pub(f.pub)], {
      start: "2023-01-01T00:00:00Z",
      end: "2030-01-01T00:00:00Z",
      // The prover key pinned to its log's origin, so that the schema meets an `origin`.
      provers: {
        keys: [await pub(prover.publicKey)],
        start: "2023-01-01T00:00:00Z",
        origin: "bitaudit.example/prover-1/log",
      },
      drand: [{ chainHash: QUICKNET, beaconId: "quicknet" }],
    })),
  );
  const announcement = `${f.dir}/announcement.dsse.json`;
  await announceAudit({
    checkpoint: cp,
    proverPub: prover.publicKey,
    chain: CHAIN,
    round: "123",
    k: "6",
    keys: [f.key],
    out: announcement,
    time: "2023-08-23T15:15:10Z",
  });
  const plan = f.log.replace(/claims\.jsonl$/, "plan.json");
  await cli([
    ...["audit", "plan", "--log", f.log, "--beacon", BEACON, "--chain", CHAIN],
    ...["--checkpoint", cp, "--prover-pub", prover.publicKey, "--announcement", announcement],
    ...["--key", f.key, "--k", "6", "--out", plan],
  ]);
  const results = `${f.dir}/results.jsonl`;
  await cli(["audit", "work", "--key", f.worker.key, "--plan", plan, "--shard", "0/1"]
    .concat(["--out", results, "--threads", "1"]));
  await cli([
    ...["audit", "merge", "--plan", plan, results, "--key", f.key],
    ...["--worker-pub", f.worker.pub, "--out", `${f.dir}/merged`],
    ...["--time", "2026-06-01T12:00:00Z", "--reverify", "1", "--threads", "1"],
  ], 1); // FAILED: record 2 is falsified
  return {
    trustRoots: [await Deno.readTextFile(f.trustRoot), await Deno.readTextFile(fullRoot)],
    plan: await Deno.readTextFile(plan),
    signedResults: (await Deno.readTextFile(results)).trimEnd().split("\n"),
    attestation: await Deno.readTextFile(`${f.dir}/merged/attestation.dsse.json`),
    announcement: await Deno.readTextFile(announcement),
  };
}

/**
 * The payload of a DSSE envelope, parsed as JSON.
 *
 * @param envelope the envelope (text or parsed)
 */
export function payloadJson(envelope: string | { payload: string }): Record<string, unknown> {
  const env = typeof envelope === "string" ? JSON.parse(envelope) : envelope;
  return JSON.parse(new TextDecoder().decode(decodeBase64(env.payload)));
}
