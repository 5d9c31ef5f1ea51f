/**
 * Builds a small claim log, an inspector key and a trust root in a temporary folder, removed when
 * the test module ends (shared by the verifier CLI tests).
 */
import { runProver } from "../../src/cli/commands/claims.ts";
import { generateKeys } from "../../src/cli/commands/key.ts";
import { buildTrustRoot, decodePublicKeyPem } from "../../src/attest/mod.ts";
import { tempDir } from "../_temp.ts";

const SCENARIO = new URL("../../demo/scenario.json", import.meta.url);

/** Paths of a fixture. */
export interface AuditFixture {
  dir: string;
  log: string;
  key: string;
  pub: string;
  trustRoot: string;
  keyid: string;
  /** A worker's key pair (`audit work --key`, `audit merge --worker-pub`). */
  worker: { key: string; pub: string; keyid: string };
}

/**
 * Writes a fixture in a temporary folder removed when the test module ends: `records` GEMM
 * claims from the demo scenario with the given falsifications.
 *
 * @param options record count and falsifications (demo scenario syntax); `blocks` and `forward`
 *   add that many block and model-forward records (the demo's, tiny Qwen3 checkpoints) after them
 */
export async function makeAuditFixture(
  options: {
    records: number;
    falsify: unknown[];
    blocks?: number;
    blockTokens?: number[];
    forward?: number;
  },
): Promise<AuditFixture> {
  const dir = await tempDir({ prefix: "bitaudit-audit-" });
  const scenario = JSON.parse(await Deno.readTextFile(SCENARIO));
  scenario.records = options.records;
  scenario.falsify = options.falsify;
  if (options.blocks === undefined) delete scenario.blocks; // GEMM records only
  else scenario.blocks.records = options.blocks;
  if (options.forward === undefined) delete scenario.forward; // GEMM and block records only
  else scenario.forward.records = options.forward;
  delete scenario.serving; // sequence records have their own fixture (tests/verify/_serving_fixture.ts)
  if (options.blockTokens !== undefined) scenario.blocks.tokens = options.blockTokens;
  await Deno.writeTextFile(`${dir}/scenario.json`, JSON.stringify(scenario));
  await runProver(`${dir}/scenario.json`, { out: `${dir}/log`, progress: false, threads: 1 });
  const keys = await generateKeys(`${dir}/inspector`);
  const worker = await generateKeys(`${dir}/worker`);
  const pub = decodePublicKeyPem(await Deno.readTextFile(keys.publicKey));
  const trustRoot = `${dir}/trust-root.json`;
  const doc = buildTrustRoot([pub], { start: "2026-01-01T00:00:00Z" });
  await Deno.writeTextFile(trustRoot, JSON.stringify(doc));
  return {
    dir,
    log: `${dir}/log/claims.jsonl`,
    key: keys.privateKey,
    pub: keys.publicKey,
    trustRoot,
    keyid: keys.keyid,
    worker: { key: worker.privateKey, pub: worker.publicKey, keyid: worker.keyid },
  };
}

/** Standard audit arguments for a fixture. */
export function auditArgs(f: AuditFixture, out: string, k: number): string[] {
  return [
    "audit",
    "--log",
    f.log,
    "--randomness",
    "ab".repeat(32),
    "--round",
    "7",
    "--k",
    String(k),
    "--key",
    f.key,
    "--out",
    out,
  ];
}

/**
 * `audit merge` arguments for a fixture: the results, the plan, the fixture's inspector key, its
 * worker's public key and the output folder (more options go after them).
 *
 * @param f the fixture
 * @param o the results file, the plan's path and the output folder
 * @returns the arguments
 */
export function mergeArgs(
  f: AuditFixture,
  o: { readonly results: string; readonly plan: string; readonly out: string },
): string[] {
  return [
    ...["audit", "merge", o.results, "--plan", o.plan],
    ...["--key", f.key, "--worker-pub", f.worker.pub, "--out", o.out],
  ];
}
