/**
 * The flags every `claims append` of a model record shares, and what is read from them before
 * the log is locked: the GEMM kernel (`--kernel <catalog>` or `--recipe`), the SM count
 * (`--sms`, default the profile's known count) and the layer chain file.
 *
 * @module
 */
import type { AssetStore } from "../../assets/mod.ts";
import { InputError } from "../../errors.ts";
import type { ModelClaimFacts, ScenarioParallel } from "../../prover/mod.ts";
import { loadAsset, recipeFromDescriptor, RECIPES, STACK_PROFILES } from "../../resolve/mod.ts";
import { readJsonFile } from "../read_json_file.ts";
import { knownSmCount } from "../../hardware/mod.ts";

/**
 * Largest `--tokens` or `--layer-chain` file: a record holds at most 65,536 tokens (ids below
 * 2^24) and as many positions; the largest such file, `model forward --json` output with 65,536
 * positions pretty-printed, 4,096 sequences and a 1,024-layer chain, is about 3.5 MB. A file is
 * parsed whole before its counts are checked, so a larger one is refused unread (a 64 MiB token
 * list took 3 GB).
 */
export const MODEL_INPUT_MAX_BYTES = 8 * 1024 * 1024;
/** What every `claims append` of a model record is given. */
export interface AppendModelOptions {
  /** The claim log (created when missing). */
  readonly log: string;
  /** The id of a new log (checked against an existing log's). */
  readonly logId?: string | undefined;
  /** The checkpoint folder (config.json and the weights). */
  readonly checkpoint: string;
  /** Stack profile id. */
  readonly stack: string;
  /** GPU profile id. */
  readonly profile: string;
  /** SM count (default: the profile's known count). */
  readonly sms?: number | undefined;
  /** Dispatch catalog id (stacks with catalog kernels). */
  readonly catalog?: string | undefined;
  /** Recipe name or descriptor file (stacks with recipe kernels). */
  readonly recipe?: string | undefined;
  /** The fingerprint the prover computed. */
  readonly fingerprint: string;
  /** Layer chain file. */
  readonly layerChain?: string | undefined;
  /** Software versions over the stack profile's. */
  readonly components?: Readonly<Record<string, string>> | undefined;
  /** GPUs of the machine. */
  readonly gpus?: number | undefined;
  /**
   * Tensor-parallel ranks of the pass, the all-reduce they ran and how their GPUs are linked
   * (default one GPU).
   */
  readonly parallel?: ScenarioParallel | undefined;
}

/** Default recipe of stacks with recipe kernels (as `model forward`). */
export const DEFAULT_RECIPE = "cutlass-kwalk-128x128x64";

/**
 * Reads the kernel, SM count and layer chain a model record's flags name.
 *
 * @param store the asset store (stacks, recipes)
 * @param o the flags
 * @returns the kernel (catalog id or recipe descriptor), the SM count and the parsed chain JSON
 * @throws {InputError} `USAGE` (both or neither of `--kernel` and `--recipe` where the stack needs
 *   one, no known SM count), `RECIPE_INVALID` (a recipe file that is no recipe, or is named after
 *   a bundled recipe it is not), the codes of `readJsonFile`
 * @throws {AssetError} unknown stack or recipe
 * @example
 * ```ts ignore
 * const { kernel, sms, layerChain } = await readModelInputs(store, o);
 * ```
 */
export async function readModelInputs(
  store: AssetStore,
  o: AppendModelOptions,
): Promise<{
  readonly kernel: ModelClaimFacts["kernel"];
  readonly sms: number;
  readonly layerChain: unknown;
  readonly chainFacts: ChainFacts | undefined;
}> {
  const chainFile = o.layerChain === undefined
    ? undefined
    : await readJsonFile(o.layerChain, MODEL_INPUT_MAX_BYTES);
  return {
    kernel: await _kernel(store, o),
    sms: o.sms ?? knownSmCount(o.profile) ?? _noSms(o.profile),
    layerChain: chainFile === undefined ? undefined : _chain(chainFile),
    chainFacts: chainFile === undefined ? undefined : _chainFacts(chainFile),
  };
}

/**
 * What a `model forward --json` output computed its layer chain for: the rows (its `positions`,
 * or, from output that lists none, each sequence's last token), the batch's sequence lengths, the
 * GPU profile and SM count, the stack, the checkpoint and the split, and the fingerprint it
 * computed with the chain; a bare chain carries none of them.
 */
export interface ChainFacts {
  /** The fingerprinted rows. */
  readonly positions?: readonly (readonly [number, number])[];
  /** Tokens of each sequence of the batch (from its `sequences`: each last token's position). */
  readonly lengths?: readonly number[];
  /** GPU profile id. */
  readonly profile?: string;
  /** `multiProcessorCount`. */
  readonly sms?: number;
  /** Stack profile id. */
  readonly stack?: string;
  /** The checkpoint's digest. */
  readonly checkpointSha256?: string;
  /** The fingerprint of the rows, computed in the same pass as the chain. */
  readonly fingerprint?: string;
  /** SHA-256 of the batch's canonical JSON (`{sequences, padTokenId?}`), as a record states it. */
  readonly tokensSha256?: string;
  /** The GEMM kernel as a record states it (`{catalog, catalogSha256}` or `{recipe}`). */
  readonly kernel?: unknown;
  /**
   * The split: ranks, expert-parallel ranks (absent from output that does not record them), the
   * all-reduce as computed, the interconnect (null: the stack's).
   */
  readonly parallelism?: {
    readonly tp: number;
    readonly ep?: number;
    readonly allReduce: unknown;
    readonly interconnect: string | null;
  };
}

function _chainFacts(json: unknown): ChainFacts | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const f = json as {
    positions?: unknown;
    sequences?: unknown;
    profile?: { id?: unknown; multiProcessorCount?: unknown };
    stack?: unknown;
    checkpoint?: { sha256?: unknown };
    fingerprint?: unknown;
    tokensSha256?: unknown;
    kernel?: unknown;
    parallelism?: { tp?: unknown; ep?: unknown; allReduce?: unknown; interconnect?: unknown };
  };
  const pair = (x: unknown): readonly [number, number] | null =>
    Array.isArray(x) && x.length === 2 && x.every(Number.isSafeInteger)
      ? [x[0] as number, x[1] as number]
      : null;
  const pairs = (list: unknown[]) => {
    const all = list.map(pair);
    return all.every((p) => p !== null) ? all as [number, number][] : undefined;
  };
  const lasts = Array.isArray(f.sequences)
    ? pairs(f.sequences.map((s) => [(s as { seq?: unknown })?.seq, (s as { pos?: unknown })?.pos]))
    : undefined;
  const positions = Array.isArray(f.positions) ? pairs(f.positions) : lasts;
  const text = (v: unknown) => typeof v === "string" ? v : undefined;
  const out: { -readonly [K in keyof ChainFacts]: ChainFacts[K] } = {};
  if (positions !== undefined) out.positions = positions;
  if (lasts !== undefined) out.lengths = lasts.map(([, pos]) => pos + 1);
  const profile = text(f.profile?.id);
  if (profile !== undefined) out.profile = profile;
  const sms = f.profile?.multiProcessorCount;
  if (Number.isSafeInteger(sms)) out.sms = sms as number;
  const stack = text(f.stack);
  if (stack !== undefined) out.stack = stack;
  const checkpointSha256 = text(f.checkpoint?.sha256);
  if (checkpointSha256 !== undefined) out.checkpointSha256 = checkpointSha256;
  const fingerprint = text(f.fingerprint);
  if (fingerprint !== undefined) out.fingerprint = fingerprint;
  const tokensSha256 = text(f.tokensSha256);
  if (tokensSha256 !== undefined) out.tokensSha256 = tokensSha256;
  if (typeof f.kernel === "object" && f.kernel !== null) out.kernel = f.kernel;
  const tp = f.parallelism?.tp;
  if (Number.isSafeInteger(tp)) {
    const ep = f.parallelism?.ep;
    out.parallelism = {
      tp: tp as number,
      ...(Number.isSafeInteger(ep) ? { ep: ep as number } : {}),
      allReduce: f.parallelism?.allReduce,
      interconnect: text(f.parallelism?.interconnect) ?? null,
    };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

async function _kernel(
  store: AssetStore,
  o: AppendModelOptions,
): Promise<ModelClaimFacts["kernel"]> {
  if (o.catalog !== undefined && o.recipe !== undefined) {
    throw new InputError("USAGE", "Cannot append claim: give --kernel or --recipe, not both");
  }
  if (o.catalog !== undefined) return { catalog: o.catalog };
  let recipe = o.recipe;
  if (recipe === undefined) {
    const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: o.stack })).value;
    if (stack.gemm.kernelSource === "catalog") {
      throw new InputError(
        "USAGE",
        `Cannot append claim: stack '${stack.id}' needs --kernel <catalog>`,
      );
    }
    recipe = DEFAULT_RECIPE;
  }
  if (recipe.endsWith(".json")) {
    const json = await readJsonFile(recipe, 1 << 20);
    // Refused here, naming the file, before the log is touched (the claim basis checks it again).
    await recipeFromDescriptor(store, { json, where: recipe });
    return { recipe: json };
  }
  return { recipe: (await loadAsset(store, { kind: RECIPES, id: recipe })).value };
}

function _noSms(profile: string): never {
  throw new InputError(
    "USAGE",
    `Cannot append claim: no known SM count for '${profile}'; give --sms`,
  );
}

/**
 * A layer chain file: the chain itself, or `model forward --json` output holding it (a prover's
 * own output with a `layerChain` field, e.g. a served sequence's, reads the same way).
 */
function _chain(json: unknown): unknown {
  if (typeof json === "object" && json !== null && !Array.isArray(json) && "layerChain" in json) {
    return (json as { layerChain: unknown }).layerChain;
  }
  return json;
}
