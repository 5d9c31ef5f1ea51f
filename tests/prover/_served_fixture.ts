/**
 * Served sequences to build `sequence` records from: the simulated prover's continuous-batching
 * engine serves two seeded requests on the bundled dense Qwen3 checkpoint (a prefill beside a
 * neighbour, then decode steps), and each of its records gives the facts a real prover keeps:
 * the history blob, the prompt and generated tokens, the fingerprint and the layer chain.
 *
 * @module
 */
import {
  type ClaimRecord,
  isSequenceWorkload,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";

/** The continuous-batching stack the engine runs (it accepts the model-only MUFU.LG2). */
export const SERVING_STACK = "hf-qwen3-continuous-batching-torch2.8-lg2-model";
/** The dispatch catalog of the tiny checkpoints on an A100. */
export const SERVING_CATALOG = "demo-qwen3-tiny-a100";
/** The bundled checkpoint the engine serves. */
export const SERVED_CHECKPOINT = "tables/models/qwen3-tiny-dense";

/** A scenario with one GEMM record and two served requests on the dense tiny checkpoint. */
export function servedScenario(): unknown {
  return oneGemmScenario({ logId: "served-sequences", seed: "served-sequences-v1" }, {
    serving: {
      stack: SERVING_STACK,
      components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
      catalog: SERVING_CATALOG,
      multiProcessorCount: 108,
      checkpoints: [SERVED_CHECKPOINT],
      requests: 2,
      arrivalSteps: 2,
      promptLengths: [3, 6],
      generate: [2, 3],
      tokenBudget: 16,
      maxChunk: 4,
      layerChain: true,
    },
    falsify: [],
  });
}

/** What a prover kept of one served sequence. */
export interface ServedFacts {
  /** The simulated prover's record of it. */
  readonly record: ClaimRecord;
  /** Its serving-history blob. */
  readonly history: Uint8Array;
  /** Its prompt and generated tokens. */
  readonly tokens: { readonly prompt: readonly number[]; readonly generated: readonly number[] };
  /** SHA-256 of its final-norm row at the last computed position. */
  readonly fingerprint: string;
  /** Its per-layer chain. */
  readonly layerChain: readonly { readonly attention: string; readonly mlp: string }[];
}

/**
 * The facts of each sequence record of a prover's log.
 *
 * @param records the log's records
 * @param blob reads a blob by digest
 */
export async function servedFacts(
  records: readonly ClaimRecord[],
  blob: (sha256: string) => Promise<Uint8Array>,
): Promise<ServedFacts[]> {
  const out: ServedFacts[] = [];
  for (const record of records) {
    const w = record.predicate.workload;
    if (!isSequenceWorkload(w)) continue;
    const s: SequenceWorkload = w;
    out.push({
      record,
      history: await blob(s.history.sha256),
      tokens: s.tokens,
      fingerprint: record.predicate.fingerprint.sha256,
      layerChain: s.layerChain ?? [],
    });
  }
  return out;
}
