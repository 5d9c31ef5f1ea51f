/**
 * A batch of FA2 launches over one KV cache run together: the decode steps of a served sequence
 * in one layer (each step its own launch, over every key so far) read the same complete KV tiles,
 * so each tile's products run once for the query rows of every launch that visits it
 * (`fa2KvGroupBatch`). Each launch keeps its own plan (splits, tiles, causal limits) and gets the
 * bits it gets alone.
 *
 * @module
 */
import { kWalkReference } from "../../hardware/mod.ts";
import type {
  AttentionInputs,
  FlashAttentionOptions,
  FlashAttentionResult,
} from "./fa2_options.ts";
import {
  fa2KvGroupBatch,
  type Fa2Plan,
  fa2Result,
  fa2Runner,
  fa2Sinks,
  planFa2,
} from "./fa2_plan.ts";

/** One launch of a batch. */
export interface Fa2BatchLaunch {
  /** Q, K and V of the launch. */
  readonly inputs: AttentionInputs;
  /** Its options (see {@link checkFa2Batch} for what the launches must share). */
  readonly options: FlashAttentionOptions;
}

/** Runs a batch (`flashAttentionBatch`, or a thread pool's `forwardBatch`; same bits). */
export type Fa2BatchForward = (
  launches: readonly Fa2BatchLaunch[],
) => FlashAttentionResult[] | Promise<FlashAttentionResult[]>;

/**
 * Plans every launch and checks that they can run together: the same build, GPU profile, MUFU
 * model (and `lg2`), K-walk, tile softmax, heads, KV heads and head dimension, and one
 * `kvCache` (without one, no tile is shared and a batch gains nothing).
 *
 * @param launches the launches (at least one)
 * @returns each launch's plan, and the first one's MUFU model with LG2 resolved
 * @throws {RangeError} when the batch is empty or the launches differ in one of those
 * @throws {RangeError|TypeError} as `planFa2` for a malformed launch
 * @example
 * ```ts ignore
 * const { plans } = checkFa2Batch(launches);
 * ```
 */
export function checkFa2Batch(
  launches: readonly Fa2BatchLaunch[],
): { plans: Fa2Plan[]; mufu: ReturnType<typeof planFa2>["mufu"] } {
  const first = launches[0]?.options;
  if (first === undefined) throw new RangeError("Cannot run an FA2 batch: no launch");
  if (first.kvCache === undefined) {
    throw new RangeError("Cannot run an FA2 batch: the launches name no kvCache");
  }
  const keys = [
    "build",
    "profile",
    "mufu",
    "lg2",
    "kWalk",
    "tileSoftmax",
    "kvCache",
    "heads",
    "kvHeads",
    "headDim",
    "softmaxScale",
  ] as const;
  for (const [i, l] of launches.entries()) {
    const differs = keys.find((k) => l.options[k] !== first[k]);
    if (differs !== undefined) {
      throw new RangeError(`Cannot run an FA2 batch: launch ${i} differs in '${differs}'`);
    }
  }
  const planned = launches.map((l) => planFa2(l.inputs, l.options));
  return { plans: planned.map((p) => p.plan), mufu: planned[0]!.mufu };
}

/**
 * Runs a batch of launches on the calling thread: the results of `flashAttentionForward` on
 * each, in order.
 *
 * @param launches the launches (see {@link checkFa2Batch})
 * @returns one result per launch
 * @throws {RangeError|TypeError} as {@link checkFa2Batch}
 * @example
 * ```ts ignore
 * const cache = fa2KvCache();
 * const [a, b] = flashAttentionBatch([
 *   { inputs: step1, options: { ...o, kvCache: cache } },
 *   { inputs: step2, options: { ...o, kvCache: cache } },
 * ]);
 * ```
 */
export function flashAttentionBatch(launches: readonly Fa2BatchLaunch[]): FlashAttentionResult[] {
  const { plans, mufu } = checkFa2Batch(launches);
  const o = launches[0]!.options;
  const runner = fa2Runner(plans[0]!.build, {
    mufu,
    kWalk: o.kWalk ?? kWalkReference,
    tileSoftmax: o.tileSoftmax,
    kept: o.kvCache?.tiles,
  });
  const sinks = plans.map((p) => fa2Sinks(p));
  const inputs = launches.map((l) => l.inputs);
  for (let kvh = 0; kvh < plans[0]!.kvHeads; kvh++) {
    fa2KvGroupBatch(plans, { runner, inputs, kvh, sinks });
  }
  return plans.map((p, i) => fa2Result(p, sinks[i]!));
}
