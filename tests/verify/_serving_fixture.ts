/**
 * The serving scenario of the sequence tests: one GEMM record, then `requests` sequences per
 * bundled tiny checkpoint (dense, MoE) served by the continuous-batching engine.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { BlobStore } from "../../src/assets/mod.ts";
import {
  type ClaimPredicate,
  type ClaimRecord,
  formatClaimLog,
  parseClaimLog,
} from "../../src/claims/mod.ts";
import { type VerifyContext, verifyRecord } from "../../src/verify/mod.ts";

/** A scenario with one GEMM record and `requests` sequences per bundled checkpoint. */
export function servingScenario(falsify: unknown[] = [], requests = 5): unknown {
  return oneGemmScenario({ logId: "serving-test", seed: "serving-test-v3" }, {
    serving: {
      stack: "hf-qwen3-continuous-batching-torch2.8-lg2-model",
      components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
      catalog: "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints: ["tables/models/qwen3-tiny-dense", "tables/models/qwen3-tiny-moe"],
      requests,
      arrivalSteps: 4,
      promptLengths: [3, 7, 12, 200],
      generate: [1, 3, 5],
      tokenBudget: 40,
      maxChunk: 32,
      layerChain: true,
    },
    falsify,
  });
}

/**
 * A scenario with one GEMM record (the small demo transformer's q_proj) and the given model
 * sections (forward, serving, falsify).
 */
export function oneGemmScenario(
  o: { readonly logId: string; readonly seed: string },
  sections: Record<string, unknown>,
): Record<string, unknown> {
  return {
    schema: "bitaudit.prover-scenario/v1",
    logId: o.logId,
    seed: o.seed,
    hardware: { profile: "a100", count: 1 },
    software: { stack: "pytorch-cublas-linear", components: {} },
    catalog: "demo-small-transformer-a100",
    model: { name: "one gemm", layers: 1, projections: [{ name: "q_proj", n: 128, k: 256 }] },
    batchSizes: [2],
    records: 1,
    ...sections,
  };
}

/**
 * The forward section of a test scenario: the demo's HF stack and tiny-model catalog on an A100,
 * batches of one or two sequences of 3, 6 or 10 tokens (pad token 0), with layer chains.
 *
 * @param checkpoints bundled checkpoint folders, used in turn
 * @param o `records`, and optionally another `catalog` or `lengths`
 */
export function forwardSection(
  checkpoints: readonly string[],
  o: { records: number; catalog?: string; lengths?: readonly number[] },
): Record<string, unknown> {
  return {
    stack: "hf-qwen3-flash-attn-torch2.8",
    components: { pytorch: "2.8.0" },
    catalog: o.catalog ?? "demo-qwen3-tiny-a100",
    multiProcessorCount: 108,
    checkpoints,
    records: o.records,
    batchSizes: [1, 2],
    lengths: o.lengths ?? [3, 6, 10],
    padTokenId: 0,
    layerChain: true,
  };
}

/**
 * `section` with its records cycled over `stacks` in place of its one `stack` and `components`
 * (a scenario section takes one or the other).
 *
 * @param section a forward or serving section
 * @param stacks the stacks and the components their records state
 */
export function withStacks(
  section: Record<string, unknown>,
  stacks: readonly { readonly stack: string; readonly components: object }[],
): Record<string, unknown> {
  const { stack: _stack, components: _components, ...rest } = section;
  return { ...rest, stacks };
}

/**
 * A serving section of the sequence tests over the given checkpoints (the continuous-batching
 * stack on an A100, 3 requests each, short prompts), with the usual two falsifications of record
 * 2 (a flipped fingerprint) and record 5 (a replaced greedy token).
 */
export function servedSection(
  checkpoints: readonly string[],
  o: { readonly catalog?: string; readonly parallel?: readonly unknown[] } = {},
): { serving: Record<string, unknown>; falsify: unknown[] } {
  return {
    serving: {
      stack: "hf-qwen3-continuous-batching-torch2.8-lg2-model",
      components: { pytorch: "2.8.0", flash_attn: "2.8.3" },
      catalog: o.catalog ?? "demo-qwen3-tiny-a100",
      multiProcessorCount: 108,
      checkpoints,
      requests: 3,
      arrivalSteps: 4,
      promptLengths: [3, 7, 12],
      generate: [1, 3],
      tokenBudget: 40,
      maxChunk: 32,
      layerChain: true,
      ...(o.parallel === undefined ? {} : { parallel: o.parallel }),
    },
    falsify: [{ seq: 2, kind: "fingerprint", bit: 9 }, {
      seq: 5,
      kind: "token_replaced",
      step: 1,
      token: 7,
    }],
  };
}

/**
 * Verifies every record after the first of a simulated prover's output and asserts that exactly
 * the falsified ones FAIL and the others PASS.
 *
 * @param made the prover's records, blobs and falsified sequence numbers
 * @param ctx the verifier's assets, walker and attention runner
 * @returns each verified record's predicate, in log order
 */
export async function assertVerdicts(
  made: {
    readonly records: readonly ClaimRecord[];
    readonly blobs: ReadonlyMap<string, Uint8Array>;
    readonly falsified: readonly { readonly seq: number }[];
  },
  ctx: Omit<VerifyContext, "blobs">,
): Promise<ClaimPredicate[]> {
  const blobs: BlobStore = {
    dir: "memory",
    get: (d) => Promise.resolve(made.blobs.get(d) ?? null),
  };
  const log = parseClaimLog(formatClaimLog([...made.records]));
  const falsified = new Set(made.falsified.map((f) => f.seq));
  const out: ClaimPredicate[] = [];
  for (let index = 1; index < log.records.length; index++) {
    out.push(log.records[index]!.predicate);
    const r = await verifyRecord({ ...ctx, blobs }, { log, index });
    assert.equal(r.status, falsified.has(index) ? "FAIL" : "PASS", `${index}: ${r.reason}`);
  }
  return out;
}
