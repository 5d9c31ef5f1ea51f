/**
 * The `model forward` action: open the checkpoint and the assets, build the runtime the stack
 * names, run the forward pass and write `hidden`.
 *
 * @module
 */
import { openAssetStore } from "../../assets/mod.ts";
import { canonicalJson } from "../../claims/mod.ts";
import { sha256Hex } from "../../sha256_hex.ts";
import { digestFilesInWorker } from "../digest_files_in_worker.ts";
import { InputError } from "../../errors.ts";
import {
  batchPaddingMismatch,
  digestOfFiles,
  encodeSafetensors,
  fingerprintOf,
  lengthFinding,
  parseTokenBatch,
  rowBytes,
  runPrefillForward,
  stackLoadRefusal,
  weightMetadataFinding,
} from "../../model/mod.ts";
import { createGemmWalker } from "../../engine/mod.ts";
import {
  allReducePathFinding,
  DISPATCH_CATALOGS,
  loadAsset,
  loadGemmEngine,
  loadGpuProfile,
  loadNamedRecipe,
  modelRuntime,
  openCheckpointDir,
  RECIPES,
  type RuntimeKernel,
  STACK_PROFILES,
  stackSplitContradiction,
  tensorParallelOf,
} from "../../resolve/mod.ts";
import { type ClaimedAllReduce, interconnectContradiction } from "../../kernels/mod.ts";
import { notVerified, smsForRun } from "../sms_flag.ts";
import {
  forwardActivation,
  forwardSupportReason,
  MAX_RECOMPUTE_ELEMENTS,
  stackHardwareContradiction,
} from "../../verify/mod.ts";
import { printJson, printText } from "../output.ts";
import { MODEL_INPUT_MAX_BYTES } from "./claims_append_inputs.ts";
import { readJsonFile } from "../read_json_file.ts";
import { readModelConfig } from "../read_model_config.ts";
import { writeNewFile } from "../write_new_file.ts";
import { kernelFlagsMismatch } from "../kernel_flags_mismatch.ts";

/**
 * Runs `model forward`.
 *
 * @param o the command's options
 * @returns nothing; sets `Deno.exitCode` (3 when the configuration cannot be emulated)
 * @throws {InputError} on unusable inputs (checkpoint, tokens, profile, stack, output exists;
 *   `USAGE` for a stack that cannot run on the profile's GPU, or a `--tp` its layout cannot split
 *   the checkpoint over; `TOKENS_INVALID` for a sequence longer than the stack serves of the
 *   checkpoint)
 * @example
 * ```ts ignore
 * await runModelForward({ checkpoint, tokens, profile: "a100", stack, out, json: true });
 * ```
 */
export async function runModelForward(o: {
  checkpoint: string;
  tokens: string;
  profile: string;
  stack: string;
  out: string;
  json: boolean;
  sms?: number;
  catalog?: string;
  recipe?: string;
  threads?: number;
  /** Tensor-parallel ranks (default 1). */
  tp?: number;
  /** Expert-parallel ranks (default 1). */
  ep?: number;
  /** The ranks' all-reduce (default at tp = 2: any, all agree). */
  allReduce?: ClaimedAllReduce;
  /** How the ranks' GPUs are linked (vLLM's dispatch; default: the stack's stated setup). */
  interconnect?: string;
  /** Fingerprinted `[sequence, token]` rows (default: each sequence's last token). */
  positions?: readonly (readonly [number, number])[];
}): Promise<void> {
  const store = await openAssetStore();
  const { profile, sha256: profileSha256 } = await loadGpuProfile(store, o.profile);
  const stack = (await loadAsset(store, { kind: STACK_PROFILES, id: o.stack })).value;
  // A run the audit would FAIL as contradicting its stack is refused, before any NOT_VERIFIED
  // (which must not hide it).
  const off = stackHardwareContradiction(stack, profile);
  if (off !== null) {
    throw new InputError("USAGE", `Cannot run forward: a record of it would contradict its ${off}`);
  }
  const { count: sms, refused } = smsForRun(profile.id, o.sms, "run forward");
  // Computable, but an audit would not vouch for it: said as the verifier would.
  if (refused !== null) return notVerified(refused);
  // As claims append and model classes refuse them: a flag of the kind the stack does not take
  // would be left unread.
  const kernelWhy = kernelFlagsMismatch(stack, {
    catalog: o.catalog,
    recipe: o.recipe,
    catalogFlag: "--kernel",
    recipeDefault: true,
  });
  if (kernelWhy !== null) throw new InputError("USAGE", `Cannot run forward: ${kernelWhy}`);
  let kernel: RuntimeKernel;
  // The kernel as a record states it (`claims append` holds a layer chain to it).
  let kernelRef: Readonly<Record<string, unknown>>;
  if (o.catalog !== undefined) {
    const cat = await loadAsset(store, { kind: DISPATCH_CATALOGS, id: o.catalog });
    kernel = { catalog: cat.value };
    kernelRef = { catalog: cat.value.id, catalogSha256: cat.sha256 };
  } else {
    const name = o.recipe ?? "cutlass-kwalk-128x128x64";
    kernel = { recipe: (await loadNamedRecipe(store, name)).recipe };
    kernelRef = { recipe: (await loadAsset(store, { kind: RECIPES, id: name })).value };
  }
  if (o.interconnect !== undefined && (o.tp ?? 1) === 1) {
    throw new InputError("USAGE", "Cannot run forward: --interconnect is for --tp above 1");
  }
  // Links the GPU part cannot have: an audit FAILs the record as contradicting its hardware.
  const links = interconnectContradiction(profile, {
    interconnect: o.interconnect,
    worldSize: o.tp ?? 1,
  });
  if (links !== null) {
    throw new InputError(
      "USAGE",
      `Cannot run forward: a record of it would contradict its hardware: ${links}`,
    );
  }
  const split = tensorParallelOf(stack, {
    tp: o.tp ?? 1,
    ep: o.ep ?? 1,
    allReduce: o.allReduce,
    links: { gpu: profile, interconnect: o.interconnect },
  });
  if (!split.ok && split.kind === "contradiction") {
    throw new InputError(
      "USAGE",
      `Cannot run forward: ${split.reason}${
        o.allReduce === undefined ? "; give --all-reduce" : ""
      }`,
    );
  }
  // Weights are read onto shared memory, which the GEMM workers read in place; a layer's buffers
  // are reused for a later layer's weights once it is done.
  using opened = await _openForStack(o.checkpoint, stack);
  const { ckpt } = opened;
  const batch = parseTokenBatch(
    await readJsonFile(o.tokens, MODEL_INPUT_MAX_BYTES),
    ckpt.config.vocab,
  );
  // As claims append refuses it (and an audit FAILs it): a split the stack's layout can never
  // make of this checkpoint, before the reason a split is not modelled.
  const cannot = stackSplitContradiction(stack, {
    tp: o.tp ?? 1,
    ep: o.ep ?? 1,
    config: ckpt.config,
  });
  if (cannot !== null) throw new InputError("USAGE", `Cannot run forward: ${cannot}`);
  // As claims append refuses it (and an audit FAILs it): a config the stack's engine does not
  // load (a float where Transformers 5's typed config takes an int, a vLLM stage without its
  // layer kind).
  const unloadable = stackLoadRefusal(stack, { config: ckpt.config, pp: 1 });
  if (unloadable !== null) throw new InputError("USAGE", `Cannot run forward: ${unloadable}`);
  // As claims append refuses it (and an audit FAILs it): a sequence longer than the stack's
  // engine serves of this checkpoint (vLLM's max_model_len).
  const length = lengthFinding(ckpt.config, {
    stack,
    prompt: Math.max(...batch.sequences.map((s) => s.length)),
    generated: 0,
  });
  if (length?.kind === "contradiction") {
    throw new InputError("TOKENS_INVALID", `Cannot run forward: ${length.reason}`);
  }
  if (!split.ok) {
    return notVerified(split.reason);
  }
  const parallel = split.parallel;
  // As claims append refuses it: a batch that does not fit how the stack batches.
  const padding = batchPaddingMismatch(batch, stack.operators?.batching);
  if (padding !== null) {
    throw new InputError("TOKENS_INVALID", `Cannot run forward: stack '${stack.id}' ${padding}`);
  }
  // The audit's bound on the padded activation, before the batch's layout allocates it.
  const [rows, widest] = forwardActivation(ckpt.config, {
    lens: batch.sequences.map((s) => s.length),
    stack,
  });
  if (rows * widest > MAX_RECOMPUTE_ELEMENTS) {
    throw new InputError(
      "TOKENS_INVALID",
      `Cannot run forward: the batch's activation [${rows}, ${widest}] (${batch.sequences.length} ` +
        "sequences padded to the longest) is over the verifier's limit of 2^28 elements",
    );
  }
  const positions = o.positions ?? batch.sequences.map((s, seq) => [seq, s.length - 1] as const);
  // Each sequence's last token among them, as a record needs (claims append refuses it else).
  batch.sequences.forEach((s, seq) => {
    if (!positions.some(([q, p]) => q === seq && p === s.length - 1)) {
      throw new InputError(
        "USAGE",
        `Cannot run forward: --positions must include ${seq}:${s.length - 1}, the last token of ` +
          `sequence ${seq}`,
      );
    }
  });
  for (const [seq, pos] of positions) {
    const length = batch.sequences[seq]?.length;
    if (length === undefined || pos >= length) {
      throw new InputError(
        "USAGE",
        `Cannot run forward: position ${seq}:${pos} is not a token of the batch (${
          length === undefined
            ? `${batch.sequences.length} sequence(s)`
            : `sequence ${seq} has ${length} tokens`
        })`,
      );
    }
  }
  // As claims append refuses it: an all-reduce the stack's dispatch does not take for this pass
  // (its flattened tokens), a vllm-dispatch that sends it to NCCL without NCCL settings, or a
  // path that depends on links --interconnect does not state.
  const dispatch = allReducePathFinding(stack, {
    gpu: profile,
    parallel,
    hidden: ckpt.config.hidden,
    passRows: [batch.sequences.reduce((a, s) => a + s.length, 0)],
    named: o.allReduce !== undefined,
    interconnect: o.interconnect,
  });
  if (dispatch !== null) {
    throw new InputError(
      "USAGE",
      `Cannot run forward: ${dispatch.reason}${
        dispatch.kind === "open" ? " (--interconnect)" : ""
      }`,
    );
  }
  // What an audit of this pass would call NOT_VERIFIED is said before it runs, with its reason.
  const meta = weightMetadataFinding(stack, ckpt.weightFormats);
  if (meta?.kind === "contradiction") {
    throw new InputError("SAFETENSORS_METADATA", `Cannot run forward: ${meta.reason}`);
  }
  const unsupported = forwardSupportReason(ckpt.config, { profile, stack }) ??
    (length === null ? null : `stack '${stack.id}': ${length.reason}`) ??
    (meta === null ? null : `stack '${stack.id}': ${meta.reason}`);
  if (unsupported !== null) {
    return notVerified(unsupported);
  }
  // The calling thread runs the operators between GEMMs while `threads` workers walk them.
  const w = createGemmWalker(await loadGemmEngine(store), {
    callerWalks: false,
    ...(o.threads === undefined ? {} : { threads: o.threads }),
  });
  // The weights digest runs on its own thread while the forward computes.
  using digest = digestFilesInWorker(o.checkpoint, ckpt.files);
  try {
    const runtime = await modelRuntime(store, {
      profile,
      stack,
      kernel,
      walker: w.walker,
      attention: w.attention,
    });
    const r = await runPrefillForward(ckpt, {
      sequences: batch.sequences,
      runtime,
      multiProcessorCount: sms,
      releaseTensor: opened.releaseTensor,
      parallel,
      positions: positions.map(([seq, pos]) => ({ seq, pos })),
      ...(batch.padTokenId === undefined ? {} : { padTokenId: batch.padTokenId }),
    });
    if (!r.supported) {
      return notVerified(r.reason);
    }
    const res = r.result;
    const h = ckpt.config.hidden;
    // Before the output is written: a failed digest leaves nothing behind.
    const fileDigests = await digest.files;
    await writeNewFile(
      o.out,
      encodeSafetensors([{
        name: "hidden",
        dtype: "BF16",
        shape: [res.hidden.length / h, h],
        data: res.hidden,
      }]),
    );
    const checkpoint = { sha256: digestOfFiles(fileDigests), files: fileDigests };
    const total = res.hidden.length / h;
    const lasts = batch.sequences.map((s, i) => ({
      seq: i,
      pos: s.length - 1,
      fingerprint: fingerprintOf(
        rowBytes(res.hidden, {
          rows: [batch.sequences.slice(0, i + 1).reduce((a, x) => a + x.length, 0) - 1],
          width: h,
        }),
      ),
    }));
    const summary = {
      checkpoint: { ...checkpoint, configSha256: ckpt.configSha256 },
      profile: { id: profile.id, sha256: profileSha256, multiProcessorCount: sms },
      stack: stack.id,
      parallelism: {
        tp: parallel?.size ?? 1,
        ep: o.ep ?? 1,
        ...(parallel === undefined
          ? {}
          : { layout: parallel.layout.id, allReduce: parallel.allReduce }),
        ...(o.interconnect === undefined ? {} : { interconnect: o.interconnect }),
      },
      engine: w.engine,
      threads: w.threads,
      rows: res.layout.rows,
      tokens: total,
      // The batch as a record states it, by digest (`claims append` holds a chain to it).
      tokensSha256: sha256Hex(
        canonicalJson({
          sequences: batch.sequences,
          ...(batch.padTokenId === undefined ? {} : { padTokenId: batch.padTokenId }),
        }),
      ),
      kernel: kernelRef,
      fingerprint: res.fingerprint,
      positions,
      sequences: lasts,
      layerChain: res.layerChain,
      sfu: res.sfu,
      out: o.out,
    };
    if (o.json) printJson(summary);
    else {
      printText(
        `checkpoint ${checkpoint.sha256} (${ckpt.config.modelType}, ${ckpt.config.layers} layers)`,
      );
      printText(
        `batch: ${batch.sequences.length} sequence(s), ${total} tokens, ${res.layout.rows} GEMM rows`,
      );
      if (parallel !== undefined) {
        printText(
          `tensor parallel: ${parallel.size} ranks (${parallel.layout.id}), all-reduce ` +
            `${parallel.allReduce.kind}` +
            (parallel.expertParallel === true ? ", experts split over the ranks" : ""),
        );
      }
      for (const s of lasts) printText(`sequence ${s.seq} token ${s.pos}: ${s.fingerprint}`);
      printText(
        `fingerprint (${
          o.positions === undefined
            ? "last tokens"
            : `positions ${positions.map(([q, p]) => `${q}:${p}`).join(",")}`
        }): ${res.fingerprint}`,
      );
      printText(`wrote ${o.out}`);
    }
  } finally {
    w.close();
  }
}

/**
 * Opens the checkpoint; a config refused as not modelled (`CONFIG_UNSUPPORTED`) that the stack's
 * engine does not load anyway (`stackLoadRefusal` of it read with its unmodelled values: a head
 * dimension of 0 on HF, an activation vLLM refuses) is refused as that engine's (`USAGE`), as
 * `claims append` refuses it and an audit FAILs it.
 */
async function _openForStack(
  dir: string,
  stack: Parameters<typeof stackLoadRefusal>[0],
): Promise<Awaited<ReturnType<typeof openCheckpointDir>>> {
  try {
    return await openCheckpointDir(dir);
  } catch (e) {
    if (!(e instanceof InputError) || e.code !== "CONFIG_UNSUPPORTED") throw e;
    const read = await readModelConfig(`${dir}/config.json`, { unmodelled: "read" })
      .catch(() => null);
    const refusal = read === null ? null : stackLoadRefusal(stack, { config: read.config, pp: 1 });
    if (refusal !== null) throw new InputError("USAGE", `Cannot run forward: ${refusal}`);
    throw e;
  }
}
