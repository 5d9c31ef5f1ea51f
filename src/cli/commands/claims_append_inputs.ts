/**
 * The flags every `claims append` of a model record shares, and what is read from them before
 * the log is locked: the GEMM kernel (`--kernel <catalog>` or `--recipe`), the SM count
 * (`--sms`, default the profile's known count) and the layer chain file.
 *
 * @module
 */
import type { ClaimedAllReduce } from "../../kernels/mod.ts";
import type { AssetStore } from "../../assets/mod.ts";
import { InputError } from "../../errors.ts";
import type { ModelClaimFacts } from "../../prover/mod.ts";
import { loadAsset, RECIPES, STACK_PROFILES } from "../../resolve/mod.ts";
import { readJsonFile } from "../read_json_file.ts";
import { KNOWN_SM_COUNTS } from "../../hardware/mod.ts";

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
  /** Tensor-parallel ranks of the pass and the all-reduce they ran (default one GPU). */
  readonly parallel?:
    | { readonly tp: number; readonly allReduce?: ClaimedAllReduce; readonly ep?: number }
    | undefined;
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
 *   one, no known SM count), the codes of `readJsonFile`
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
  readonly chainPositions: readonly (readonly [number, number])[] | undefined;
}> {
  const chainFile = o.layerChain === undefined ? undefined : await readJsonFile(o.layerChain);
  return {
    kernel: await _kernel(store, o),
    sms: o.sms ?? KNOWN_SM_COUNTS[o.profile] ?? _noSms(o.profile),
    layerChain: chainFile === undefined ? undefined : _chain(chainFile),
    chainPositions: chainFile === undefined ? undefined : _chainPositions(chainFile),
  };
}

/**
 * The rows a `model forward --json` output computed its chain over: its `positions`, or, from
 * output that lists none, each sequence's last token (`sequences`); undefined for a bare chain.
 */
function _chainPositions(json: unknown): (readonly [number, number])[] | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const f = json as { positions?: unknown; sequences?: unknown };
  const pair = (x: unknown): readonly [number, number] | null =>
    Array.isArray(x) && x.length === 2 && x.every(Number.isSafeInteger)
      ? [x[0] as number, x[1] as number]
      : null;
  if (Array.isArray(f.positions)) {
    const pairs = f.positions.map(pair);
    return pairs.every((p) => p !== null) ? pairs as [number, number][] : undefined;
  }
  if (Array.isArray(f.sequences)) {
    const pairs = f.sequences.map((s) =>
      pair([(s as { seq?: unknown })?.seq, (s as { pos?: unknown })?.pos])
    );
    return pairs.every((p) => p !== null) ? pairs as [number, number][] : undefined;
  }
  return undefined;
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
  if (recipe.endsWith(".json")) return { recipe: await readJsonFile(recipe, 1 << 20) };
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
