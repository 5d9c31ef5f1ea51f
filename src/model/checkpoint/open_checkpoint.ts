/**
 * Opens a Hugging Face decoder checkpoint directory (any supported family) through named byte sources:
 * `config.json` plus either `model.safetensors` or shards listed by
 * `model.safetensors.index.json` (`{"metadata": {...}, "weight_map": {tensor: file}}`), never both
 * (HF Transformers would load the single file, vLLM the shards), and in a folder on disk no other
 * `*.safetensors` (vLLM would load it too, HF Transformers not). Headers
 * are read and checked against the config at once (every required tensor present once with the
 * right shape); tensor data is read only when asked for, one tensor (or some rows of one) at a
 * time, so a multi-GB checkpoint is never in memory.
 *
 * A tensor stored as F32 or F16 is read as the loaders read it into the model's BF16 parameter:
 * cast by PyTorch's `float -> bfloat16` (`castToBf16`), a chunk at a time (`castTensors` lists
 * them). What the loaders read in a way not modelled here is refused last, once every other check
 * has passed, as `CHECKPOINT_LOAD_UNMODELLED` (the verifier's NOT_VERIFIED, never its FAIL): a
 * tensor of another dtype (F64, an integer or FP8 one: HF Transformers casts a floating tensor to
 * the model's dtype on load, vLLM's weight loaders copy any into the BF16 parameter, neither cast
 * modelled), an F32 or F16 tensor holding a NaN (its BF16 pattern depends on where the cast runs),
 * a tensor the config's model does not have (HF Transformers drops it with a warning, vLLM's
 * loaders refuse most such names; either way a rename or a refusal this version does not model),
 * and a weight file whose header departs from the format in a way its reference reader reads all
 * the same (`SafetensorsHeader.offFormat`). The NaN check reads each F32 or F16 tensor once, at
 * open, after every other check. A caller that holds a record to the checkpoint keeps such a
 * checkpoint instead (`unmodelled: "keep"`): its config and headers hold all the same, so what
 * contradicts them is still found, while its tensors cannot be read
 * (`DecoderCheckpoint.unmodelled`).
 *
 * @module
 */
import { InputError, type ModelCode } from "../../errors.ts";
import {
  type ByteSource,
  checkRange,
  openSafetensors,
  readExactly,
  type SafetensorsEntry,
  type SafetensorsFile,
  viewTensorBytes,
} from "../safetensors/mod.ts";
import { parseCheckpointJson } from "./parse_checkpoint_json.ts";
import { type DecoderConfig, isMoeLayer, parseDecoderConfig } from "./decoder_config.ts";
import { decoderTensorEntries, layerTensorShapes } from "./decoder_tensors.ts";
import { sha256OfSource } from "./sha256_of_source.ts";
import { SAFETENSORS_SUFFIX } from "./loaded_weight_files.ts";
import { isLoadCastDtype, type LoadCastDtype } from "./cast_to_bf16.ts";
import { _readCast } from "./_read_cast.ts";
import { weightFormatOf, type WeightFormats } from "./weight_formats.ts";

/** The files of a checkpoint directory, opened by name (relative to the directory). */
export interface CheckpointFiles {
  /**
   * Opens a file.
   *
   * @param name a plain file name (no directories)
   * @returns its bytes, or null when the directory has no such file
   */
  open(name: string): Promise<ByteSource | null>;
  /**
   * Every entry name of the directory, of any kind, when the files are a folder that can be
   * listed (a folder on disk): a `*.safetensors` beside the weight files the checkpoint names is
   * then refused, since vLLM would load it (see `openDecoderCheckpoint`). Absent for files named
   * elsewhere (a claim's committed files, a bundle).
   *
   * @returns the names, in any order
   */
  names?(): AsyncIterable<string>;
}

/** An opened checkpoint. */
export interface DecoderCheckpoint {
  /** The validated config. */
  readonly config: DecoderConfig;
  /** SHA-256 of the `config.json` bytes. */
  readonly configSha256: string;
  /** Weight file names, sorted. */
  readonly files: readonly string[];
  /** Whether the weights are sharded (an index file was read). */
  readonly sharded: boolean;
  /**
   * Whether the config ties the LM head to the embedding while the files also store
   * `lm_head.weight`: Transformers 4.5x and vLLM's dense loaders read the embedding, as `tensor`
   * does; Transformers 5 and vLLM's Qwen3-MoE loader may run the stored tensor
   * (`tiedHeadReadingGap`).
   */
  readonly storedTiedHead: boolean;
  /**
   * Each weight file's safetensors `__metadata__` as loaders read it: null without one, else its
   * `format` entry (null when it has none). HF Transformers refuses or converts files by it
   * (`weightMetadataFinding`).
   */
  readonly weightFormats: WeightFormats;
  /**
   * The tensors the forward reads that are stored as F32 or F16 (name -> stored dtype), which
   * `tensor` and `rows` cast to BF16 as the loaders do (`castToBf16`); empty when all are BF16.
   */
  readonly castTensors: Readonly<Record<string, LoadCastDtype>>;
  /**
   * Every dtype a tensor of the weight files is stored in (safetensors names, sorted), tensors
   * the forward does not read included: what vLLM's `--dtype auto` reads from a Hub
   * repository's metadata when the config names no dtype (`vllmDtypeGap`).
   */
  readonly storedDtypes: readonly string[];
  /**
   * Why the stacks' loaders read these weights in a way not modelled (the message of the
   * `CHECKPOINT_LOAD_UNMODELLED` refusal), present only in a checkpoint opened with
   * `unmodelled: "keep"`: its config, headers and metadata were checked as ever, but nothing may
   * be computed from its weights, so `tensor` and `rows` throw that refusal.
   */
  readonly unmodelled?: string;
  /**
   * Present only in a checkpoint opened with `unmodelled: "keep"` whose config ties the LM head
   * while its files store an `lm_head.weight` the reader would otherwise refuse (another shape
   * than the embedding's: `CHECKPOINT_SHAPE`, `invalid`; a dtype whose load is not modelled:
   * `CHECKPOINT_LOAD_UNMODELLED`), with that refusal's message. It is kept out of `unmodelled`
   * (its tensors stay readable) for the caller, which knows the stack, to decide: vLLM never
   * reads the stored tensor (its `AutoWeightsLoader` skips `lm_head.` when the config ties it),
   * Transformers 4.5x copies it into the shared parameter.
   */
  readonly storedTiedHeadProblem?: StoredTiedHeadProblem;
  /**
   * Present only in a checkpoint opened with `unmodelled: "keep"` whose files lack tensors the
   * config implies (refused otherwise: `CHECKPOINT_MISSING_TENSOR`): their names, in the config's
   * order (`tensor` and `rows` refuse them). The caller, which knows the stack, decides:
   * Transformers 4.5x initialises them anew with a warning, vLLM's `DefaultModelLoader` refuses a
   * parameter no tensor was loaded into. When the files lack more than they hold, the walk stops
   * early and the list is a prefix.
   */
  readonly missingTensors?: readonly string[];
  /**
   * Present only in a checkpoint opened with `unmodelled: "keep"` whose files store tensors the
   * config's model does not have (the reason in `unmodelled` names the first): their names, in the
   * files' order. The caller, which knows the stack, decides: HF Transformers drops them with a
   * warning, vLLM's loaders refuse most such names (`vllmRefusedTensor`).
   */
  readonly extraTensors?: readonly string[];
  /**
   * Reads a tensor's BF16 patterns (`lm_head.weight` of a tied checkpoint reads the embedding),
   * cast from F32 or F16 where it is stored so.
   *
   * @throws {InputError} `CHECKPOINT_MISSING_TENSOR` for a name the config does not require
   */
  tensor(name: string): Promise<Uint16Array>;
  /** Reads some rows of a 2-D tensor (e.g. the embedding rows of a batch's token ids). */
  rows(name: string, rows: readonly number[]): Promise<Uint16Array>;
  /** The weight files as byte sources, by name (for digests and copies). */
  file(name: string): ByteSource;
}

/** What the reader refuses in a tied checkpoint's stored `lm_head.weight`. */
export interface StoredTiedHeadProblem {
  /** Whether the files cannot be such a checkpoint (a shape), not a load not modelled (a dtype). */
  readonly invalid: boolean;
  /** The refusal's message. */
  readonly message: string;
}

const CONFIG = "config.json";
const SINGLE = "model.safetensors";
const INDEX = "model.safetensors.index.json";
/**
 * Largest `config.json` read (bytes), checked on the file's size before it is read: 1 MiB (a
 * published Qwen3 config is about 1 KiB). The blob store's `BLOB_MAX_BYTES.config` is the same, so
 * a checkpoint the prover opens is one the verifier accepts.
 */
export const MAX_CONFIG_JSON_BYTES = 1 << 20;
/**
 * Largest `model.safetensors.index.json` read (bytes), checked on the file's size before it is
 * read: 64 MiB (the index of a 235B MoE checkpoint is about 2 MiB).
 */
export const MAX_INDEX_JSON_BYTES = 64 << 20;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/**
 * Opens and checks a checkpoint.
 *
 * A folder that can be listed (`files.names`) and whose weight files are not given must hold no
 * other `*.safetensors` than those it names (`model.safetensors`, or the index's shards): without
 * an index vLLM loads every `*.safetensors` of the folder (`DefaultModelLoader._prepare_weights`
 * globs them) while HF Transformers loads `model.safetensors` alone; with one, vLLM reads a
 * `consolidated*.safetensors` in place of the shards (its `mistral` load format) and earlier
 * versions read every file. Either way the folder would mean other weights to each framework.
 * `*.bin` and `*.pt` files are left alone: both frameworks read them only when no safetensors
 * weights are there.
 *
 * @param files the directory's files
 * @param options `weightFiles`: the weight file names when they are known without the index
 *   (e.g. from a claim; tensors are then located by the files' own headers); `alloc`: allocates
 *   the buffer each `tensor()` is read into (default a fresh ArrayBuffer; e.g. shared memory, so
 *   that a thread pool reads the weights in place instead of copying them per GEMM);
 *   `unmodelled`: `"refuse"` (default) or `"keep"` weights the loaders read in a way not modelled
 *   (see the module): kept, the checkpoint comes back with the reason in `unmodelled`, its tensors
 *   unreadable, and with the tensors missing in `missingTensors`, those the model does not have
 *   in `extraTensors` and a tied head's problem in `storedTiedHeadProblem`, for the caller to
 *   decide by stack
 * @returns the checkpoint
 * @throws {InputError} `CHECKPOINT_NO_CONFIG`, `CHECKPOINT_NO_WEIGHTS`, `CHECKPOINT_JSON`,
 *   `CHECKPOINT_INDEX` (bad weight map, a shard name with a directory part or not ending in
 *   `.safetensors`, a map entry whose file lacks the tensor or a file tensor the map does not
 *   list, or an index beside a `model.safetensors`, which makes the folder ambiguous), `CHECKPOINT_AMBIGUOUS` (a listable
 *   folder holds a `*.safetensors` that is not among its weight files), `CHECKPOINT_MISSING_FILE`,
 *   `CHECKPOINT_MISSING_TENSOR` (unless kept), `CHECKPOINT_DUPLICATE_TENSOR`, `CHECKPOINT_SHAPE`
 *   (each naming the tensor), the `CONFIG_*` codes of `parseDecoderConfig` and the `SAFETENSORS_*` codes of
 *   `openSafetensors`; last, `CHECKPOINT_LOAD_UNMODELLED` (see the module; unless kept)
 * @example
 * ```ts ignore
 * const ckpt = await openDecoderCheckpoint(files);
 * const norm = await ckpt.tensor("model.norm.weight");
 * ```
 */
export async function openDecoderCheckpoint(
  files: CheckpointFiles,
  options: {
    readonly weightFiles?: readonly string[];
    readonly alloc?: (bytes: number) => ArrayBufferLike;
    readonly unmodelled?: "refuse" | "keep";
  } = {},
): Promise<DecoderCheckpoint> {
  const alloc = options.alloc ?? ((bytes: number) => new ArrayBuffer(bytes));
  const configSource = await files.open(CONFIG);
  if (configSource === null) _fail("CHECKPOINT_NO_CONFIG", `no ${CONFIG} in the directory`);
  const configBytes = await _small(configSource, { what: CONFIG, max: MAX_CONFIG_JSON_BYTES });
  const config = parseDecoderConfig(parseCheckpointJson(configBytes, CONFIG));
  const configSha256 = await sha256OfSource(configSource);
  const given = options.weightFiles;
  if (given !== undefined && (given.length === 0 || given.some((n) => !FILE_NAME.test(n)))) {
    throw new RangeError("Cannot open checkpoint: weightFiles must be plain file names");
  }
  const indexSource = given === undefined ? await files.open(INDEX) : null;
  if (indexSource !== null && await files.open(SINGLE) !== null) {
    // HF Transformers loads model.safetensors first and never reads the index: which weights
    // the folder means would depend on the loader.
    _fail(
      "CHECKPOINT_INDEX",
      `both ${SINGLE} and ${INDEX} are in the directory (HF Transformers loads ${SINGLE}, ` +
        "vLLM the shards it lists): keep one of them",
    );
  }
  const map = indexSource === null
    ? null
    : _weightMap(await _small(indexSource, { what: INDEX, max: MAX_INDEX_JSON_BYTES }));
  const names = given !== undefined
    ? [...new Set(given)].sort()
    : map === null
    ? [SINGLE]
    : [...new Set(map.values())].sort();
  const opened = new Map<string, { source: ByteSource; st: SafetensorsFile }>();
  // The files together hold at most what the config explains: each header's parse is bounded by
  // what is left of it, so a header of millions of JSON values (a huge `__metadata__`) is refused
  // at once instead of parsed.
  let budget = _tensorBudget(config);
  for (const name of names) {
    const source = await files.open(name);
    if (source === null) {
      _fail(
        map === null && given === undefined ? "CHECKPOINT_NO_WEIGHTS" : "CHECKPOINT_MISSING_FILE",
        map === null && given === undefined
          ? `neither ${SINGLE} nor ${INDEX} in the directory as a regular file`
          : `the index names '${name}', which is missing (or not a regular file)`,
      );
    }
    const st = await openSafetensors(source, { maxTensors: budget, offFormat: "keep" });
    budget = Math.max(0, budget - st.header.tensors.length);
    opened.set(name, { source, st });
  }
  if (given === undefined && files.names !== undefined) {
    await _noStrayWeights(files.names(), { weights: names, indexed: map !== null });
  }
  const where = _locate(opened, map);
  const offFormat = [...opened].find(([, { st }]) => st.header.offFormat !== null);
  const keep = options.unmodelled === "keep";
  const checked = _checkTensors(config, where, opened, { keep });
  const unmodelled = checked.unmodelled ??
    (offFormat === undefined
      ? null
      : `weight file '${offFormat[0]}': ${offFormat[1].st.header.offFormat}`) ??
    await _castNan(checked.cast, { where, opened });
  const refusal = unmodelled === null ? null : _error(
    "CHECKPOINT_LOAD_UNMODELLED",
    `${unmodelled}; the stacks' loaders read it, in a way this version does not model`,
  );
  if (refusal !== null && !keep) throw refusal;
  const find = (name: string) => {
    // Kept weights read in a way not modelled: nothing is computed from them.
    if (refusal !== null) throw new InputError(refusal.code, refusal.message);
    const n = name === "lm_head.weight" && config.tieWordEmbeddings
      ? "model.embed_tokens.weight"
      : name;
    const file = where.get(n);
    if (file === undefined) _fail("CHECKPOINT_MISSING_TENSOR", `no tensor '${name}'`);
    const f = opened.get(file)!;
    return { ...f, entry: f.st.entry(n) };
  };
  return Object.freeze({
    config,
    configSha256,
    files: Object.freeze(names),
    sharded: names.length > 1 || map !== null,
    storedTiedHead: config.tieWordEmbeddings && where.has("lm_head.weight"),
    ...(refusal === null ? {} : { unmodelled: refusal.message }),
    ...(checked.missing.length === 0 ? {} : { missingTensors: Object.freeze(checked.missing) }),
    ...(!keep || checked.extra.length === 0 ? {} : { extraTensors: Object.freeze(checked.extra) }),
    ...(checked.tiedHead === null ? {} : {
      storedTiedHeadProblem: Object.freeze({
        invalid: checked.tiedHead.invalid,
        message: `Cannot open checkpoint: ${checked.tiedHead.message}` +
          (checked.tiedHead.invalid
            ? ""
            : "; the stacks' loaders read it, in a way this version does not model"),
      }),
    }),
    weightFormats: Object.freeze(Object.fromEntries(
      [...opened].map(([name, { st }]) => [name, weightFormatOf(st.header)]),
    )),
    castTensors: Object.freeze(Object.fromEntries(checked.cast)),
    storedDtypes: Object.freeze(
      [...new Set([...opened.values()].flatMap(({ st }) => st.header.tensors.map((e) => e.dtype)))]
        .sort(),
    ),
    tensor: async (name: string) => {
      const { source, st, entry } = find(name);
      if (_isCast(entry)) {
        const out = new Uint16Array(alloc(entry.elementCount * 2));
        const all = { entry, first: 0, count: entry.elementCount, out: { to: out, at: 0 } };
        _noNan(name, entry, await _readCast(source, all));
        return out;
      }
      // A buffer of our own (never a view the source might share): read into it in place when
      // the source can, else copy what it returns.
      const into = new Uint8Array(alloc(entry.byteLength));
      if (source.readInto === undefined) into.set(await st.tensor(entry.name));
      else {
        checkRange(source.size, entry.byteOffset, entry.byteLength);
        await source.readInto(entry.byteOffset, into);
      }
      return viewTensorBytes("BF16", into) as Uint16Array;
    },
    rows: async (name: string, rows: readonly number[]) => {
      const { source, entry } = find(name);
      const [count, width] = entry.shape as [number, number];
      const out = new Uint16Array(rows.length * width);
      for (let i = 0; i < rows.length; i++) {
        const r = rows[i]!;
        if (!Number.isSafeInteger(r) || r < 0 || r >= count) {
          throw new InputError(
            "CHECKPOINT_ROW",
            `Cannot read '${name}': row ${r} is outside 0..${count - 1}`,
          );
        }
        if (_isCast(entry)) {
          const row = { entry, first: r * width, count: width, out: { to: out, at: i * width } };
          _noNan(name, entry, await _readCast(source, row));
          continue;
        }
        const bytes = await readExactly(source, {
          offset: entry.byteOffset + r * width * 2,
          length: width * 2,
          what: `row ${r} of '${name}'`,
        });
        out.set(viewTensorBytes("BF16", bytes.slice()) as Uint16Array, i * width);
      }
      return out;
    },
    file: (name: string) => {
      const f = opened.get(name);
      if (f === undefined) {
        throw new RangeError(`Cannot read weight file '${name}': not in the checkpoint`);
      }
      return f.source;
    },
  });
}

/**
 * Refuses a `*.safetensors` entry among `entries` other than the weight files: the names vLLM's
 * glob would match (any kind of entry, not hidden, the suffix matched case-sensitively as on
 * Linux). One pass, constant memory however many entries: the first stray in name order is
 * named, with the count.
 */
async function _noStrayWeights(
  entries: AsyncIterable<string>,
  o: { readonly weights: readonly string[]; readonly indexed: boolean },
): Promise<void> {
  const weights = new Set(o.weights);
  let first: string | null = null;
  let count = 0;
  for await (const name of entries) {
    if (!name.endsWith(SAFETENSORS_SUFFIX) || name.startsWith(".") || weights.has(name)) continue;
    count++;
    if (first === null || name < first) first = name;
  }
  if (first === null) return;
  const stray = `'${_esc(first)}'${count > 1 ? ` (and ${count - 1} other *.safetensors)` : ""}`;
  _fail(
    "CHECKPOINT_AMBIGUOUS",
    o.indexed
      ? `${stray} is not among the shards ${INDEX} lists: vLLM may load it with or in place of ` +
        "them, HF Transformers would not (remove it, or list its tensors in the index)"
      : `${stray} is beside ${SINGLE} with no ${INDEX}: vLLM loads every *.safetensors of such ` +
        `a folder, HF Transformers ${SINGLE} alone (remove it)`,
  );
}

function _weightMap(bytes: Uint8Array): Map<string, string> {
  const json = parseCheckpointJson(bytes, INDEX) as Record<string, unknown>;
  const wm = json?.weight_map;
  if (typeof wm !== "object" || wm === null || Array.isArray(wm)) {
    _fail("CHECKPOINT_INDEX", `${INDEX} has no 'weight_map' object`);
  }
  const map = new Map<string, string>();
  for (const [tensor, file] of Object.entries(wm as Record<string, unknown>)) {
    if (typeof file !== "string" || !FILE_NAME.test(file) || file.includes("..")) {
      _fail("CHECKPOINT_INDEX", `weight_map entry '${_esc(tensor)}' names an unusable file`);
    }
    // HF Transformers reads a shard as safetensors only by that suffix (a '.bin' is unpickled),
    // and vLLM keeps only the index's '*.safetensors': such a shard would not be these weights.
    if (!file.endsWith(SAFETENSORS_SUFFIX)) {
      _fail(
        "CHECKPOINT_INDEX",
        `weight_map entry '${_esc(tensor)}' names '${
          _esc(file)
        }', not a '*${SAFETENSORS_SUFFIX}' file ` +
          "(HF Transformers reads any other as a PyTorch pickle, vLLM not at all)",
      );
    }
    map.set(tensor, file);
  }
  if (map.size === 0) _fail("CHECKPOINT_INDEX", `${INDEX} maps no tensor`);
  return map;
}

/**
 * Most tensors the weight files of a checkpoint of this config may hold together, all that
 * `_checkTensors` accepts: the embedding, each layer's tensors and a RoPE buffer per layer, the
 * final norm, and `lm_head.weight` (required, or a tied copy). Each kind of layer (dense, MoE) is
 * listed once, so a config that names millions of tensors costs two layer maps.
 */
function _tensorBudget(config: DecoderConfig): number {
  const size = { dense: -1, moe: -1 };
  let total = 3;
  for (let i = 0; i < config.layers; i++) {
    const kind = isMoeLayer(config, i) ? "moe" : "dense";
    if (size[kind] < 0) size[kind] = layerTensorShapes(config, i).size;
    total += size[kind] + 1;
  }
  return total;
}

/** tensor -> file, checking the index against the files' own headers. */
function _locate(
  opened: Map<string, { st: SafetensorsFile }>,
  map: Map<string, string> | null,
): Map<string, string> {
  const where = new Map<string, string>();
  for (const [file, { st }] of opened) {
    for (const e of st.header.tensors) {
      const prev = where.get(e.name);
      if (prev !== undefined) {
        _fail(
          "CHECKPOINT_DUPLICATE_TENSOR",
          `tensor '${_esc(e.name)}' is in '${prev}' and '${file}'`,
        );
      }
      if (map !== null && map.get(e.name) !== file) {
        _fail(
          "CHECKPOINT_INDEX",
          `tensor '${_esc(e.name)}' is in '${file}' but the index says ${
            map.has(e.name) ? `'${map.get(e.name)}'` : "nothing"
          }`,
        );
      }
      where.set(e.name, file);
    }
  }
  if (map !== null) {
    for (const [tensor, file] of map) {
      if (!where.has(tensor)) {
        _fail("CHECKPOINT_INDEX", `the index puts '${_esc(tensor)}' in '${file}', which lacks it`);
      }
    }
  }
  return where;
}

/**
 * Checks every tensor the config implies (present, of its shape) and that nothing else is there;
 * returns the tensors stored as F32 or F16 (cast on read), the first load the stacks' loaders
 * make that is not modelled (a tensor of another dtype, a tensor the model does not have), or
 * null, for the caller to refuse after the rest, and (`keep`) the tensors missing and a tied
 * head's problem, which a refusing reader throws, and the tensors the model does not have.
 */
function _checkTensors(
  config: DecoderConfig,
  where: Map<string, string>,
  opened: Map<string, { st: SafetensorsFile }>,
  o: { readonly keep: boolean },
): {
  unmodelled: string | null;
  cast: [string, LoadCastDtype][];
  tiedHead: StoredTiedHeadProblem | null;
  missing: string[];
  extra: string[];
} {
  // Lazily, so that the first missing tensor stops the walk (a kept one, once more are missing
  // than the files hold): the config's counts are the prover's, the files' tensors are what
  // there is to compare.
  const shapes = new Set<string>();
  const cast: [string, LoadCastDtype][] = [];
  const missing: string[] = [];
  const extra: string[] = [];
  let unmodelled: string | null = null;
  let tiedHead: StoredTiedHeadProblem | null = null;
  for (const [name, shape] of decoderTensorEntries(config)) {
    shapes.add(name);
    const file = where.get(name);
    if (file === undefined) {
      if (!o.keep) _fail("CHECKPOINT_MISSING_TENSOR", `tensor '${name}' is missing`);
      missing.push(name);
      // Past this, the config is not the files' (the names left are not checked as extras).
      if (missing.length > where.size) return { unmodelled, cast, tiedHead, missing, extra };
      continue;
    }
    const e = opened.get(file)!.st.entry(name);
    if (isLoadCastDtype(e.dtype)) cast.push([name, e.dtype]);
    else if (e.dtype !== "BF16") unmodelled ??= _otherDtype(`'${name}'`, e.dtype);
    if (e.shape.join() !== shape.join()) {
      _fail(
        "CHECKPOINT_SHAPE",
        `tensor '${name}' has shape [${e.shape}], the config implies [${shape}]`,
      );
    }
  }
  for (const name of where.keys()) {
    if (shapes.has(name)) continue;
    // Per-layer RoPE buffers of old checkpoints: HF Transformers (`_adjust_missing_and_unexpected_
    // keys`) and vLLM's loaders drop them; the frequencies are computed from the config.
    if (_ROPE_BUFFER.test(name)) continue;
    if (name === "lm_head.weight" && config.tieWordEmbeddings) {
      tiedHead = _tiedHeadProblem(config, opened.get(where.get(name)!)!.st.entry(name));
      if (tiedHead === null || o.keep) continue;
      if (tiedHead.invalid) _fail("CHECKPOINT_SHAPE", tiedHead.message);
      unmodelled ??= tiedHead.message;
      tiedHead = null;
      continue;
    }
    extra.push(name);
    unmodelled ??= `tensor '${_esc(name)}' is not part of the config's model (HF Transformers ` +
      "drops it, vLLM's loaders refuse most such names)";
  }
  return { unmodelled, cast, tiedHead, missing, extra };
}

/**
 * What the reader refuses in a tied checkpoint's stored `lm_head.weight`, or null: another shape
 * than the embedding's (invalid), or a dtype whose load is not modelled (the embedding is read,
 * so any dtype the loaders cast is as good as BF16).
 */
function _tiedHeadProblem(
  config: DecoderConfig,
  e: SafetensorsEntry,
): StoredTiedHeadProblem | null {
  if (e.shape.join() !== `${config.vocab},${config.hidden}`) {
    return { invalid: true, message: `tensor 'lm_head.weight' (tied) is ${e.dtype} [${e.shape}]` };
  }
  if (e.dtype !== "BF16" && !isLoadCastDtype(e.dtype)) {
    return { invalid: false, message: _otherDtype("'lm_head.weight' (tied)", e.dtype) };
  }
  return null;
}

/** Why a tensor of a dtype whose load is not modelled is refused. */
function _otherDtype(tensor: string, dtype: string): string {
  return `tensor ${tensor} is ${dtype}, not BF16, F32 or F16 (loaders cast it to the model's ` +
    "dtype; only the F32 and F16 casts are modelled)";
}

/** Whether an entry is stored in a dtype `tensor` and `rows` cast to BF16. */
function _isCast(e: SafetensorsEntry): e is SafetensorsEntry & { dtype: LoadCastDtype } {
  return isLoadCastDtype(e.dtype);
}

/**
 * The first F32 or F16 tensor the forward reads that holds a NaN, as a refusal (the loaders'
 * BF16 pattern for it depends on where the cast runs: see `castToBf16`), or null. Each such
 * tensor is read once, a chunk at a time, and looked through, not cast.
 */
async function _castNan(
  cast: readonly [string, LoadCastDtype][],
  o: {
    readonly where: Map<string, string>;
    readonly opened: Map<string, { source: ByteSource; st: SafetensorsFile }>;
  },
): Promise<string | null> {
  for (const [name] of cast) {
    const { source, st } = o.opened.get(o.where.get(name)!)!;
    const entry = st.entry(name);
    if (!_isCast(entry)) continue;
    const nan = await _readCast(source, { entry, first: 0, count: entry.elementCount });
    if (nan >= 0) return _nanReason(name, entry.dtype, nan);
  }
  return null;
}

function _nanReason(name: string, dtype: LoadCastDtype, index: number): string {
  return `tensor '${name}' is ${dtype} and holds a NaN (element ${index}), whose BF16 pattern ` +
    "after the loaders' cast depends on where it runs (0x7FC0 by c10's scalar rule, 0xFFFF by " +
    "ATen's AVX2 and AVX-512 kernels, 0x7FFF on the GPU)";
}

/** Refuses a read that met a NaN (a file changed since it was opened and checked). */
function _noNan(name: string, entry: SafetensorsEntry & { dtype: LoadCastDtype }, nan: number) {
  if (nan < 0) return;
  _fail(
    "CHECKPOINT_LOAD_UNMODELLED",
    `${_nanReason(name, entry.dtype, nan)}; the stacks' loaders read it, in a way this version ` +
      "does not model",
  );
}

async function _small(
  source: ByteSource,
  { what, max }: { what: string; max: number },
): Promise<Uint8Array> {
  if (source.size > max) {
    _fail("CHECKPOINT_JSON", `${what} has ${source.size} bytes, above the ${max}-byte limit`);
  }
  return await readExactly(source, { offset: 0, length: source.size, what });
}

/** A per-layer `rotary_emb.inv_freq` buffer, which the model loaders skip. */
const _ROPE_BUFFER = /^model\.layers\.\d{1,4}\.self_attn\.rotary_emb\.inv_freq$/;

function _esc(s: string): string {
  const t = s.length > 120 ? s.slice(0, 117) + "..." : s;
  return t.replace(/[^\x20-\x7e]/g, "?");
}

function _fail(code: ModelCode, why: string): never {
  throw _error(code, why);
}

function _error(code: ModelCode, why: string): InputError {
  return new InputError(code, `Cannot open checkpoint: ${why}`);
}
