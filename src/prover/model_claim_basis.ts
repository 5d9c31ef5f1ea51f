/**
 * What every record of a real prover's model pass (`model_forward`, `sequence`) states the same
 * way, checked once against the assets and the checkpoint: the checkpoint by digests, the GPU
 * profile, the stack (with operators), the SM and GPU counts, the GEMM kernel (a catalog captured
 * on that GPU or a recipe, as the stack's kernel source says), the fingerprint's form and the
 * optional layer chain; and the record envelope built from them. The envelope, SM count and
 * kernel kind are put to the verifier's own record-level checks (`recordContradiction`, as
 * `claims make` puts its honest records), so a record the audit FAILs for them is refused with
 * the audit's reason. `modelForwardClaim` and `sequenceClaim` add their workload's own facts.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import {
  type ClaimPredicate,
  type ClaimRecord,
  type KernelRef,
  parseClaimRecord,
  parseLayerChain,
} from "../claims/mod.ts";
import { type InputCode, InputError } from "../errors.ts";
import {
  componentMismatch,
  isVllmStack,
  type StackProfile,
  vllmMaxNumSeqs,
} from "../kernels/mod.ts";
import {
  configReadingGap,
  type DecoderCheckpoint,
  type DecoderConfig,
  stackLoadRefusal,
  type TensorParallel,
  tiedHeadReadingGap,
  vllmDtypeGap,
  vllmReadingGap,
  weightMetadataFinding,
} from "../model/mod.ts";
import {
  allReducePathFinding,
  DISPATCH_CATALOGS,
  type DispatchGpu,
  loadAsset,
  loadGpuProfile,
  recipeFromDescriptor,
  STACK_PROFILES,
  stackSplitContradiction,
  tensorParallelOf,
} from "../resolve/mod.ts";
import { catalogGpuMismatch, recordContradiction } from "../verify/mod.ts";
import { claimEnvelope } from "./claims_context.ts";
import type { LogPosition } from "./log_position.ts";
import type { ModelRecordFacts } from "./model_record_facts.ts";
import { modelRefOf } from "./scenario_checkpoint.ts";
import { claimedParallelism, type ScenarioParallel } from "./scenario_parallel.ts";

/** What a prover states about any model pass it ran, whatever the record's kind. */
export interface ModelClaimFacts {
  /** Where the record goes (`nextLogPosition`). */
  readonly position: LogPosition;
  /** The opened checkpoint and the SHA-256 of each of its weight files, by file name. */
  readonly checkpoint: {
    readonly ckpt: DecoderCheckpoint;
    readonly digests: Readonly<Record<string, string>>;
  };
  /** Stack profile id (bundled). */
  readonly stack: string;
  /** GPU profile id (bundled). */
  readonly profile: string;
  /** The device's streaming multiprocessor count. */
  readonly multiProcessorCount: number;
  /** The GEMM kernels: a bundled dispatch catalog's id, or a recipe descriptor. */
  readonly kernel: { readonly catalog: string } | { readonly recipe: unknown };
  /** SHA-256 (64 lowercase hex digits) of the final-norm rows at the record's positions. */
  readonly fingerprint: string;
  /** The per-layer chain as parsed JSON (`[{"attention", "mlp"}, ...]`), if the prover kept one. */
  readonly layerChain?: unknown;
  /** Software versions recorded over the stack profile's own (e.g. from the environment). */
  readonly components?: Readonly<Record<string, string>> | undefined;
  /** GPUs of the machine (default 1). */
  readonly gpuCount?: number | undefined;
  /**
   * Tensor-parallel ranks of the pass, the all-reduce they ran and how their GPUs are linked
   * (default one GPU; at tp = 2 the all-reduce may be left out: every implementation gives the
   * same bits).
   */
  readonly parallel?: ScenarioParallel | undefined;
}

/** The checked common facts, in the form the record builders take them. */
export interface ModelClaimBasis {
  /** Log place, hardware, software and parallelism fields of the record. */
  readonly envelope: Pick<ClaimPredicate, "log" | "hardware" | "software" | "parallelism">;
  /** The stack profile (it has operators). */
  readonly stack: StackProfile;
  /** Checkpoint, kernel reference, SM count, parsed layer chain, hidden size and fingerprint. */
  readonly record: ModelRecordFacts;
  /** The split the stack runs the stated topology with (undefined: one GPU or not modelled). */
  readonly parallel: TensorParallel | undefined;
  /** The GPU profile (the all-reduce dispatch reads its compute capability and links). */
  readonly gpu: DispatchGpu;
}

/**
 * Refuses a pass of more requests than the stack's engine runs at once (`vllmMaxNumSeqs`), as
 * the verifier FAILs it; a bound not derived is left to the verifier's NOT_VERIFIED.
 *
 * @param basis the record's basis (its stack and GPU)
 * @param o the requests of the widest pass, the code to refuse with and what the pass is
 * @throws {InputError} with `o.code`
 * @example
 * ```ts ignore
 * checkServedRequests(basis, { requests: 257, code: "TOKENS_INVALID", what: "the batch" });
 * ```
 */
export function checkServedRequests(
  basis: Pick<ModelClaimBasis, "stack" | "gpu">,
  o: { readonly requests: number; readonly code: InputCode; readonly what: string },
): void {
  const bound = vllmMaxNumSeqs(basis.stack, basis.gpu.id);
  if (bound?.ok === true && o.requests > bound.requests) {
    throw new InputError(
      o.code,
      `Cannot append claim: ${o.what} holds ${o.requests} requests, more than vLLM's scheduler ` +
        `runs at once (max_num_seqs ${bound.requests}: ${bound.rule})`,
    );
  }
}

/**
 * Refuses a record whose named all-reduce is not the path its stack's dispatch takes for the
 * record's messages, as the verifier would FAIL it, or whose path depends on links the record
 * does not state, so that an audit could not vouch for it (`allReducePathFinding`).
 *
 * @param basis the record's basis
 * @param passRows each pass's token count (a prefill: its flattened tokens)
 * @throws {InputError} `CLAIM_INVALID` naming the path the dispatch takes, or the paths on each
 *   link and what to state
 * @example
 * ```ts ignore
 * checkAllReducePath(basis, [totalTokens]);
 * ```
 */
export function checkAllReducePath(basis: ModelClaimBasis, passRows: readonly number[]): void {
  const found = allReducePathFinding(basis.stack, {
    gpu: basis.gpu,
    parallel: basis.parallel,
    hidden: basis.record.hidden,
    passRows,
    named: basis.envelope.parallelism.allReduce !== undefined,
    interconnect: basis.envelope.parallelism.interconnect,
  });
  if (found !== null) {
    claimInvalid(`${found.reason}${found.kind === "open" ? " (--interconnect)" : ""}`);
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Checks the facts every model record shares and builds its envelope.
 *
 * @param facts the pass's common facts and the record's log position
 * @param ctx the asset store the stack, profile and catalog are read from
 * @returns the envelope, the stack and the facts every model record carries
 * @throws {InputError} `CLAIM_INVALID` (a fingerprint that is not 64 lowercase hex digits, a
 *   stack without operators, whatever the audit FAILs a record for from its stated world, SM
 *   count or kernel kind, in the verifier's words (`recordContradiction`: versions the stack does
 *   not pin, a stack that cannot run on the GPU, links the GPU cannot have, more ranks than GPUs,
 *   an SM count above the chip's, a kernel of the other source than the stack's), a component
 *   the audit cannot compare, a catalog of another GPU (`catalogGpuMismatch`), a config the
 *   stack reads as another model (`configReadingGap`, `vllmReadingGap`), a tensor-parallel split
 *   the stack's layout cannot make of the checkpoint (`stackSplitContradiction`), a config the
 *   stack's engine refuses to load (`stackLoadRefusal`), weights whose dtype vLLM reads
 *   from how the model was named (`vllmDtypeGap`), a layer chain
 *   the checkpoint cannot have, an SM or GPU count out of range),
 *   `CHECKPOINT_DIGEST` for digests that do not name the checkpoint's weight files,
 *   `RECIPE_INVALID`
 * @throws {AssetError} `STACK_UNKNOWN`, `PROFILE_UNKNOWN`, `CATALOG_UNKNOWN`, `ASSET_*`
 * @example
 * ```ts ignore
 * const { envelope, record } = await modelClaimBasis(facts, { store });
 * ```
 */
export async function modelClaimBasis(
  facts: ModelClaimFacts,
  ctx: { readonly store: AssetStore },
): Promise<ModelClaimBasis> {
  const { ckpt, digests } = facts.checkpoint;
  if (!HEX64.test(facts.fingerprint)) {
    claimInvalid(
      `fingerprint ${
        JSON.stringify(facts.fingerprint.slice(0, 80))
      } is not 64 lowercase hex digits (the SHA-256 of the final-norm rows)`,
    );
  }
  _checkDigests(ckpt.files, digests);
  _count(facts.multiProcessorCount, { what: "SM count", max: 4096 });
  const gpuCount = _count(facts.gpuCount ?? 1, { what: "GPU count", max: 1 << 20 });
  const hardware = await loadGpuProfile(ctx.store, facts.profile);
  const stack = (await loadAsset(ctx.store, { kind: STACK_PROFILES, id: facts.stack })).value;
  if (stack.operators === undefined) {
    claimInvalid(`stack '${stack.id}' runs GEMMs only; a model pass needs a stack with operators`);
  }
  // The verifier recomputes with the stack's pinned versions (and FAILs a record stating others);
  // it reads the components as recorded: the stack's own with the prover's over them.
  const components = { ...stack.components, ...facts.components };
  const { logId, seq, prev } = facts.position;
  const envelope = claimEnvelope(
    { logId, hardware: { profile: hardware.profile.id, count: gpuCount } },
    {
      hardware,
      seq,
      prev,
      stack: stack.id,
      components,
      parallelism: _claimedTopology(facts.parallel),
    },
  );
  // What the audit FAILs a record for from its stated world, SM count and kernel kind, in the
  // verifier's own words, before anything else is read (`recordContradiction`).
  const checks = {
    stack,
    gpu: hardware.profile,
    kernel: facts.kernel,
    multiProcessorCount: facts.multiProcessorCount,
  };
  const contradiction = recordContradiction(envelope, checks);
  if (contradiction !== null) {
    // More ranks than GPUs is most often a missing --gpus: said beside the verifier's words only
    // where that is its reason (enough GPUs would change it), not beside an earlier one.
    const { tp, pp, dp } = envelope.parallelism;
    const ranks = tp * pp * dp;
    const enough = { ...envelope, hardware: { ...envelope.hardware, count: ranks } };
    const gpus = ranks > gpuCount && recordContradiction(enough, checks) !== contradiction;
    claimInvalid(gpus ? `${contradiction}; give --gpus` : contradiction);
  }
  // A component the audit cannot compare (NOT_VERIFIED) is refused too, with what to state.
  const versions = componentMismatch(stack.components, components, hardware.profile);
  if (versions !== null) {
    claimInvalid(
      `${versions.reason}, stack '${stack.id}'${
        versions.advice === undefined ? "" : `: ${versions.advice}`
      }`,
    );
  }
  // A weight file the stack's loader refuses or converts by its metadata (FAIL or NOT_VERIFIED
  // at audit): refused here either way.
  const reading = configReadingGap(ckpt.config, stack.components.transformers) ??
    tiedHeadReadingGap(ckpt, stack) ??
    weightMetadataFinding(stack, ckpt.weightFormats)?.reason ?? vllmDtypeGap(stack, ckpt);
  const vllm = isVllmStack(stack);
  // A record of claims append states one pipeline stage (`claimedParallelism`).
  const refused = stackLoadRefusal(stack, { config: ckpt.config, pp: 1 });
  if (refused !== null) claimInvalid(refused);
  const engine = vllm ? vllmReadingGap(ckpt.config) : null;
  if ((reading ?? engine) !== null) {
    claimInvalid(
      `${reading ?? engine}: stack '${stack.id}' would run another model than this forward`,
    );
  }
  const kernel = await _kernelRef(ctx.store, { kernel: facts.kernel, gpu: hardware });
  const layerChain = facts.layerChain === undefined ? undefined : parseLayerChain(
    facts.layerChain,
    { path: "layer chain", bad: (path, why) => claimInvalid(`'${path}' ${why}`) },
  );
  const layers = ckpt.config.layers;
  if (layerChain !== undefined && layerChain.length !== layers) {
    claimInvalid(
      `the layer chain has ${layerChain.length} entries, the checkpoint ${layers} layers`,
    );
  }
  const parallel = _split(facts.parallel, {
    claimed: envelope.parallelism,
    stack,
    gpu: hardware.profile,
    config: ckpt.config,
  });
  const record: ModelRecordFacts = {
    model: modelRefOf({ ckpt, digests }),
    kernel,
    multiProcessorCount: facts.multiProcessorCount,
    layerChain,
    hidden: ckpt.config.hidden,
    fingerprint: facts.fingerprint,
  };
  return {
    envelope,
    stack,
    record,
    parallel,
    gpu: hardware.profile,
  };
}

/**
 * Validates a built record with the verifier's own parser: whatever the verifier would refuse in
 * the log is refused here, before anything is written.
 *
 * @param record the record a builder made
 * @returns the parsed record
 * @throws {InputError} `CLAIM_INVALID` naming the JSON path the parser refuses
 * @example
 * ```ts ignore
 * return parsedClaim(forwardRecord(basis.envelope, { ... }));
 * ```
 */
export function parsedClaim(record: ClaimRecord): ClaimRecord {
  return parseClaimRecord(JSON.parse(JSON.stringify(record)), `record ${record.predicate.log.seq}`);
}

/**
 * Refuses facts that contradict each other or the record format.
 *
 * @param why what is wrong, as a clause
 * @throws {InputError} always: `CLAIM_INVALID`, "Cannot append claim: <why>"
 * @example
 * ```ts
 * import { claimInvalid } from "./model_claim_basis.ts";
 * let code = "";
 * try { claimInvalid("no positions"); } catch (e) { code = (e as { code: string }).code; }
 * if (code !== "CLAIM_INVALID") throw new Error(code);
 * ```
 */
export function claimInvalid(why: string): never {
  throw new InputError("CLAIM_INVALID", `Cannot append claim: ${why}`);
}

function _checkDigests(files: readonly string[], digests: Readonly<Record<string, string>>): void {
  const names = Object.keys(digests).sort();
  if (names.join("\n") !== [...files].sort().join("\n")) {
    throw new InputError(
      "CHECKPOINT_DIGEST",
      `Cannot append claim: digests are given for ${names.join(", ")}; the checkpoint's weight ` +
        `files are ${files.join(", ")}`,
    );
  }
  for (const n of names) {
    if (!HEX64.test(digests[n]!)) {
      throw new InputError("CHECKPOINT_DIGEST", `Cannot append claim: bad digest of '${n}'`);
    }
  }
}

/**
 * The record's `parallelism` as stated: rank counts in range, and an interconnect only where
 * there are ranks to link (the links, the GPU count and vLLM's expert-parallel sizes are the
 * verifier's record-level checks, `recordContradiction`).
 */
function _claimedTopology(p: ModelClaimFacts["parallel"]): ClaimPredicate["parallelism"] {
  if (p === undefined) return { tp: 1, pp: 1, ep: 1, dp: 1 };
  const tp = _count(p.tp, { what: "tensor-parallel size", max: 64 });
  const ep = p.ep === undefined ? 1 : _count(p.ep, { what: "expert-parallel size", max: 64 });
  if (p.interconnect !== undefined && tp === 1) {
    claimInvalid(`interconnect '${p.interconnect}' stated for one rank (tp=1)`);
  }
  return claimedParallelism({
    tp,
    ...(p.allReduce === undefined ? {} : { allReduce: p.allReduce }),
    ...(ep === 1 ? {} : { ep }),
    ...(p.interconnect === undefined ? {} : { interconnect: p.interconnect }),
  });
}

/**
 * The split the record's topology runs, as the verifier resolves it (`tensorParallelOf`: an
 * all-reduce the stack cannot run, none named at tp above 2), refusing a split the stack's layout
 * can never make of the checkpoint (`stackSplitContradiction`); one the stack does not model is
 * recorded as it ran (undefined: the audit reports it NOT_VERIFIED). Its sizes are the record's
 * (`claimed`, as `_claimedTopology` checked them), its all-reduce the one the facts name.
 */
function _split(
  p: ModelClaimFacts["parallel"],
  o: {
    readonly claimed: ClaimPredicate["parallelism"];
    readonly stack: StackProfile;
    readonly gpu: DispatchGpu;
    readonly config: DecoderConfig;
  },
): TensorParallel | undefined {
  if (p === undefined) return undefined;
  const { tp, ep, interconnect } = o.claimed;
  const r = tensorParallelOf(o.stack, {
    tp,
    ep,
    allReduce: p.allReduce,
    links: { gpu: o.gpu, interconnect },
  });
  if (!r.ok && r.kind === "contradiction") claimInvalid(r.reason);
  const split = stackSplitContradiction(o.stack, { tp, ep, config: o.config });
  if (split !== null) claimInvalid(`the record would contradict its checkpoint: ${split}`);
  return r.ok ? r.parallel : undefined;
}

function _count(n: number, o: { what: string; max: number }): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > o.max) {
    claimInvalid(`${o.what} ${n} is not an integer in 1..${o.max}`);
  }
  return n;
}

async function _kernelRef(
  store: AssetStore,
  o: { kernel: ModelClaimFacts["kernel"]; gpu: { readonly profile: { readonly id: string } } },
): Promise<KernelRef> {
  // Of the kind the stack takes (`recordContradiction` has refused the other kind).
  if ("catalog" in o.kernel) {
    const cat = await loadAsset(store, { kind: DISPATCH_CATALOGS, id: o.kernel.catalog });
    const foreign = catalogGpuMismatch(cat.value, o.gpu.profile.id);
    if (foreign !== null) claimInvalid(foreign);
    return { catalog: cat.value.id, catalogSha256: cat.sha256 };
  }
  const descriptor = o.kernel.recipe;
  // Refuses a descriptor it cannot run, and one named after a bundled recipe it is not.
  await recipeFromDescriptor(store, { json: descriptor, where: "the kernel argument" });
  if (typeof descriptor !== "object" || descriptor === null || Array.isArray(descriptor)) {
    claimInvalid("the recipe descriptor is not a JSON object");
  }
  return { recipe: descriptor as Readonly<Record<string, unknown>> };
}
