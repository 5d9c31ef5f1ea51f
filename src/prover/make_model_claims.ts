/**
 * The simulated prover's model-forward records: prefill forward passes of the scenario's bundled
 * checkpoints (used in turn) over batches drawn from the seed, computed bit-exactly on the stack
 * the scenario names, with the forward falsifications of `forward_scenario.ts` injected.
 *
 * @module
 */
import { claimEnvelope, type ClaimsContext, sectionRuntime } from "./claims_context.ts";
import { sha256Hex } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { type ClaimRecord, recordDigest } from "../claims/mod.ts";
import { forwardRecord } from "./forward_record.ts";
import {
  type BlockRuntime,
  bytesByteSource,
  catalogDispatch,
  type DecoderCheckpoint,
  openSafetensors,
  runPrefillForward,
} from "../model/mod.ts";
import {
  DISPATCH_CATALOGS,
  loadAsset,
  loadGpuProfile,
  openCheckpointBytes,
} from "../resolve/mod.ts";
import type { ForwardScenario } from "./forward_scenario.ts";
import { claimedParallelism, runParallel, topologyComponents } from "./scenario_parallel.ts";
import {
  loadScenarioCheckpoint,
  modelRefOf,
  type ScenarioCheckpoint,
  sectionStack,
} from "./scenario_checkpoint.ts";
import type { Falsification, Scenario } from "./scenario.ts";
import { checkHonestRecord } from "./honest_record.ts";

/** Where the model-forward records go in the log and how tensors are stored. */
export type ModelClaimsContext = ClaimsContext;

/**
 * Appends the scenario's model-forward records.
 *
 * @param scenario a scenario with a `forward` section
 * @param ctx assets, walker, hardware, log position, blob store
 * @returns the records and the falsified sequence numbers
 * @throws {InputError} `SCENARIO_UNSUPPORTED` when a pass cannot be emulated as configured,
 *   `SCENARIO_INVALID` for a weight flip outside its tensor, or a record no falsification names
 *   that the audit would FAIL for what it states of its world, SM count or kernel, or that names
 *   a catalog of another GPU (`checkHonestRecord`)
 * @example
 * ```ts ignore
 * const { records } = await makeModelClaims(scenario, ctx);
 * ```
 */
export async function makeModelClaims(
  scenario: Scenario,
  ctx: ModelClaimsContext,
): Promise<{ records: ClaimRecord[]; falsified: { seq: number; kind: string }[] }> {
  const f = scenario.forward;
  if (f === undefined) return { records: [], falsified: [] };
  // One runtime per stack the section's records run on.
  const runtimes = new Map<string, ReturnType<typeof sectionRuntime>>();
  const runtimeOf = (stack: string) => {
    let r = runtimes.get(stack);
    if (r === undefined) runtimes.set(stack, r = sectionRuntime(ctx, { ...f, stack }));
    return r;
  };
  const loaded = new Map<string, ScenarioCheckpoint>();
  const records: ClaimRecord[] = [];
  const falsified: { seq: number; kind: string }[] = [];
  let prev = ctx.prev;
  for (let i = 0; i < f.records; i++) {
    const seq = ctx.firstSeq + i;
    const path = f.checkpoints[i % f.checkpoints.length]!;
    const claimedStack = sectionStack(f, i);
    const { stack, catalog, runtime: base } = await runtimeOf(claimedStack.stack);
    const kernel = { catalog: catalog.value.id, catalogSha256: catalog.sha256 };
    if (!loaded.has(path)) loaded.set(path, await loadScenarioCheckpoint(ctx, path));
    const model = loaded.get(path)!;
    const fake = scenario.falsify.find((x) => x.seq === seq);
    // The record claims its section's topology; a `parallelism` falsification ran another.
    const topology = f.parallel?.[i % f.parallel.length];
    const envelope = claimEnvelope(scenario, {
      hardware: ctx.hardware,
      seq,
      prev,
      stack: stack.id,
      components: topologyComponents(claimedStack.components, topology),
      parallelism: claimedParallelism(topology),
    });
    if (fake === undefined) {
      checkHonestRecord(envelope, {
        seq,
        section: "scenario.forward",
        stack,
        gpu: ctx.hardware.profile,
        kernel,
        catalog: catalog.value,
        multiProcessorCount: f.multiProcessorCount,
      });
    }
    const claimed = _batch(scenario.seed, { seq, f, vocab: model.ckpt.config.vocab });
    const sequences = fake?.kind === "attention_backend"
      ? [Array.from({ length: fake.length }, (_, t) => (t * 37 + seq) % model.ckpt.config.vocab)]
      : claimed;
    let runtime: BlockRuntime = base;
    const ran = await _falsified(ctx, { fake, runtime, model, sequences, f, scenario });
    runtime = ran.runtime;
    const positions = sequences.map((s, seqIdx) => ({ seq: seqIdx, pos: s.length - 1 }));
    const parallel = runParallel(
      fake?.kind === "parallelism" ? fake.ran : topology,
      stack,
      base.profile,
    );
    // A stack that flattens the batch pads nothing: its records name no pad token, as
    // `claims append` requires (`batchPaddingMismatch`).
    const padTokenId = stack.operators?.batching === "flatten" ? undefined : f.padTokenId;
    const r = await runPrefillForward(ran.ckpt, {
      sequences: ran.sequences,
      runtime,
      multiProcessorCount: f.multiProcessorCount,
      ...(padTokenId === undefined ? {} : { padTokenId }),
      positions,
      parallel,
    });
    if (!r.supported) {
      throw new InputError("SCENARIO_UNSUPPORTED", `Cannot run record ${seq}: ${r.reason}`);
    }
    const h = model.ckpt.config.hidden;
    const out = new Uint16Array(positions.length * h);
    positions.forEach(({ seq: s, pos }, k) => {
      const row = r.result.layout.cuSeqlens[s]! + pos;
      out.set(r.result.hidden.subarray(row * h, (row + 1) * h), k * h);
    });
    let fingerprint = ctx.put(out);
    if (fake?.kind === "fingerprint") fingerprint = ctx.flip(fingerprint, fake.bit);
    if (fake !== undefined) falsified.push({ seq, kind: fake.kind });
    const record = forwardRecord(envelope, {
      model: modelRefOf(model),
      sequences,
      padTokenId,
      kernel,
      multiProcessorCount: f.multiProcessorCount,
      positions: positions.map(({ seq: s, pos }) => [s, pos] as const),
      layerChain: f.layerChain ? r.result.layerChain : undefined,
      hidden: h,
      fingerprint,
    });
    records.push(record);
    prev = recordDigest(record);
    ctx.onProgress?.(i + 1, f.records);
  }
  return { records, falsified };
}

/** What actually ran for a (possibly falsified) record. */
async function _falsified(
  ctx: ModelClaimsContext,
  o: {
    fake: Falsification | undefined;
    runtime: BlockRuntime;
    model: ScenarioCheckpoint;
    sequences: number[][];
    f: ForwardScenario;
    scenario: Scenario;
  },
): Promise<{ runtime: BlockRuntime; ckpt: DecoderCheckpoint; sequences: number[][] }> {
  const { fake, runtime, model } = o;
  const same = { runtime, ckpt: model.ckpt, sequences: o.sequences };
  const catalog = async (id: string) =>
    catalogDispatch((await loadAsset(ctx.store, { kind: DISPATCH_CATALOGS, id })).value);
  switch (fake?.kind) {
    case "batch_composition": {
      const extra = Array.from(
        { length: fake.extraLength },
        (_, i) => (i * 7 + 3) % model.ckpt.config.vocab,
      );
      return { ...same, sequences: [...o.sequences, extra] };
    }
    case "sku": {
      const profile = (await loadGpuProfile(ctx.store, fake.profile)).profile;
      return { ...same, runtime: { ...runtime, profile, gemm: await catalog(fake.catalog) } };
    }
    case "stack_version":
      return { ...same, runtime: { ...runtime, gemm: await catalog(fake.catalog) } };
    case "attention_backend": {
      const ops = runtime.stack.operators!;
      const stack: StackProfile = {
        ...runtime.stack,
        operators: { ...ops, attention: fake.attention as typeof ops.attention },
      };
      return { ...same, runtime: { ...runtime, stack } };
    }
    case "cuda_graphs": {
      const ops = runtime.stack.operators!;
      const stack: StackProfile = {
        ...runtime.stack,
        operators: { ...ops, cudaGraphs: { mode: "piecewise", captureSizes: fake.captureSizes } },
      };
      return { ...same, runtime: { ...runtime, stack } };
    }
    case "weight_flip":
      return { ...same, ckpt: await _flipWeight(model, fake) };
    default:
      return same;
  }
}

async function _flipWeight(
  model: ScenarioCheckpoint,
  fx: { tensor: string; index: number; bit: number; seq: number },
): Promise<DecoderCheckpoint> {
  const files = new Map(model.files);
  for (const [name, bytes] of model.files) {
    if (!name.endsWith(".safetensors")) continue;
    const st = await openSafetensors(bytesByteSource(bytes));
    if (!st.has(fx.tensor)) continue;
    const e = st.entry(fx.tensor);
    if (e.dtype !== "BF16" || fx.index >= e.elementCount) {
      throw new InputError(
        "SCENARIO_INVALID",
        `Cannot falsify record ${fx.seq}: '${fx.tensor}' has no BF16 element ${fx.index}`,
      );
    }
    const copy = bytes.slice();
    copy[e.byteOffset + 2 * fx.index + (fx.bit >> 3)]! ^= 1 << (fx.bit & 7);
    files.set(name, copy);
    return await openCheckpointBytes(files);
  }
  throw new InputError(
    "SCENARIO_INVALID",
    `Cannot falsify record ${fx.seq}: no tensor '${fx.tensor}'`,
  );
}

function _batch(
  seed: string,
  o: { seq: number; f: ForwardScenario; vocab: number },
): number[][] {
  const { f } = o;
  const draw = (label: string, n: number) =>
    parseInt(
      sha256Hex(new TextEncoder().encode(`${seed}\u0000forward\u0000${o.seq}\u0000${label}`)).slice(
        0,
        8,
      ),
      16,
    ) % n;
  const size = f.batchSizes[draw("size", f.batchSizes.length)]!;
  return Array.from({ length: size }, (_, s) => {
    const len = f.lengths[draw(`len.${s}`, f.lengths.length)]!;
    return Array.from({ length: len }, (_, t) => draw(`tok.${s}.${t}`, o.vocab));
  });
}
