/**
 * The `model classes` action: load the profile, stack, dispatch and config, derive the decode
 * batch-size classes, print them.
 *
 * @module
 */
import { type AssetStore, openAssetStore, sha256Hex } from "../../assets/mod.ts";
import { InputError } from "../../errors.ts";
import {
  type ClaimedAllReduce,
  fa2SfuFunctions,
  FULL_GRAPH_DECODE_REASON,
  interconnectContradiction,
  layerSfuFunctions,
  stackOperators,
  type StackProfile,
} from "../../kernels/mod.ts";
import {
  catalogDispatch,
  checkSfuUsage,
  type DecodeClasses,
  decodeClasses,
  type DecoderConfig,
  fixedRecipeDispatch,
  ForwardUnsupported,
  type GemmDispatch,
  lengthFinding,
  orderByPlace,
  rankView,
  signatureEntries,
  type TensorParallel,
} from "../../model/mod.ts";
import {
  allReducePathFinding,
  DISPATCH_CATALOGS,
  type DispatchGpu,
  GPU_PROFILES,
  loadNamedRecipe,
  loadSfuForStack,
  recipeFromDescriptor,
  STACK_PROFILES,
  stackSplitContradiction,
  tensorParallelOf,
} from "../../resolve/mod.ts";
import { catalogGpuMismatch } from "../../verify/mod.ts";
import { EXIT } from "../exit_codes.ts";
import { loadAssetArg } from "../load_asset_arg.ts";
import { kernelFlagsMismatch } from "../kernel_flags_mismatch.ts";
import { printJson, printText, table } from "../output.ts";
import { readJsonFile } from "../read_json_file.ts";
import { readModelConfig } from "../read_model_config.ts";
import { notVerified, smsForRun } from "../sms_flag.ts";

/** Options of {@link runModelClasses} (integers already parsed and bounded). */
export interface ModelClassesOptions {
  /** Stack profile id or file. */
  readonly stack: string;
  /** GPU profile id or file. */
  readonly profile: string;
  /** Dispatch catalog id or file (stacks with catalog kernels). */
  readonly catalog?: string;
  /** Recipe name or file (stacks with recipe kernels). */
  readonly recipe?: string;
  /** config.json path. */
  readonly config: string;
  /** Cached tokens per sequence. */
  readonly context: number;
  /** SM count (default: the profile's known count). */
  readonly sms?: number;
  /** Largest batch size. */
  readonly maxBatch: number;
  /** Machine-readable output. */
  readonly json: boolean;
  /** Tensor-parallel ranks (default 1): the classes are those of one rank's launches. */
  readonly tp?: number;
  /** The ranks' all-reduce. */
  readonly allReduce?: ClaimedAllReduce;
  /** How the ranks' GPUs are linked (default: the stack's setup where the GPU can have it). */
  readonly interconnect?: string;
}

/**
 * Runs `model classes`.
 *
 * @param o the command's options
 * @returns nothing; sets `Deno.exitCode` to 3 when the classes are not complete (a GEMM not
 *   covered, MoE experts, a batch size not derived, vLLM's dispatch leaving the named all-reduce)
 *   or the stack's attention is not modelled
 * @throws {InputError} `USAGE` (kernel flags that do not fit the stack, a catalog of another GPU,
 *   no known SM count, an all-reduce vLLM's dispatch does not take at batch 1 or whose path there
 *   depends on links not stated, an interconnect for one rank or one the GPU cannot have, a
 *   `--tp` the stack's layout cannot split the model over), `CONFIG_*`, `INPUT_*`
 * @throws {AssetError} unknown or invalid profile, stack, catalog or recipe
 * @example
 * ```ts ignore
 * await runModelClasses({ stack, profile: "a100", catalog, config, context: 4095, maxBatch: 256, json: false });
 * ```
 */
export async function runModelClasses(o: ModelClassesOptions): Promise<void> {
  const store = await openAssetStore();
  const profile = await loadAssetArg(store, { kind: GPU_PROFILES, text: o.profile });
  const stack = await loadAssetArg(store, { kind: STACK_PROFILES, text: o.stack });
  const { config, bytes } = await readModelConfig(o.config);
  // A count the chip cannot have is refused here; one the verifier would not vouch for is said
  // with the other reasons below.
  const { count: sms, refused } = smsForRun(profile.value.id, o.sms, "derive classes");
  const kernels = await _dispatch(store, o, { stack: stack.value, gpu: profile.value.id });
  // A split the stack's layout can never make of this model is refused (claims append refuses
  // its records, an audit FAILs them), before any reason the classes are not verified.
  const cannot = stackSplitContradiction(stack.value, { tp: o.tp ?? 1, config });
  if (cannot !== null) throw new InputError("USAGE", `Cannot derive classes: ${cannot}`);
  // A decode step at this context holds context + 1 keys: on vLLM at most max_model_len.
  const length = lengthFinding(config, {
    stack: stack.value,
    prompt: o.context + 1,
    generated: 0,
    held: true,
  });
  if (length?.kind === "contradiction") {
    throw new InputError(
      "USAGE",
      `Cannot derive classes: a decode step at context ${o.context}: ${length.reason}`,
    );
  }
  // MoE experts are noted by the classes themselves (`decodeClasses`), not refused here.
  const support = stackOperators(stack.value, { driver: "serving", moe: false });
  if (!support.supported) {
    return notVerified(support.reason);
  }
  if (support.ops.fullGraphDecode) {
    // Every decode batch up to the largest capture size replays a full graph.
    return notVerified(FULL_GRAPH_DECODE_REASON);
  }
  // The SFU functions every pass uses (norms, SiLU, the standard FA2 launch), at their status on
  // this part: below the stack's minimum no sequence is verified (split-KV passes add LG2, which
  // the serve's own check weighs).
  const attention = support.ops.attention;
  const sfu = checkSfuUsage(await loadSfuForStack(store, stack.value), {
    stack: stack.value,
    functions: [
      "rsqrt",
      "ex2",
      ...layerSfuFunctions(support.ops.layer),
      ...(attention === null || attention.build === null
        ? []
        : fa2SfuFunctions(attention.build, { splits: 1 })),
    ],
    computeCapability: profile.value.computeCapability,
  });
  if (!sfu.ok) return notVerified(sfu.reason);
  if (refused !== null) return notVerified(refused);
  if (length?.kind === "unmodelled") {
    return notVerified(`stack '${stack.value.id}': ${length.reason}`);
  }
  if (o.interconnect !== undefined && (o.tp ?? 1) === 1) {
    throw new InputError("USAGE", "Cannot derive classes: --interconnect is for --tp above 1");
  }
  const links = interconnectContradiction(profile.value, {
    interconnect: o.interconnect,
    worldSize: o.tp ?? 1,
  });
  if (links !== null) throw new InputError("USAGE", `Cannot derive classes: ${links}`);
  const split = tensorParallelOf(stack.value, {
    tp: o.tp ?? 1,
    ep: 1,
    allReduce: o.allReduce,
    links: { gpu: profile.value, interconnect: o.interconnect },
  });
  if (!split.ok && split.kind === "contradiction") {
    throw new InputError("USAGE", `Cannot derive classes: ${split.reason}`);
  }
  // A named all-reduce holds only for the batch sizes whose messages vLLM's dispatch sends down
  // it (an audit FAILs a record naming it elsewhere): the classes stop where the path changes,
  // and an all-reduce the dispatch does not take at batch 1 is refused as claims append refuses it.
  const leaves = split.ok
    ? _dispatchLeaves(stack.value, {
      gpu: profile.value,
      interconnect: o.interconnect,
      parallel: split.parallel,
      hidden: config.hidden,
      named: o.allReduce !== undefined,
      maxBatch: o.maxBatch,
    })
    : null;
  if (leaves?.batch === 1) throw new InputError("USAGE", `Cannot derive classes: ${leaves.reason}`);
  let rank: DecoderConfig;
  try {
    if (!split.ok) throw new ForwardUnsupported(split.reason);
    if (split.parallel !== undefined && orderByPlace(split.parallel)) {
      throw new ForwardUnsupported(
        `all-reduce '${split.parallel.allReduce.kind}' at tp=${split.parallel.size} orders ` +
          "additions by an element's place in the message, so a sequence's bits depend on its " +
          "row and the batch size: classes are not derived for it",
      );
    }
    rank = rankView(config, split.parallel);
  } catch (e) {
    if (!(e instanceof ForwardUnsupported)) throw e;
    return notVerified(e.reason);
  }
  // The remaining all-reduces (tree, one-stage, two-shot, or any at two ranks) add every element
  // in the same order whatever the batch: a rank's classes are its launches'.
  const r = decodeClasses(rank, {
    dispatch: kernels.dispatch,
    reduceStack: support.ops.reduceStack,
    layer: support.ops.layer,
    captureSizes: support.ops.captureSizes,
    lmHeadRows: _lmHeadRows(config.vocab, {
      padding: support.ops.layer.vocabPadding,
      ranks: split.ok ? split.parallel?.size ?? 1 : 1,
    }),
    multiProcessorCount: sms,
    context: o.context,
    maxBatch: o.maxBatch,
    stopAt: leaves ?? undefined,
  });
  const inputs = {
    profile: { id: profile.value.id, source: profile.source, sha256: profile.sha256 },
    stack: { id: stack.value.id, source: stack.source, sha256: stack.sha256 },
    [kernels.kind]: kernels.input,
    config: { source: o.config, sha256: sha256Hex(bytes) },
    multiProcessorCount: sms,
    ...(split.parallel === undefined ? {} : {
      parallelism: {
        tp: split.parallel.size,
        layout: split.parallel.layout.id,
        allReduce: split.parallel.allReduce,
      },
    }),
  };
  if (o.json) printJson({ model: _model(config), inputs, ...r });
  else {
    const names = { profile: profile.value.id, stack: stack.value.id, kernels: kernels.input.id };
    _print(r, { config, ...names });
  }
  if (!r.complete) Deno.exitCode = EXIT.INCONCLUSIVE;
}

/**
 * The first decode batch size whose all-reduce message vLLM's dispatch sends down another path
 * than the named all-reduce, or down a path the links leave open (`allReducePathFinding`, one
 * message of the batch's padded rows times the hidden size), and why; null when every batch up
 * to `maxBatch` takes it, none is named, or the stack states no dispatch.
 */
function _dispatchLeaves(
  stack: StackProfile,
  o: {
    readonly gpu: DispatchGpu;
    readonly interconnect: string | undefined;
    readonly parallel: TensorParallel | undefined;
    readonly hidden: number;
    readonly named: boolean;
    readonly maxBatch: number;
  },
): { batch: number; reason: string } | null {
  if (o.parallel === undefined || !o.named || stack.operators?.allReduceSetup === undefined) {
    return null;
  }
  for (let batch = 1; batch <= o.maxBatch; batch++) {
    // The all-reduce comes from --all-reduce here, not from a record.
    const found = allReducePathFinding(stack, { ...o, passRows: [batch], subject: "--all-reduce" });
    if (found !== null) {
      return {
        batch,
        reason: `${found.reason}${found.kind === "open" ? " (--interconnect)" : ""}`,
      };
    }
  }
  return null;
}

/**
 * A rank's LM head rows: the vocabulary padded to the stack's multiple, split over the ranks.
 *
 * @param vocab the vocabulary
 * @param o the stack's padding and the rank count
 * @returns the rows
 */
function _lmHeadRows(vocab: number, o: { padding: number; ranks: number }): number {
  return Math.ceil(vocab / o.padding) * o.padding / o.ranks;
}

/** The dispatch the stack's kernel source and the flags name. */
async function _dispatch(
  store: AssetStore,
  o: ModelClassesOptions,
  s: { stack: { id: string; gemm: { kernelSource: "recipe" | "catalog" } }; gpu: string },
): Promise<{ dispatch: GemmDispatch; kind: "catalog" | "recipe"; input: { id: string } }> {
  const why = kernelFlagsMismatch(s.stack, {
    catalog: o.catalog,
    recipe: o.recipe,
    catalogFlag: "--catalog",
    recipeDefault: false,
  });
  if (why !== null) throw new InputError("USAGE", `Cannot derive classes: ${why}`);
  if (o.catalog !== undefined) {
    const c = await loadAssetArg(store, { kind: DISPATCH_CATALOGS, text: o.catalog });
    // The question the verifier and claims append ask of a record's catalog.
    const foreign = catalogGpuMismatch(c.value, s.gpu);
    if (foreign !== null) throw new InputError("USAGE", `Cannot derive classes: ${foreign}`);
    const input = { id: c.value.id, source: c.source, sha256: c.sha256 };
    return { dispatch: catalogDispatch(c.value), kind: "catalog", input };
  }
  const text = o.recipe!;
  const r = text.endsWith(".json")
    ? {
      recipe: await recipeFromDescriptor(store, {
        json: await readJsonFile(text, 1 << 20),
        where: text,
      }),
      sha256: null,
      path: text,
    }
    : await loadNamedRecipe(store, text);
  const input = { id: text, source: r.path, sha256: r.sha256 };
  return { dispatch: fixedRecipeDispatch(r.recipe), kind: "recipe", input };
}

function _model(c: DecoderConfig) {
  const { modelType, layers, hidden, heads, kvHeads, headDim, intermediate, vocab } = c;
  return { modelType, layers, hidden, heads, kvHeads, headDim, intermediate, vocab };
}

function _print(
  r: DecodeClasses,
  o: { config: DecoderConfig; profile: string; stack: string; kernels: string },
): void {
  const c = o.config;
  const first = r.classes[0];
  printText(
    `decode classes of ${c.modelType} (${c.layers} layers, hidden ${c.hidden}, heads ` +
      `${c.heads}/${c.kvHeads}, vocab ${c.vocab}), context ${r.context} (key length ` +
      `${r.context + 1})`,
  );
  printText(
    `profile ${o.profile} (${r.multiProcessorCount} SMs), stack ${o.stack}, kernels ${o.kernels}`,
  );
  if (r.padding !== null) printText(r.padding);
  if (first !== undefined) {
    printText(`signature at batch 1:`);
    const rows = signatureEntries(first.signature).map((e) => [`  ${e.label}`, e.shape, e.value]);
    for (const line of table(rows).split("\n")) printText(line);
  }
  printText(`${r.classes.length} classes for batch 1..${r.lastBatch}:`);
  const rows = [["  batch", "changes from the previous class"]];
  for (const k of r.classes) {
    const range = k.from === k.to ? `${k.from}` : `${k.from}..${k.to}`;
    const changes = k.changes.length === 0 ? ["-"] : k.changes;
    changes.forEach((ch, i) => rows.push([i === 0 ? `  ${range}` : "", ch]));
  }
  for (const line of table(rows).split("\n")) printText(line);
  if (r.notes.length > 0) {
    printText("not complete:");
    for (const n of r.notes) printText(`  - ${n}`);
  }
}
