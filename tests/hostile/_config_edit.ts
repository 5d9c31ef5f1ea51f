/**
 * Honest one-record runs of the bundled checkpoints and their records over an edited
 * `config.json`, for the tests of how the stacks read a config's fields.
 */
import assert from "node:assert/strict";
import type { ClaimPredicate, ModelForwardWorkload } from "../../src/claims/mod.ts";
import { makeClaims, parseScenario } from "../../src/prover/mod.ts";
import { engineWalker } from "../model/forward/_forward_fixture.ts";
import { forwardSection, oneGemmScenario, withStacks } from "../verify/_serving_fixture.ts";
import {
  attention,
  type Blobs,
  commit,
  flipFingerprint,
  store,
  verifyAlone,
} from "./_recompute_fixture.ts";

/**
 * An honest one-record run of the bundled checkpoint `dir` (on `stack` with its `components`,
 * when given; else the demo's HF Transformers 4.5x stack).
 *
 * @param dir the folder under `tables/models/`
 * @param o the log id, and the stack and its components
 * @returns the record's predicate and the blobs it names
 */
export async function honestOf(
  dir: string,
  o: { readonly logId: string; readonly stack?: string; readonly components?: object },
): Promise<{ honest: ClaimPredicate; blobs: Blobs }> {
  const forward = forwardSection([`tables/models/${dir}`], { records: 1 });
  const scenario = parseScenario(oneGemmScenario({ logId: o.logId, seed: `${o.logId}-v1` }, {
    forward: o.stack === undefined
      ? forward
      : withStacks(forward, [{ stack: o.stack, components: o.components ?? {} }]),
    falsify: [],
  }));
  const out = await makeClaims(scenario, { store, walker: engineWalker, attention });
  return { honest: out.records[1]!.predicate, blobs: new Map(out.blobs) as Blobs };
}

/**
 * The record over its config text edited by `edit` (committed to `blobs`).
 *
 * @param honest the record's predicate
 * @param blobs the blobs, which receive the edited config
 * @param edit the edit of the config's text (it must change it)
 * @returns the predicate naming the edited config
 */
export function withConfig(
  honest: ClaimPredicate,
  blobs: Blobs,
  edit: (text: string) => string,
): ClaimPredicate {
  const w = honest.workload as ModelForwardWorkload;
  const text = new TextDecoder().decode(blobs.get(w.model.configSha256)!);
  const edited = edit(text);
  assert.notEqual(edited, text, "the edit changed nothing");
  const configSha256 = commit(blobs, new TextEncoder().encode(edited));
  return { ...honest, workload: { ...w, model: { ...w.model, configSha256 } } };
}

/** The eager vLLM 0.11 stack as a record states it (`honestOf`'s stack and components). */
export const VLLM_STACK = { stack: "vllm-0.11-eager-fa2", components: { vllm: "0.11.0" } } as const;

/**
 * An edit setting one top-level field of the config (undefined: removing it).
 *
 * @param key the field
 * @param value its new value
 * @returns the edit
 */
export function setField(key: string, value: unknown): (text: string) => string {
  return (t) => JSON.stringify({ ...JSON.parse(t), [key]: value });
}

/**
 * The honest one-record runs of `dir` on the demo's HF Transformers 4.5x stack (log `logId`) and on
 * the eager vLLM stack (log `${logId}-vllm`).
 *
 * @param dir the folder under `tables/models/`
 * @param logId the HF run's log id
 * @returns both runs
 */
export async function hfAndVllm(
  dir: string,
  logId: string,
): Promise<
  { hf: Awaited<ReturnType<typeof honestOf>>; vllm: Awaited<ReturnType<typeof honestOf>> }
> {
  return {
    hf: await honestOf(dir, { logId }),
    vllm: await honestOf(dir, { logId: `${logId}-vllm`, ...VLLM_STACK }),
  };
}

/**
 * Asserts that a config edit reads as the config it replaces: the honest record over the edited
 * config PASSes and its falsified twin FAILs on its fingerprint (recomputed, not refused).
 *
 * @param honest the record's predicate
 * @param blobs the blobs, which receive the edited config
 * @param edit the edit of the config's text
 * @param what a label for the assertions
 */
export async function assertHeldToFingerprint(
  honest: ClaimPredicate,
  blobs: Blobs,
  edit: (text: string) => string,
  what = "",
): Promise<void> {
  const pass = await verifyAlone(withConfig(honest, blobs, edit), blobs);
  assert.equal(pass.status, "PASS", `${what}: ${pass.reason}`);
  const lie = await verifyAlone(withConfig(flipFingerprint(honest), blobs, edit), blobs);
  assert.equal(lie.status, "FAIL", `${what}: ${lie.reason}`);
  assert.equal(lie.finding, "fingerprint", `${what}: ${lie.reason}`);
}
