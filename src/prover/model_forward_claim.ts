/**
 * A real prover's `model_forward` record: the facts of one forward pass it ran (checkpoint by
 * digests, token batch, stack, GPU profile, SM count, kernel, the fingerprint it computed and
 * optionally its layer chain), checked against the assets and the checkpoint, then built by the
 * same builder as the simulated prover's records (`forwardRecord`) and validated by the parser
 * the verifier uses. A record whose facts contradict each other is refused, never written.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import {
  type ClaimRecord,
  type KernelRef,
  parseClaimRecord,
  parseLayerChain,
} from "../claims/mod.ts";
import { InputError } from "../errors.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { type DecoderCheckpoint, parseTokenBatch, type TokenBatch } from "../model/mod.ts";
import {
  DISPATCH_CATALOGS,
  loadAsset,
  loadGpuProfile,
  recipeFromJson,
  STACK_PROFILES,
} from "../resolve/mod.ts";
import { claimEnvelope } from "./claims_context.ts";
import { forwardRecord } from "./forward_record.ts";
import type { LogPosition } from "./log_position.ts";
import { modelRefOf } from "./scenario_checkpoint.ts";

/** What a prover states about one forward pass. */
export interface ModelForwardFacts {
  /** Where the record goes (`nextLogPosition`). */
  readonly position: LogPosition;
  /** The opened checkpoint and the SHA-256 of each of its weight files, by file name. */
  readonly checkpoint: {
    readonly ckpt: DecoderCheckpoint;
    readonly digests: Readonly<Record<string, string>>;
  };
  /** The batch as parsed JSON: `{"sequences": [[ids...], ...], "padTokenId"?: n}`. */
  readonly tokens: unknown;
  /** Stack profile id (bundled). */
  readonly stack: string;
  /** GPU profile id (bundled). */
  readonly profile: string;
  /** The device's streaming multiprocessor count. */
  readonly multiProcessorCount: number;
  /** The GEMM kernels: a bundled dispatch catalog's id, or a recipe descriptor. */
  readonly kernel: { readonly catalog: string } | { readonly recipe: unknown };
  /** SHA-256 (64 lowercase hex digits) of the final-norm rows at `positions`. */
  readonly fingerprint: string;
  /** The fingerprinted `[sequence, token]` rows (default: each sequence's last token). */
  readonly positions?: readonly (readonly [number, number])[] | undefined;
  /** The per-layer chain as parsed JSON (`[{"attention", "mlp"}, ...]`), if the prover kept one. */
  readonly layerChain?: unknown;
  /** Software versions recorded over the stack profile's own (e.g. from the environment). */
  readonly components?: Readonly<Record<string, string>> | undefined;
  /** GPUs of the machine (default 1). */
  readonly gpuCount?: number | undefined;
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Builds and validates a `model_forward` record from a prover's facts.
 *
 * @param facts the pass's facts and the record's log position
 * @param ctx the asset store the stack, profile and catalog are read from
 * @returns the validated record
 * @throws {InputError} `CLAIM_INVALID` for facts that contradict each other or the record format
 *   (a fingerprint that is not 64 lowercase hex digits, a kernel of the other source than the
 *   stack's, a catalog of another GPU, a stack without operators, positions or a layer chain the
 *   checkpoint cannot have, an SM or GPU count out of range), `TOKENS_INVALID` for a batch the
 *   checkpoint cannot hold (ids outside the vocabulary, a padded batch without `padTokenId`),
 *   `CHECKPOINT_DIGEST` for digests that do not name the checkpoint's weight files,
 *   `RECIPE_INVALID`
 * @throws {AssetError} `STACK_UNKNOWN`, `PROFILE_UNKNOWN`, `CATALOG_UNKNOWN`, `ASSET_*`
 * @example
 * ```ts ignore
 * const record = await modelForwardClaim({ position, checkpoint: { ckpt, digests }, tokens,
 *   stack: "hf-qwen3-flash-attn-torch2.8", profile: "a100", multiProcessorCount: 108,
 *   kernel: { catalog: "demo-qwen3-tiny-a100" }, fingerprint }, { store });
 * ```
 */
export async function modelForwardClaim(
  facts: ModelForwardFacts,
  ctx: { readonly store: AssetStore },
): Promise<ClaimRecord> {
  const { ckpt, digests } = facts.checkpoint;
  const c = ckpt.config;
  if (!HEX64.test(facts.fingerprint)) {
    _bad(
      `fingerprint ${
        JSON.stringify(facts.fingerprint.slice(0, 80))
      } is not 64 lowercase hex digits (the SHA-256 of the final-norm rows)`,
    );
  }
  _checkDigests(ckpt.files, digests);
  _count(facts.multiProcessorCount, { what: "SM count", max: 4096 });
  const gpuCount = _count(facts.gpuCount ?? 1, { what: "GPU count", max: 1 << 20 });
  const batch = parseTokenBatch(facts.tokens, c.vocab);
  const hardware = await loadGpuProfile(ctx.store, facts.profile);
  const stack = (await loadAsset(ctx.store, { kind: STACK_PROFILES, id: facts.stack })).value;
  if (stack.operators === undefined) {
    _bad(`stack '${stack.id}' runs GEMMs only; a forward pass needs a stack with operators`);
  }
  _checkPadding(batch, stack);
  const kernel = await _kernelRef(ctx.store, { kernel: facts.kernel, stack, gpu: hardware });
  const positions = _positions(facts.positions, batch);
  const layerChain = facts.layerChain === undefined ? undefined : parseLayerChain(
    facts.layerChain,
    { path: "layer chain", bad: (path, why) => _bad(`'${path}' ${why}`) },
  );
  if (layerChain !== undefined && layerChain.length !== c.layers) {
    _bad(`the layer chain has ${layerChain.length} entries, the checkpoint ${c.layers} layers`);
  }
  const { logId, seq, prev } = facts.position;
  const record = forwardRecord(
    claimEnvelope({ logId, hardware: { profile: hardware.profile.id, count: gpuCount } }, {
      hardware,
      seq,
      prev,
      stack: stack.id,
      components: { ...stack.components, ...facts.components },
    }),
    {
      model: modelRefOf({ ckpt, digests }),
      sequences: batch.sequences,
      padTokenId: batch.padTokenId,
      kernel,
      multiProcessorCount: facts.multiProcessorCount,
      positions,
      layerChain,
      hidden: c.hidden,
      fingerprint: facts.fingerprint,
    },
  );
  // The verifier's own parser: whatever it would refuse in the log is refused here, before writing.
  return parseClaimRecord(JSON.parse(JSON.stringify(record)), `record ${seq}`);
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

function _count(n: number, o: { what: string; max: number }): number {
  if (!Number.isSafeInteger(n) || n < 1 || n > o.max) {
    _bad(`${o.what} ${n} is not an integer in 1..${o.max}`);
  }
  return n;
}

/** A stack that pads unequal sequences needs the pad token to recompute the pad rows. */
function _checkPadding(batch: TokenBatch, stack: StackProfile): void {
  if ((stack.operators?.batching ?? "pad-to-longest") !== "pad-to-longest") return;
  const lengths = batch.sequences.map((s) => s.length);
  if (batch.padTokenId !== undefined || lengths.every((n) => n === lengths[0])) return;
  throw new InputError(
    "TOKENS_INVALID",
    `Cannot append claim: stack '${stack.id}' pads sequences of ${Math.min(...lengths)} to ` +
      `${Math.max(...lengths)} tokens; the batch must name its padTokenId`,
  );
}

async function _kernelRef(
  store: AssetStore,
  o: {
    kernel: ModelForwardFacts["kernel"];
    stack: StackProfile;
    gpu: { readonly profile: { readonly id: string } };
  },
): Promise<KernelRef> {
  const source = o.stack.gemm.kernelSource;
  if ("catalog" in o.kernel) {
    if (source !== "catalog") {
      _bad(`stack '${o.stack.id}' takes an explicit recipe, not a dispatch catalog`);
    }
    const cat = await loadAsset(store, { kind: DISPATCH_CATALOGS, id: o.kernel.catalog });
    if (cat.value.gpu !== o.gpu.profile.id) {
      _bad(
        `catalog '${cat.value.id}' was captured on '${cat.value.gpu}', not on '${o.gpu.profile.id}'`,
      );
    }
    return { catalog: cat.value.id, catalogSha256: cat.sha256 };
  }
  if (source !== "recipe") {
    _bad(`stack '${o.stack.id}' dispatches through a catalog; give a catalog, not a recipe`);
  }
  const descriptor = o.kernel.recipe;
  recipeFromJson(descriptor, "the kernel argument"); // refuses a descriptor it cannot run
  if (typeof descriptor !== "object" || descriptor === null || Array.isArray(descriptor)) {
    _bad("the recipe descriptor is not a JSON object");
  }
  return { recipe: descriptor as Readonly<Record<string, unknown>> };
}

function _positions(
  given: ModelForwardFacts["positions"],
  batch: TokenBatch,
): readonly (readonly [number, number])[] {
  const seqs = batch.sequences;
  if (given === undefined) return seqs.map((s, i) => [i, s.length - 1] as const);
  if (given.length === 0) _bad("no fingerprinted positions");
  for (const [s, p] of given) {
    const len = seqs[s]?.length;
    if (
      !Number.isSafeInteger(s) || len === undefined || !Number.isSafeInteger(p) || p < 0 || p >= len
    ) {
      _bad(`position [${s}, ${p}] is outside the batch (${seqs.length} sequence(s))`);
    }
  }
  return given;
}

function _bad(why: string): never {
  throw new InputError("CLAIM_INVALID", `Cannot append claim: ${why}`);
}
