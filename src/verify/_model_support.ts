/**
 * What a model record asks of the emulator, checked against what it models before anything runs
 * (issue 25, item 5): a configuration it does not model is NOT_VERIFIED with the reason, never the
 * record's FAIL (the kernels refuse such a launch with a RangeError deep in the forward, which
 * the forward's callers read as a record contradicting its checkpoint) and never an internal
 * error. A value the record gives that its checkpoint cannot hold is a contradiction (FAIL).
 *
 * @module
 */
import type { ClaimPredicate, HistoryPass, ModelForwardWorkload } from "../claims/mod.ts";
import type { GpuProfile } from "../hardware/mod.ts";
import {
  attentionBackend,
  componentMismatch,
  fa2Tiles,
  isVllmStack,
  type StackProfile,
  vllmMaxNumSeqs,
} from "../kernels/mod.ts";
import {
  batchPaddingMismatch,
  type CacheReuse,
  configReadingGap,
  type DecoderCheckpoint,
  type DecoderConfig,
  keptWindowGap,
  type KvBlockFinding,
  kvBlockFinding,
  lengthFinding,
  stackLoadRefusal,
  tiedHeadReadingGap,
  tokenBudgetFinding,
  vllmDtypeGap,
  vllmReadingGap,
  vllmRefusedTensor,
  vllmRenamedOnto,
  weightMetadataFinding,
} from "../model/mod.ts";
import { quoteShort } from "../escape_text.ts";
import { _Stop } from "./_stop.ts";

/**
 * Refuses a model record whose configuration the emulator does not model.
 *
 * - FA2 attention: the checkpoint's head dimension must be one the FA2 model has tiles for
 *   ({@link _checkAttentionSupport});
 * - the config must mean the same model to the stack's engine as to the forward
 *   (`configReadingGap`; on vLLM, `vllmReadingGap`; elsewhere, a sliding window a Transformers
 *   release before the fix keeps and the record's keys reach, `keptWindowGap`);
 * - the batch (`tokens` of a model-forward record) must fit the stack's batching by the rule
 *   `claims append` applies (`batchPaddingMismatch`): on a `pad-to-longest` stack a batch of
 *   sequences of unequal length must name the pad token (its rows are computed like any other,
 *   so without it they cannot be recomputed: NOT_VERIFIED). Its contradictions (a pad token
 *   outside the vocabulary, or named on a `flatten` stack, where no pass pads a sequence) are
 *   `_checkBatchPadding`'s, which the caller runs first.
 *
 * @param config the checkpoint's config
 * @param o the record's profile and stack; `tokens`: the batch of a model-forward record;
 *   `keys`: the longest key sequence of a served sequence's passes (a model-forward record's is
 *   its longest sequence)
 * @throws {_Stop} NOT_VERIFIED with the reason
 */
export function _checkModelSupport(
  config: DecoderConfig,
  o: {
    readonly profile: GpuProfile;
    readonly stack: StackProfile;
    readonly tokens?: ModelForwardWorkload["tokens"];
    readonly keys?: number;
  },
): void {
  const t = o.tokens;
  const mismatch = _paddingMismatch(o);
  const lengths = t?.sequences.map((s) => s.length) ?? [];
  const longest = Math.max(...lengths);
  _checkAttentionSupport(config.headDim, o);
  const transformers = o.stack.components.transformers;
  const reading = configReadingGap(config, transformers);
  if (reading !== null) {
    // The claimed stack ran another model than the one this config names for Transformers 5.
    throw new _Stop(
      "NOT_VERIFIED",
      `${reading}; stack '${o.stack.id}' (transformers ${
        transformers ?? "not named"
      }) reads it otherwise, and that reading is not modelled`,
    );
  }
  // A window older Transformers keep although the config turns it off (vLLM reads the switch).
  const keys = Math.max(o.keys ?? 0, ...lengths);
  const window = isVllmStack(o.stack) ? null : keptWindowGap(config, { transformers, keys });
  if (window !== null) {
    throw new _Stop(
      "NOT_VERIFIED",
      `stack '${o.stack.id}' (transformers ${transformers ?? "not named"}): ${window}`,
    );
  }
  // vLLM builds another model of some configs than the one layer reads (Qwen3's o_proj bias).
  const engine = isVllmStack(o.stack) ? vllmReadingGap(config) : null;
  if (engine !== null) {
    throw new _Stop(
      "NOT_VERIFIED",
      `${engine}; stack '${o.stack.id}' runs vLLM, whose reading is not modelled`,
    );
  }
  // The rule `claims append` refuses a batch by, so that the two cannot drift apart (no
  // operators: the forward says why).
  if (mismatch !== null) {
    throw new _Stop(
      "NOT_VERIFIED",
      `stack '${o.stack.id}' pads the batch's sequences (${Math.min(...lengths)} to ${longest} ` +
        "tokens) and the record names no pad token id: the pad rows cannot be recomputed",
    );
  }
}

/**
 * FAILs a model-forward batch that contradicts its stack's batching or its checkpoint's
 * vocabulary (`batchPaddingMismatch`): a pad token named on a stack that flattens the batch (no
 * pass of it reads one), or a pad token of a padded batch outside the vocabulary. It reads the
 * config's `vocab_size` alone, so that a config of values not modelled (whose vocabulary is read
 * as any other's) is held to it too.
 *
 * @param config the checkpoint's config (its vocabulary size)
 * @param o the record's stack; `tokens`: the batch of a model-forward record (none: nothing to
 *   check)
 * @throws {_Stop} FAIL naming the stack's batching or the vocabulary
 */
export function _checkBatchPadding(
  config: Pick<DecoderConfig, "vocab">,
  o: { readonly stack: StackProfile; readonly tokens?: ModelForwardWorkload["tokens"] },
): void {
  const t = o.tokens;
  const mismatch = _paddingMismatch(o);
  if (mismatch !== null && t?.padTokenId !== undefined) {
    // Only a stack that flattens the batch refuses a named pad token: no pass of it reads one.
    throw new _Stop("FAIL", `record contradicts its stack: stack '${o.stack.id}' ${mismatch}`);
  }
  const lengths = t?.sequences.map((s) => s.length) ?? [];
  const padded = lengths.some((n) => n !== Math.max(...lengths));
  if (mismatch === null && t?.padTokenId !== undefined && padded && t.padTokenId >= config.vocab) {
    throw new _Stop(
      "FAIL",
      `record contradicts its checkpoint: pad token id ${t.padTokenId} is outside the ` +
        `vocabulary 0..${config.vocab - 1}`,
    );
  }
}

/** Why a model-forward batch does not fit its stack's batching (`batchPaddingMismatch`), or null. */
function _paddingMismatch(
  o: { readonly stack: StackProfile; readonly tokens?: ModelForwardWorkload["tokens"] },
): string | null {
  const ops = o.stack.operators;
  return ops === undefined || o.tokens === undefined
    ? null
    : batchPaddingMismatch(o.tokens, ops.batching);
}

/**
 * Refuses (NOT_VERIFIED) an attention launch the FA2 model has no tiles for: when the stack's
 * attention backend is one of the modelled FA2 builds, the kernel's tile table (`fa2Tiles`) must
 * hold the head dimension on the profile's architecture.
 *
 * @param headDim the head dimension
 * @param o the record's profile and stack
 * @throws {_Stop} NOT_VERIFIED with the kernel's reason
 */
export function _checkAttentionSupport(
  headDim: number,
  o: { readonly profile: GpuProfile; readonly stack: StackProfile },
): void {
  const ops = o.stack.operators;
  if (ops === undefined) return; // the forward or block plan refuses it with its own reason
  // Decode (split-KV) and prefill kernels share the head-dimension tables; the driver decides
  // elsewhere whether the backend itself is modelled.
  const backend = attentionBackend(ops.attention, "prefill");
  if (!backend.modelled || backend.build === null) return; // likewise (eager: no FA2 tiles)
  try {
    fa2Tiles(o.profile.architecture, { headDim, causal: true });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw new _Stop("NOT_VERIFIED", `attention backend '${backend.id}': ${e.message}`);
  }
}

/**
 * Refuses a tied checkpoint that also stores `lm_head.weight` on a stack that may have run the
 * stored head where this forward reads the embedding (`tiedHeadReadingGap`: Transformers 5,
 * vLLM's Qwen3-MoE loader).
 *
 * @param ckpt the opened checkpoint
 * @param stack the record's stack
 * @throws {_Stop} NOT_VERIFIED
 */
export function _checkTiedHead(
  ckpt: Pick<DecoderCheckpoint, "storedTiedHead" | "config">,
  stack: StackProfile,
): void {
  const why = tiedHeadReadingGap(ckpt, stack);
  if (why !== null) throw new _Stop("NOT_VERIFIED", `stack '${stack.id}': ${why}`);
}

/**
 * A tensor vLLM 0.11 loads as one shard of a fused parameter (`stacked_params_mapping` of
 * qwen2.py's and llama.py's `load_weights`, Qwen3's and Qwen3-MoE's alike: `q_proj`, `k_proj`,
 * `v_proj` into `qkv_proj`, `gate_proj`, `up_proj` into `gate_up_proj`): the prefix and suffix it
 * shares with its siblings, and the siblings' names.
 */
const _VLLM_SHARD = /^(.*\.)(q_proj|k_proj|v_proj|gate_proj|up_proj)(\.[a-z]+)$/;

/** The shards of each fused parameter, by shard name. */
const _VLLM_SIBLINGS: Readonly<Record<string, readonly string[]>> = {
  q_proj: ["q_proj", "k_proj", "v_proj"],
  k_proj: ["q_proj", "k_proj", "v_proj"],
  v_proj: ["q_proj", "k_proj", "v_proj"],
  gate_proj: ["gate_proj", "up_proj"],
  up_proj: ["gate_proj", "up_proj"],
};

/**
 * The first of the missing tensors vLLM 0.11 provably loads no parameter from, or null: one whose
 * parameter no other tensor of the files fills. Its `DefaultModelLoader.load_weights`
 * (default_loader.py) raises "Following weights were not initialized from checkpoint" for a
 * parameter the model's `load_weights` loaded nothing into; but a fused parameter counts as
 * loaded once any shard was, and an MoE expert's tensors go into parameters all the layer's
 * experts share, so a missing shard or expert tensor beside present siblings leaves part of a
 * parameter uninitialised instead.
 */
function _vllmUnloaded(missing: readonly string[]): string | null {
  const gone = new Set(missing);
  for (const name of missing) {
    if (name.includes(".experts.")) continue;
    const m = _VLLM_SHARD.exec(name);
    if (m === null || _VLLM_SIBLINGS[m[2]!]!.every((s) => gone.has(`${m[1]}${s}${m[3]}`))) {
      return name;
    }
  }
  return null;
}

/** What a record stating settings beyond its vLLM stack may load otherwise. */
const _MAY_LOAD_OTHERWISE = "may change what it loads (--load-format, --hf-overrides): that " +
  "loading is not modelled";

/**
 * Holds a checkpoint whose files lack tensors its config implies
 * (`DecoderCheckpoint.missingTensors`) to the stack's loader: vLLM refuses to load a model with a
 * parameter no tensor was loaded into (`_vllmUnloaded`), so a record of such a run cannot be
 * true, unless it states settings beyond its stack's (`--load-format dummy` reads no weights) or
 * another stored tensor is renamed onto the missing one (`vllmRenamedOnto`: Llama's
 * Mistral-format names, and `wq` / `wk` are permuted on the way); Transformers 4.5x initialises
 * the missing tensors anew with a warning ("Some weights of ... were not initialized from the
 * model checkpoint", `_initialize_missing_keys` in modeling_utils.py), as vLLM leaves a fused
 * parameter's missing shard uninitialised: a model this version does not model.
 *
 * @param p the record's predicate (its stated components)
 * @param o the opened checkpoint, the record's stack and GPU profile
 * @throws {_Stop} FAIL (a tensor vLLM's loader loads nothing from) or NOT_VERIFIED (the rest)
 */
export function _checkMissingTensors(
  p: ClaimPredicate,
  o: {
    readonly ckpt: Pick<DecoderCheckpoint, "missingTensors" | "extraTensors" | "config">;
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
  },
): void {
  const { ckpt, stack } = o;
  const missing = ckpt.missingTensors ?? [];
  if (missing.length === 0) return;
  if (isVllmStack(stack)) {
    const renamed = vllmRenamedOnto(ckpt.config, ckpt.extraTensors ?? []);
    const unloaded = _vllmUnloaded(missing.filter((name) => !renamed.has(name)));
    if (unloaded !== null) {
      throw _pastLimit(p, {
        ...o,
        what: "checkpoint",
        why: `tensor '${unloaded}' is missing (vLLM's loader refuses a parameter not initialized ` +
          "from the checkpoint)",
        may: _MAY_LOAD_OTHERWISE,
      });
    }
    const onto = missing.find((name) => renamed.has(name));
    throw new _Stop(
      "NOT_VERIFIED",
      onto === undefined
        ? `checkpoint: tensor '${missing[0]}' is missing (vLLM loads its fused parameter's ` +
          "other shards and leaves its part uninitialised, which this version does not model)"
        : `checkpoint: tensor '${onto}' is missing and vLLM's loader renames another stored ` +
          "tensor onto it (a Mistral-format name), a loading this version does not model",
    );
  }
  throw new _Stop(
    "NOT_VERIFIED",
    `checkpoint: tensor '${missing[0]}' is missing (Transformers initialises it anew, which ` +
      "this version does not model)",
  );
}

/**
 * Holds a checkpoint whose files store tensors the config's model does not have
 * (`DecoderCheckpoint.extraTensors`) to the stack's loader: vLLM 0.11's loader raises for a name
 * none of its skips reaches (`vllmRefusedTensor`), so a record of a run on such a stack cannot be
 * true, unless it states settings beyond its stack's (`--load-format dummy` reads no weights,
 * `--hf-overrides` may build the layer a name belongs to). Any other (a name vLLM may skip, or a
 * Transformers stack, which drops it with a warning) is left to the checkpoint's NOT_VERIFIED
 * (`DecoderCheckpoint.unmodelled`).
 *
 * @param p the record's predicate (its stated components)
 * @param o the opened checkpoint, the record's stack and GPU profile
 * @throws {_Stop} FAIL (a tensor vLLM's loader refuses), NOT_VERIFIED where the record states
 *   settings beyond its stack's
 */
export function _checkExtraTensors(
  p: ClaimPredicate,
  o: {
    readonly ckpt: Pick<DecoderCheckpoint, "extraTensors" | "config">;
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
  },
): void {
  const { ckpt } = o;
  if (ckpt.extraTensors === undefined || !isVllmStack(o.stack)) return;
  const refused = vllmRefusedTensor(ckpt.config, ckpt.extraTensors);
  if (refused === null) return;
  throw _pastLimit(p, {
    ...o,
    what: "checkpoint",
    why: `tensor ${quoteShort(refused, 120)} is not part of the config's model, and vLLM's ` +
      `${ckpt.config.modelType} loader refuses to load it (no parameter or module of that name)`,
    may: _MAY_LOAD_OTHERWISE,
  });
}

/**
 * Families whose vLLM 0.11 `load_weights` skips `lm_head.` names of a tied config (qwen2.py,
 * qwen3.py, llama.py, which also runs MistralForCausalLM: registry.py); Qwen3-MoE's builds
 * `AutoWeightsLoader(self)` with no skip, so a stored head is loaded into the parameter it shares
 * with the embedding.
 */
const _VLLM_SKIPS_TIED_HEAD: ReadonlySet<string> = new Set(["qwen2", "qwen3", "llama", "mistral"]);

/**
 * Holds a tied checkpoint's stored `lm_head.weight` that the reader kept back
 * (`DecoderCheckpoint.storedTiedHeadProblem`) to the stack's loader: vLLM never reads it
 * (`Qwen3ForCausalLM.load_weights` and its Qwen2 and Llama siblings build
 * `AutoWeightsLoader(self, skip_prefixes=["lm_head."])` when the config ties the head, which
 * filters those names out before any loader or shape check), so it is no evidence either way;
 * vLLM's Qwen3-MoE loader reads it, as Transformers does;
 * Transformers copies it into the shared parameter, so one of another shape than the embedding's
 * cannot be this model's and one of a dtype whose cast is not modelled is not modelled.
 *
 * A record stating settings beyond its stack's (which may load otherwise) is NOT_VERIFIED.
 *
 * @param p the record's predicate (its stated components)
 * @param o the opened checkpoint, the record's stack and GPU profile
 * @throws {_Stop} FAIL (a misshapen stored head, on a Transformers stack) or NOT_VERIFIED (one of
 *   a dtype not modelled)
 */
export function _checkStoredTiedHead(
  p: ClaimPredicate,
  o: {
    readonly ckpt: Pick<DecoderCheckpoint, "storedTiedHeadProblem" | "config">;
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
  },
): void {
  const { ckpt, stack } = o;
  const problem = ckpt.storedTiedHeadProblem;
  if (problem === undefined) return;
  if (isVllmStack(stack) && _VLLM_SKIPS_TIED_HEAD.has(ckpt.config.modelType)) return;
  if (!problem.invalid) throw new _Stop("NOT_VERIFIED", `checkpoint: ${problem.message}`);
  throw _pastLimit(p, {
    ...o,
    what: "checkpoint",
    why: problem.message,
    may: "may change what it loads: that loading is not modelled",
  });
}

/**
 * Checks a checkpoint's weight files' safetensors metadata against the stack's loader where it
 * reads them otherwise than a `pt` file (`weightMetadataFinding`; a refused one was already
 * FAILed by `_claimCheckpoint`).
 *
 * @param ckpt the opened checkpoint
 * @param stack the record's stack
 * @throws {_Stop} NOT_VERIFIED naming the file and its format
 */
export function _checkWeightMetadata(
  ckpt: Pick<DecoderCheckpoint, "weightFormats">,
  stack: StackProfile,
): void {
  const f = weightMetadataFinding(stack, ckpt.weightFormats);
  if (f !== null) throw new _Stop("NOT_VERIFIED", `stack '${stack.id}': ${f.reason}`);
}

/**
 * Checks the dtype the stack's engine runs the checkpoint in where the config names none
 * (`vllmDtypeGap`: on vLLM, F16 weights may make it float16).
 *
 * @param ckpt the opened checkpoint
 * @param stack the record's stack
 * @throws {_Stop} NOT_VERIFIED
 */
export function _checkModelDtype(
  ckpt: Pick<DecoderCheckpoint, "config" | "storedDtypes">,
  stack: StackProfile,
): void {
  const why = vllmDtypeGap(stack, ckpt);
  if (why !== null) throw new _Stop("NOT_VERIFIED", `stack '${stack.id}' runs vLLM: ${why}`);
}

/**
 * Checks a record's sequences against the longest sequence its stack serves of the checkpoint
 * (`lengthFinding`: on vLLM, `max_model_len` from `max_position_embeddings`). A longer one
 * FAILs: vLLM refuses such a prompt and stops a sequence at the limit, so no such run happened
 * under the settings the stack pins. Where the record states settings beyond the stack's (which
 * may raise the limit: `--max-model-len` with `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`, whose RoPE
 * cache is then read past its end), or the limit is not derived, it is NOT_VERIFIED.
 *
 * @param p the record's predicate (its stated components)
 * @param o the checkpoint's config, the record's stack and profile, and each sequence's prompt
 *   and generated token counts
 * @throws {_Stop} FAIL naming the sequence and the limit; NOT_VERIFIED as above
 */
export function _checkServedLength(
  p: ClaimPredicate,
  o: {
    readonly config: DecoderConfig;
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly sequences: readonly {
      readonly prompt: number;
      readonly generated: number;
      /** A served sequence's furthest continuing pass (`furthestRunning`). */
      readonly running?: { readonly keys: number; readonly pass: number } | null;
    }[];
    /**
     * The longest key sequence another request of the batch holds in some pass (cached plus
     * new positions), and that pass: the engine serves no request past its limit either.
     */
    readonly neighbours?: { readonly keys: number; readonly pass: number } | null;
  },
): void {
  type Checked = {
    s: {
      prompt: number;
      generated: number;
      held?: boolean;
      running?: { readonly keys: number; readonly pass: number } | null;
    };
    which: string;
  };
  const checked: Checked[] = o.sequences.map((s, i) => ({
    s,
    which: o.sequences.length === 1 ? "" : ` (sequence ${i})`,
  }));
  // A neighbour's positions so far: at most the limit in any pass (a decoding request stops
  // below it, a prefill chunk ends at its prompt), so no honest batch is refused.
  const n = o.neighbours;
  if (n !== undefined && n !== null) {
    checked.push({
      s: { prompt: n.keys, generated: 0, held: true },
      which: ` (another request of the batch, cached and new positions in pass ${n.pass})`,
    });
  }
  for (const { s, which } of checked) {
    const f = lengthFinding(o.config, { stack: o.stack, ...s });
    if (f === null) continue;
    if (f.kind === "unmodelled") {
      throw new _Stop("NOT_VERIFIED", `stack '${o.stack.id}': ${f.reason}`);
    }
    throw _pastLimit(p, { ...o, what: "checkpoint", why: `${f.reason}${which}` });
  }
}

/**
 * The stop for a record past a limit its stack's settings fix: FAIL as contradicting `what`,
 * or NOT_VERIFIED where the record states settings beyond the stack's (which may raise it).
 */
function _pastLimit(
  p: ClaimPredicate,
  o: {
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly what: "checkpoint" | "stack";
    readonly why: string;
    readonly may?: string;
  },
): _Stop {
  const stated = componentMismatch(o.stack.components, p.software.components, o.profile);
  if (stated === null) return new _Stop("FAIL", `record contradicts its ${o.what}: ${o.why}`);
  return new _Stop(
    "NOT_VERIFIED",
    `${o.why}; the record states settings beyond stack '${o.stack.id}' (${stated.reason}), ` +
      `which ${o.may ?? "may raise the limit: a run past it is not modelled"}`,
  );
}

/**
 * Checks that the stack's engine loads the record's config at all: vLLM refuses a config naming
 * no `architectures`, a Qwen3-MoE one with a pipeline stage (of the record's `pp`) that holds
 * no sparse MoE layer, and any split into more stages than layers (`vllmRefusal`); HF
 * Transformers one whose `pad_token_id` lies outside the vocabulary, and Transformers 5 a float
 * among `mlp_only_layers` or as `decoder_sparse_step` (`hfRefusal`: its typed config wants ints).
 * HF has no stages of its own (`device_map` places modules), so it refuses no stage count. One
 * it refuses FAILs: no run of that stack used it. Where the record states settings beyond the
 * stack's (`--hf-overrides` or `VLLM_PP_LAYER_PARTITION`, or keyword arguments overriding the
 * config, may supply other values), it is NOT_VERIFIED.
 *
 * @param p the record's predicate (its stated components and pipeline stages)
 * @param o the checkpoint's config, the record's stack and GPU profile
 * @throws {_Stop} FAIL naming the reason; NOT_VERIFIED as above
 */
export function _checkStackLoads(
  p: ClaimPredicate,
  o: {
    readonly config: DecoderConfig;
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
  },
): void {
  const why = stackLoadRefusal(o.stack, { config: o.config, pp: p.parallelism.pp });
  if (why === null) return;
  const vllm = isVllmStack(o.stack);
  throw _pastLimit(p, {
    ...o,
    what: "stack",
    why,
    may: vllm
      ? "may change what it loads (--hf-overrides, VLLM_PP_LAYER_PARTITION): that loading " +
        "is not modelled"
      : "may override the config's value: that loading is not modelled",
  });
}

/**
 * Checks the requests of a record's widest pass against the most vLLM's scheduler runs at once
 * (`vllmMaxNumSeqs`: the stack's pinned `--max-num-seqs`, else the device's default). More
 * FAILs: no pass of such an engine holds them, and the requests past the limit would have run in
 * another pass, at another size (other kernels, other bits). Where the record states settings
 * beyond the stack's (which may raise it), or the bound is not derived, it is NOT_VERIFIED.
 *
 * @param p the record's predicate (its stated components)
 * @param o the record's stack and GPU profile, and the requests of its widest pass and that
 *   pass's index (a sequence's history), if any
 * @throws {_Stop} FAIL naming the pass, the requests and the limit; NOT_VERIFIED as above
 */
export function _checkServedRequests(
  p: ClaimPredicate,
  o: {
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly requests: number;
    readonly pass?: number;
  },
): void {
  const bound = vllmMaxNumSeqs(o.stack, o.profile.id);
  if (bound === null || (bound.ok && o.requests <= bound.requests)) return;
  if (!bound.ok) throw new _Stop("NOT_VERIFIED", `stack '${o.stack.id}': ${bound.reason}`);
  const where = o.pass === undefined ? "its pass" : `pass ${o.pass}`;
  const why = `${where} holds ${o.requests} requests, more than vLLM's scheduler runs at once ` +
    `(max_num_seqs ${bound.requests}: ${bound.rule})`;
  throw _pastLimit(p, { ...o, what: "stack", why });
}

/**
 * Holds a served sequence's passes to vLLM's token budget (`tokenBudgetFinding`): the V1
 * scheduler ends a prompt's chunk before the prompt's end only once the pass has scheduled its
 * whole `max_num_batched_tokens`, and never schedules more. A pass scheduling more tokens than
 * every budget the stack's settings give on the record's GPU FAILs, and so does a pass that ends
 * the sequence's prompt chunk before its prompt's end with a total other than such a budget: vLLM
 * would have scheduled more of the prompt there, so the chunk boundaries, and with them the GEMM
 * rows and attention splits of the later passes, are no run of the stack's. Where the record
 * states settings beyond the stack's (which may set another budget), or a cut chunk's budget is
 * not derived, the reason comes back: as `_checkAllReducePath`'s, the recorded passes fix the
 * computation, so callers replay them all the same and say it only after a match (a falsified
 * record still FAILs). Stacks other than vLLM's are not checked.
 *
 * @param p the record's predicate (its stated components)
 * @param o the record's stack and GPU profile, the checkpoint's config, the sequence's prompt
 *   length and its history's passes (a model-forward record: one pass of its whole batch)
 * @returns why a match cannot vouch for the passes' budget, or null
 * @throws {_Stop} FAIL naming the pass, its tokens and the budgets
 */
export function _servedBudgetGap(
  p: ClaimPredicate,
  o: {
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly config: DecoderConfig;
    readonly prompt: number;
    readonly passes: readonly Pick<HistoryPass, "entries" | "self">[];
  },
): string | null {
  const f = tokenBudgetFinding(o.config, { ...o, gpu: o.profile.id });
  if (f === null) return null;
  if (f.kind === "unmodelled") return `stack '${o.stack.id}': ${f.reason}`;
  const stop = _pastLimit(p, {
    ...o,
    what: "stack",
    why: f.reason,
    may: "may set another token budget: that run is not modelled",
  });
  if (stop.status === "FAIL") throw stop;
  return stop.why;
}

/**
 * Holds a sequence's reused keys and values to its vLLM stack's KV cache block
 * (`kvBlockFinding`): a prefix-cache hit, a recomputation's start or a cascade prefix that vLLM
 * 0.11 never gives is a FAIL, or NOT_VERIFIED where the record states settings beyond the
 * stack's (which may set another block size), and a block size not derived is NOT_VERIFIED.
 * Such a record is not replayed either way: callers throw the stop only once the history has
 * been checked against the record and itself (a FAIL there comes first). Stacks other than
 * vLLM's, and histories that reuse nothing, are not checked. A NOT_VERIFIED reason also names
 * the reuse the caller says the replay does not model, once: a record stating settings beyond
 * the stack's whose finding is about those very positions names them in the finding's words
 * alone, and any other reuse is named beside the finding.
 *
 * @param p the record's predicate (its stated components)
 * @param o the record's stack and GPU profile, the sequence's prompt length, its history, the
 *   walk of its own entries (`cacheReuse`, which the caller has checked) and `named`: the reuse
 *   the caller's NOT_VERIFIED reason names (its pass and kind, as `kvBlockFinding` gives them,
 *   and the caller's words for it), or null where the history reuses nothing
 * @returns the stop to throw after the history's checks (a NOT_VERIFIED one: the whole reason),
 *   or null
 */
export function _kvBlockStop(
  p: ClaimPredicate,
  o: {
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly prompt: number;
    readonly passes: readonly HistoryPass[];
    readonly reuse: CacheReuse;
    readonly named: Pick<KvBlockFinding, "pass" | "what"> & { readonly said: string } | null;
  },
): _Stop | null {
  const f = kvBlockFinding(o.passes, o);
  if (f === null) return null;
  const stop = f.kind === "unmodelled"
    ? new _Stop("NOT_VERIFIED", `stack '${o.stack.id}': ${f.reason}`)
    : _pastLimit(p, {
      ...o,
      what: "stack",
      why: f.reason,
      may: "may set another block size: that run is not modelled",
    });
  const named = o.named;
  if (stop.status === "FAIL" || named === null) return stop;
  // The contradiction's reason opens with the reused positions it is about.
  const same = f.kind === "contradiction" && f.pass === named.pass && f.what === named.what;
  return same ? stop : new _Stop("NOT_VERIFIED", `${named.said}; ${stop.why}`);
}
