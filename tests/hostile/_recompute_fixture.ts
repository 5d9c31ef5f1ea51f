/**
 * Shared pieces of the recompute-path attacks (issue 25): honest records made by the simulated
 * prover on the bundled tiny checkpoints, blobs in memory with a `commit` that re-commits a
 * changed blob (history, config, weights) under its new digest, synthetic checkpoints of any
 * config, and `verifyAlone`, which puts one predicate in a log of its own and verifies it
 * in-process.
 */
import { type BlobStore, openAssetStore } from "../../src/assets/mod.ts";
import {
  type ClaimLog,
  type ClaimPredicate,
  formatClaimLog,
  GENESIS_PREV,
  makeClaimRecord,
  type ModelRef,
  parseClaimLog,
  recordDigest,
  sha256Hex,
} from "../../src/claims/mod.ts";
import { flashAttentionForward } from "../../src/kernels/mod.ts";
import { digestOfFiles, parseDecoderConfig, synthDecoderCheckpoint } from "../../src/model/mod.ts";
import { makeClaims, parseScenario, type ProverOutput } from "../../src/prover/mod.ts";
import { type RecordResult, verifyRecord } from "../../src/verify/mod.ts";
import { ENGINE, engineWalker } from "../model/forward/_forward_fixture.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";

/** The asset store (profiles, stacks, catalogs). */
export const store = await openAssetStore();

/** FA2 on the calling thread with the engine's K-walk (the bits of every runner). */
export const attention: typeof flashAttentionForward = (i, o) =>
  flashAttentionForward(i, { ...o, kWalk: ENGINE.kWalkAuto });

/** Blobs by digest. */
export type Blobs = Map<string, Uint8Array>;

/**
 * A blob store over a map (reads are digest-checked, as the CLI's).
 *
 * @param blobs the blobs
 */
export function memoryStore(blobs: ReadonlyMap<string, Uint8Array>): BlobStore {
  return {
    dir: "memory",
    get: (d) => {
      const b = blobs.get(d);
      return Promise.resolve(b === undefined ? null : b.slice());
    },
  };
}

/**
 * Commits bytes: stores them under their SHA-256.
 *
 * @param blobs where
 * @param bytes what
 * @returns the digest
 */
export function commit(blobs: Blobs, bytes: Uint8Array): string {
  const d = sha256Hex(bytes);
  blobs.set(d, bytes);
  return d;
}

/**
 * A log of the given predicates, in order, each chained to the one before.
 *
 * @param predicates the records' predicates (their `log` field is replaced)
 * @param logId the log's id
 */
export function chainLog(predicates: readonly ClaimPredicate[], logId = "hostile"): ClaimLog {
  let prev = GENESIS_PREV;
  const records = predicates.map((p, seq) => {
    const r = makeClaimRecord({ ...p, log: { logId, seq, prev } });
    prev = recordDigest(r);
    return r;
  });
  return parseClaimLog(formatClaimLog(records));
}

/**
 * Verifies one predicate alone (a log of one record) against the blobs.
 *
 * @param predicate the record's predicate
 * @param blobs the blobs the prover produced
 */
export async function verifyAlone(
  predicate: ClaimPredicate,
  blobs: ReadonlyMap<string, Uint8Array>,
): Promise<RecordResult> {
  return await verifyRecord(
    { store, blobs: memoryStore(blobs), walker: engineWalker, attention },
    { log: chainLog([predicate]), index: 0 },
  );
}

/**
 * Runs the simulated prover on a scenario.
 *
 * @param scenario the scenario document
 */
export async function proverRun(scenario: unknown): Promise<ProverOutput> {
  return await makeClaims(parseScenario(scenario), { store, walker: engineWalker, attention });
}

/**
 * A scenario of model-forward records on both bundled checkpoints (odd records dense, even MoE),
 * batches of one or two sequences of 3, 6 or 10 tokens (pad token 0), with layer chains.
 *
 * @param falsify falsifications (scenario syntax)
 * @param records model-forward records
 */
export function forwardScenario(falsify: unknown[], records = 4): unknown {
  return oneGemmScenario({ logId: "recompute-paths", seed: "recompute-paths-v1" }, {
    forward: {
      stack: "hf-qwen3-flash-attn-torch2.8",
      components: { pytorch: "2.8.0" },
      catalog: "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints: ["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-moe"],
      records,
      batchSizes: [1, 2],
      lengths: [3, 6, 10],
      padTokenId: 0,
      layerChain: true,
    },
    falsify,
  });
}

/** The bundled dense checkpoint's `config.json`, parsed. */
export const DENSE_CONFIG: Record<string, unknown> = JSON.parse(
  await Deno.readTextFile(
    new URL("../../tables/models/qwen3-tiny-dense/config.json", import.meta.url),
  ),
);

/** The bundled MoE checkpoint's `config.json`, parsed. */
export const MOE_CONFIG: Record<string, unknown> = JSON.parse(
  await Deno.readTextFile(
    new URL("../../tables/models/qwen3-tiny-moe/config.json", import.meta.url),
  ),
);

/**
 * A synthetic checkpoint of a config, committed: `config.json` (the config's JSON text) and the
 * weight files, and the model reference a record names it by.
 *
 * @param config the config document
 * @param o seed, shard count and the blobs to commit into
 * @returns the model reference
 * @throws whatever `parseDecoderConfig` throws for a config it refuses
 */
export function synthModel(
  config: Record<string, unknown>,
  o: { readonly seed: string; readonly shards: number; readonly blobs: Blobs },
): ModelRef {
  const parsed = parseDecoderConfig(config);
  const files: Record<string, string> = {};
  for (const f of synthDecoderCheckpoint(parsed, { seed: o.seed, shards: o.shards })) {
    if (f.name.endsWith(".json")) continue; // the index: a claim locates tensors by the files
    const made = f.bytes();
    const bytes = made instanceof Uint8Array ? made : new Uint8Array(made.byteLength);
    if (!(made instanceof Uint8Array)) {
      let at = 0;
      for (const chunk of made) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
    }
    files[f.name] = commit(o.blobs, bytes);
  }
  const configSha256 = commit(o.blobs, new TextEncoder().encode(JSON.stringify(config)));
  return {
    type: parsed.modelType as ModelRef["type"],
    checkpointSha256: digestOfFiles(files),
    configSha256,
    files,
  };
}

/**
 * One honest dense `model_forward` record of the simulated prover (record 1 of
 * `forwardScenario([], 1)`), its blobs, and its single weight file's digest.
 */
export async function honestDenseForward(): Promise<{
  forward: ProverOutput;
  honest: ClaimPredicate;
  digest: string;
}> {
  const forward = await proverRun(forwardScenario([], 1));
  const honest = forward.records[1]!.predicate;
  const files = (honest.workload as { model: ModelRef }).model.files;
  const [[, digest]] = Object.entries(files) as [[string, string]];
  return { forward, honest, digest };
}

/**
 * One falsified dense `model_forward` record of the simulated prover (record 1 of
 * `forwardScenario`, its fingerprint's bit 3 flipped), its blobs, and its single weight file's
 * digest: the record an audit must FAIL, as `honestDenseForward()`'s is the one it must PASS.
 */
export async function falsifiedDenseForward(): Promise<{
  forward: ProverOutput;
  falsified: ClaimPredicate;
  digest: string;
}> {
  const forward = await proverRun(forwardScenario([{ seq: 1, kind: "fingerprint", bit: 3 }], 1));
  const falsified = forward.records[1]!.predicate;
  const files = (falsified.workload as { model: ModelRef }).model.files;
  const [[, digest]] = Object.entries(files) as [[string, string]];
  return { forward, falsified, digest };
}

/**
 * The record with another fingerprint digest (its first hex digit changed): what a prover claims
 * for an output it did not compute, which an audit must FAIL wherever it recomputes the record.
 *
 * @param p the record's predicate
 * @returns the falsified predicate
 */
export function flipFingerprint(p: ClaimPredicate): ClaimPredicate {
  const sha256 = (p.fingerprint.sha256.startsWith("0") ? "1" : "0") + p.fingerprint.sha256.slice(1);
  return { ...p, fingerprint: { ...p.fingerprint, sha256 } };
}

/** A record and its falsified twin (fingerprint flipped), each named. */
export function honestAndFalsified(p: ClaimPredicate): [string, ClaimPredicate][] {
  return [["honest", p], ["falsified", flipFingerprint(p)]];
}
