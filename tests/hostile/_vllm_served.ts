/**
 * The served sequence of the vLLM hostile tests: its scenario, one request on the eager vLLM 0.11
 * stack, the tiny dense checkpoint on an A100, and its record bent to another history (shared by
 * the tests that bend its history, its settings or its parallelism).
 */
import {
  type ClaimPredicate,
  encodeServingHistory,
  type HistoryPass,
  type SequenceWorkload,
} from "../../src/claims/mod.ts";
import { oneGemmScenario } from "../verify/_serving_fixture.ts";
import { type Blobs, commit, flipFingerprint } from "./_recompute_fixture.ts";

/** The eager vLLM 0.11 stack (FA2, the model's logits in the layer chain) the request runs on. */
export const VLLM_SERVED_STACK = "vllm-0.11-eager-fa2-lg2-model";

/**
 * A one-GEMM scenario, then (after `forward`, when given) one request of `prompt` tokens that
 * generates `generate` tokens on {@link VLLM_SERVED_STACK} with the tiny dense checkpoint, arriving
 * at the first step, in passes of at most `tokenBudget` tokens whose chunks it also caps; nothing
 * falsified.
 *
 * @param ids the log's id and the prover's seed
 * @param o the prompt's length in tokens; the tokens generated (3 unless given); the token budget
 *   (2048 unless given), with `pinBudget` also stated as the stack's pinned budget
 *   (`vllmTokenBudget`); and a forward section to place first
 * @returns the scenario (prover scenario syntax)
 */
export function vllmServedScenario(
  ids: { readonly logId: string; readonly seed: string },
  o: {
    readonly prompt: number;
    readonly generate?: number;
    readonly tokenBudget?: number;
    readonly pinBudget?: boolean;
    readonly forward?: Record<string, unknown>;
  },
): Record<string, unknown> {
  const budget = o.tokenBudget ?? 2048;
  return oneGemmScenario(ids, {
    ...(o.forward === undefined ? {} : { forward: o.forward }),
    serving: {
      stack: VLLM_SERVED_STACK,
      components: { vllm: "0.11.0" },
      catalog: "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints: ["tables/models/qwen3-tiny-dense"],
      requests: 1,
      arrivalSteps: 1,
      promptLengths: [o.prompt],
      generate: [o.generate ?? 3],
      tokenBudget: budget,
      maxChunk: budget,
      ...(o.pinBudget === true ? { vllmTokenBudget: budget } : {}),
      layerChain: true,
    },
    falsify: [],
  });
}

/**
 * A served sequence's record with another history and prompt length, its fingerprint flipped: no
 * replay could match it, so only NOT_VERIFIED or FAIL can come back. The prompt is the record's
 * own tokens, cut or repeated; the generated tokens (all 5) reach the last position its own
 * entries compute, which is the one position it states; the batch is the widest pass.
 *
 * @param honest the record (a `sequence` workload; its layer chain is dropped)
 * @param o the history's passes (committed into `blobs`), the prompt's length in tokens (the
 *   record's unless given) and components that override its stack's
 * @returns the bent record
 */
export function bentSequence(
  honest: ClaimPredicate,
  o: {
    readonly passes: readonly HistoryPass[];
    readonly blobs: Blobs;
    readonly prompt?: number | undefined;
    readonly components?: Readonly<Record<string, string>> | undefined;
  },
): ClaimPredicate {
  const w = honest.workload as SequenceWorkload;
  const { layerChain: _, ...rest } = w;
  const own = o.passes.map((q) => q.entries[q.self]!);
  const end = Math.max(...own.map((e) => e.cached + e.query));
  const length = w.tokens.prompt.length;
  const prompt = Array.from({ length: o.prompt ?? length }, (_, i) => w.tokens.prompt[i % length]!);
  const history = encodeServingHistory(o.passes);
  return flipFingerprint({
    ...honest,
    software: {
      ...honest.software,
      components: { ...honest.software.components, ...o.components },
    },
    batch: { size: Math.max(...o.passes.map((q) => q.entries.length)) },
    workload: {
      ...rest,
      tokens: { prompt, generated: Array.from({ length: end + 1 - prompt.length }, () => 5) },
      history: { sha256: commit(o.blobs, history), passes: o.passes.length },
      positions: [end - 1],
    },
  });
}
