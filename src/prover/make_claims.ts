/**
 * A simulated prover: runs the emulator on a scenario and produces an honest claim log (with
 * the requested falsifications injected), plus the tensors it references, by digest.
 *
 * For tests, demos, and provers who want to check their own logging.
 *
 * @module
 */
import { claimEnvelope } from "./claims_context.ts";
import { type AssetStore, sha256Hex } from "../assets/mod.ts";
import { InputError } from "../errors.ts";
import { findDatapath, type GpuProfile } from "../hardware/mod.ts";
import {
  type Fa2Forward,
  type GemmRecipe,
  type KWalker,
  lookupRecipe,
  recipeFit,
  runGemmRecipe,
} from "../kernels/mod.ts";
import { type ClaimRecord, GENESIS_PREV, makeClaimRecord, recordDigest } from "../claims/mod.ts";
import {
  DISPATCH_CATALOGS,
  loadAsset,
  loadGpuProfile,
  recipeFromJson,
  STACK_PROFILES,
} from "../resolve/mod.ts";
import type { Scenario } from "./scenario.ts";
import { synthBf16 } from "./synth_tensor.ts";
import { checkHonestRecord } from "./honest_record.ts";
import { makeBlockClaims } from "./make_block_claims.ts";
import { makeModelClaims } from "./make_model_claims.ts";
import { makeSequenceClaims } from "./make_sequence_claims.ts";

/** The prover's output. */
export interface ProverOutput {
  /** Claim records in log order. */
  readonly records: readonly ClaimRecord[];
  /** Tensors by digest: weights, inputs and the prover's outputs. */
  readonly blobs: ReadonlyMap<string, Uint8Array>;
  /** Sequence numbers that were falsified, with their kind. */
  readonly falsified: readonly { seq: number; kind: string }[];
}

/**
 * Runs a scenario.
 *
 * @param scenario the scenario
 * @param ctx asset store and K-walker; `onProgress(done, total)` optional
 * @returns records, blobs and the list of falsified sequence numbers
 * @throws {InputError} `SCENARIO_*` when the scenario's shapes are not covered by its catalog,
 *   `SCENARIO_INVALID` for a record no falsification names that the audit would FAIL for what it
 *   states of its world or its kernel, or that names a catalog of another GPU (`checkHonestRecord`)
 * @example
 * ```ts ignore
 * const out = await makeClaims(scenario, { store, walker });
 * ```
 */
export async function makeClaims(
  scenario: Scenario,
  ctx: {
    store: AssetStore;
    walker: KWalker;
    /** Synchronous K-walk of the attention core's tiles (default: the plain reference). */
    attention?: Fa2Forward | undefined;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<ProverOutput> {
  const { store, walker } = ctx;
  const main = await loadGpuProfile(store, scenario.hardware.profile);
  const catalog = await loadAsset(store, { kind: DISPATCH_CATALOGS, id: scenario.catalog });
  const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: scenario.software.stack }))
    .value;
  const blobs = new Map<string, Uint8Array>();
  const put = (x: Uint16Array | Uint32Array | Uint8Array) => {
    const bytes = new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    const d = sha256Hex(bytes);
    blobs.set(d, bytes);
    return d;
  };
  const weights = new Map<string, { data: Uint16Array; sha256: string }>();
  const records: ClaimRecord[] = [];
  const falsified: { seq: number; kind: string }[] = [];
  const projections = scenario.model.projections;
  const kernel = { catalog: catalog.value.id, catalogSha256: catalog.sha256 };
  let prev = GENESIS_PREV;
  for (let seq = 0; seq < scenario.records; seq++) {
    const layer = Math.floor(seq / projections.length) % scenario.model.layers;
    const proj = projections[seq % projections.length]!;
    const wKey = `layers.${layer}.${proj.name}`;
    if (!weights.has(wKey)) {
      const data = synthBf16(scenario.seed, { label: wKey, count: proj.n * proj.k, span: 6 });
      weights.set(wKey, { data, sha256: put(data) });
    }
    const w = weights.get(wKey)!;
    const fake = scenario.falsify.find((f) => f.seq === seq);
    const envelope = claimEnvelope(scenario, {
      hardware: main,
      seq,
      prev,
      stack: scenario.software.stack,
      components: scenario.software.components,
    });
    if (fake === undefined) {
      checkHonestRecord(envelope, {
        seq,
        section: "the scenario's GEMM records",
        stack,
        gpu: main.profile,
        kernel,
        catalog: catalog.value,
      });
    }
    const batch = fake?.kind === "batch_size"
      ? fake.claimedBatch
      : scenario.batchSizes[_pick(scenario.seed, seq, scenario.batchSizes.length)]!;
    if (fake?.kind === "batch_size" && fake.trueBatch < batch) {
      throw new InputError(
        "SCENARIO_INVALID",
        `Cannot falsify record ${seq}: trueBatch below claimedBatch`,
      );
    }
    const runRows = fake?.kind === "batch_size" ? fake.trueBatch : batch;
    const xFull = synthBf16(scenario.seed, {
      label: `input.${seq}`,
      count: runRows * proj.k,
      span: 8,
    });
    let profile: GpuProfile = main.profile;
    let dispatch = catalog.value;
    if (fake?.kind === "sku") {
      profile = (await loadGpuProfile(store, fake.profile)).profile;
      dispatch = (await loadAsset(store, { kind: DISPATCH_CATALOGS, id: fake.catalog })).value;
    }
    const shape = { m: runRows, n: proj.n, k: proj.k };
    let recipe: GemmRecipe;
    if (fake?.kind === "recipe") {
      recipe = recipeFromJson(fake.recipe, `scenario falsify seq ${seq}`);
      const fit = recipeFit(recipe, shape.k);
      if (!fit.fits) {
        throw new InputError("SCENARIO_INVALID", `Cannot falsify record ${seq}: ${fit.reason}`);
      }
    } else {
      const hit = lookupRecipe(dispatch, {
        ...shape,
        dtype: "bf16",
        out: "bf16",
        layout: "tn",
      });
      if (!hit.covered) {
        throw new InputError(
          "SCENARIO_UNCOVERED",
          `Cannot run scenario record ${seq}: ${hit.reason}`,
        );
      }
      recipe = hit.recipe;
    }
    const dp = findDatapath(profile, { input: "bf16", output: "fp32" });
    if (dp === undefined) {
      throw new InputError(
        "SCENARIO_UNSUPPORTED",
        `Cannot run scenario: '${profile.id}' has no bf16 datapath`,
      );
    }
    const r = await runGemmRecipe(recipe, { dp, walker, a: xFull, b: w.data, ...shape });
    const out = r.out.slice(0, batch * proj.n); // the record reports its own rows only
    let fingerprint = put(out);
    if (fake?.kind === "fingerprint") fingerprint = _flip(fingerprint, fake.bit);
    if (fake) falsified.push({ seq, kind: fake.kind });
    const x = xFull.slice(0, batch * proj.k);
    const record = makeClaimRecord({
      ...envelope,
      batch: { size: batch },
      workload: {
        kind: "gemm",
        m: batch,
        n: proj.n,
        k: proj.k,
        dtype: "bf16",
        out: "bf16",
        layout: "tn",
        kernel,
        weights: { sha256: w.sha256, shape: [proj.n, proj.k] },
        input: { sha256: put(x), shape: [batch, proj.k] },
      },
      fingerprint: {
        tensor: `${wKey}.out`,
        dtype: "bf16",
        shape: [batch, proj.n],
        sha256: fingerprint,
      },
    });
    records.push(record);
    prev = recordDigest(record);
    ctx.onProgress?.(seq + 1, scenario.records);
  }
  // Block, model-forward and sequence records follow the GEMM records, each maker from the
  // record before its first.
  for (const make of [makeBlockClaims, makeModelClaims, makeSequenceClaims]) {
    const made = await make(scenario, {
      store,
      walker,
      attention: ctx.attention,
      hardware: main,
      firstSeq: records.length,
      prev: records.length === 0 ? GENESIS_PREV : recordDigest(records[records.length - 1]!),
      put,
      flip: _flip,
    });
    records.push(...made.records);
    falsified.push(...made.falsified);
  }
  return { records, blobs, falsified };
}

function _pick(seed: string, seq: number, n: number): number {
  const h = sha256Hex(new TextEncoder().encode(`${seed}\u0000batch\u0000${seq}`));
  return parseInt(h.slice(0, 8), 16) % n;
}

function _flip(hex: string, bit: number): string {
  const nibble = 63 - Math.floor(bit / 4);
  const v = parseInt(hex[nibble]!, 16) ^ (1 << (bit % 4));
  return hex.slice(0, nibble) + v.toString(16) + hex.slice(nibble + 1);
}
