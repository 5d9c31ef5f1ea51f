/**
 * Batch-size equivalence classes of decode: maximal runs of consecutive batch sizes whose decode
 * passes have the same {@link DecodeSignature} (every GEMM kernel with its kwargs, every norm's
 * reduction tree and mean factor, FA2's splits and blocks per split), so that each sequence gets
 * the same bits at any batch size of its class: GEMM rows do not mix, norms are per row given
 * the tree, attention is per sequence given the split launch.
 *
 * @module
 */
import { FA2_HEAD_DIMS, isFa2HeadDim } from "../../kernels/mod.ts";
import type { DecoderConfig } from "../checkpoint/mod.ts";
import { layerCalls, type ProjectionName } from "../decoder/mod.ts";
import {
  type DecodeSignature,
  decodeSignature,
  type DecodeSignatureOptions,
} from "./decode_signature.ts";
import { signatureEntries, type SignatureEntry } from "./signature_entries.ts";

/** Default largest batch size of {@link decodeClasses}. */
export const DEFAULT_MAX_BATCH = 256;

/** One class: batch sizes `from..to` share one signature. */
export interface DecodeClass {
  /** Smallest batch size. */
  readonly from: number;
  /** Largest batch size. */
  readonly to: number;
  /** The shared signature (the `reason` texts of uncovered GEMMs are those at `from`). */
  readonly signature: DecodeSignature;
  /** What differs from the previous class, `label: old -> new` (empty for the first). */
  readonly changes: readonly string[];
  /** GEMMs the dispatch does not cover in this class (their kernel, and bits, are unknown). */
  readonly uncovered: readonly ProjectionName[];
}

/** Options of {@link decodeClasses}. */
export interface DecodeClassesOptions extends DecodeSignatureOptions {
  /** Largest batch size (default {@link DEFAULT_MAX_BATCH}). */
  readonly maxBatch?: number;
  /**
   * The first batch size not to derive, and why (e.g. vLLM's all-reduce dispatch takes another
   * path than the named one from there): the classes stop below it, as for a batch not modelled.
   */
  readonly stopAt?: { readonly batch: number; readonly reason: string } | undefined;
}

/** The classes of batch sizes 1..maxBatch, and what limits them. */
export interface DecodeClasses {
  /** Cached tokens per sequence. */
  readonly context: number;
  /** SM count used for FA2's split heuristic. */
  readonly multiProcessorCount: number;
  /** Largest batch size asked for. */
  readonly maxBatch: number;
  /** Largest batch size derived (below `maxBatch` when a configuration is not modelled). */
  readonly lastBatch: number;
  /** The classes, covering 1..lastBatch in order. */
  readonly classes: readonly DecodeClass[];
  /**
   * True when the classes guarantee identical bits: every GEMM covered, every batch size
   * derived, no data-dependent (MoE expert) GEMM.
   */
  readonly complete: boolean;
  /** Why not complete, one line each (uncovered GEMMs by range, MoE experts, stops). */
  readonly notes: readonly string[];
  /** How piecewise CUDA graphs pad the batches (null without graphs). */
  readonly padding: string | null;
}

/**
 * Derives the decode classes of batch sizes 1..maxBatch for one model, dispatch, stack, device
 * and context. For MoE models the classes cover the dense part only (attention, norms, router,
 * lm_head): each expert's GEMMs run with M = the tokens routed to it, which depends on the data.
 *
 * @param config the model config
 * @param options dispatch, reduce stack, SM count, context L, `maxBatch`
 * @returns the classes and notes
 * @throws {RangeError} on a non-positive SM count or maxBatch, or a negative context
 * @example
 * ```ts
 * import { decodeClasses, fixedRecipeDispatch, parseDecoderConfig } from "../mod.ts";
 * import { REDUCE_STACK_CUDA_RECENT as reduceStack } from "../../kernels/mod.ts";
 * const config = parseDecoderConfig({
 *   model_type: "qwen3", vocab_size: 512, hidden_size: 256, intermediate_size: 768,
 *   num_hidden_layers: 2, num_attention_heads: 2, num_key_value_heads: 1, head_dim: 128,
 * });
 * const r = decodeClasses(config, {
 *   dispatch: fixedRecipeDispatch({ family: "single_walk" }), reduceStack,
 *   multiProcessorCount: 108, context: 100, maxBatch: 32,
 * });
 * // One key block: always one split; RMSNorm over 256 changes its tree at 16 rows.
 * if (r.classes.map((c) => `${c.from}-${c.to}`).join() !== "1-15,16-32") throw new Error();
 * if (!r.complete || r.classes[1]!.changes[0] !== "rms_norm tree: 64x1, 4/thread, vec -> 32x1, 8/thread, vec") {
 *   throw new Error(r.classes[1]!.changes[0]);
 * }
 * ```
 */
export function decodeClasses(config: DecoderConfig, options: DecodeClassesOptions): DecodeClasses {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  _check("maxBatch", maxBatch, 1);
  _check("SM count", options.multiProcessorCount, 1);
  _check("context", options.context, 0);
  const { classes, last, stop } = _group(config, { ...options, maxBatch });
  const notes = [...stop, ..._uncoveredNotes(classes), ..._modelNotes(config)];
  return Object.freeze({
    context: options.context,
    multiProcessorCount: options.multiProcessorCount,
    maxBatch,
    lastBatch: last,
    classes: Object.freeze(classes.map((c) => Object.freeze(c))),
    complete: notes.length === 0,
    notes: Object.freeze(notes),
    padding: _graphNote(options.captureSizes),
  });
}

function _check(what: string, v: number, min: number): void {
  if (!Number.isSafeInteger(v) || v < min) {
    throw new RangeError(`Cannot derive decode classes: ${what} ${v} must be an integer >= ${min}`);
  }
}

/** Batch sizes 1..maxBatch grouped by signature; stops at the first one not modelled. */
function _group(
  config: DecoderConfig,
  o: DecodeClassesOptions & { readonly maxBatch: number },
): { classes: DecodeClass[]; last: number; stop: string[] } {
  const classes: DecodeClass[] = [];
  let prev = null as { entries: readonly SignatureEntry[]; key: string } | null;
  for (let b = 1; b <= o.maxBatch; b++) {
    if (o.stopAt !== undefined && b >= o.stopAt.batch) {
      return {
        classes,
        last: b - 1,
        stop: [`batch ${b} and above not derived: ${o.stopAt.reason}`],
      };
    }
    let signature: DecodeSignature;
    try {
      signature = decodeSignature(config, { ...o, batch: b });
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      return { classes, last: b - 1, stop: [`batch ${b} and above not derived: ${e.message}`] };
    }
    const entries = signatureEntries(signature);
    const key = entries.map((e) => e.value).join("\n");
    const open = classes[classes.length - 1];
    if (open !== undefined && key === prev?.key) {
      classes[classes.length - 1] = { ...open, to: b };
      continue;
    }
    classes.push({
      from: b,
      to: b,
      signature,
      changes: Object.freeze(prev === null ? [] : _changes(prev.entries, entries)),
      uncovered: Object.freeze(signature.gemms.filter((g) => g.recipe === null).map((g) => g.name)),
    });
    prev = { entries, key };
  }
  return { classes, last: o.maxBatch, stop: [] };
}

/** Differing entries, those with the same `old -> new` grouped under one line. */
function _changes(a: readonly SignatureEntry[], b: readonly SignatureEntry[]): string[] {
  const byChange = new Map<string, string[]>();
  b.forEach((e, i) => {
    const old = a[i]!.value;
    if (old === e.value) return;
    const change = `${old} -> ${e.value}`;
    byChange.set(change, [...(byChange.get(change) ?? []), e.label]);
  });
  return [...byChange].map(([change, labels]) => `${labels.join(", ")}: ${change}`);
}

/** One note per uncovered GEMM: the batch ranges and the dispatch's reason at the first. */
function _uncoveredNotes(classes: readonly DecodeClass[]): string[] {
  const ranges = new Map<ProjectionName, { ranges: [number, number][]; reason: string }>();
  for (const c of classes) {
    for (const g of c.signature.gemms) {
      if (g.recipe !== null) continue;
      const r = ranges.get(g.name) ?? { ranges: [], reason: g.reason ?? "" };
      const tail = r.ranges[r.ranges.length - 1];
      if (tail !== undefined && tail[1] === c.from - 1) tail[1] = c.to;
      else r.ranges.push([c.from, c.to]);
      ranges.set(g.name, r);
    }
  }
  return [...ranges].map(([name, r]) => {
    const at = r.ranges.map(([a, b]) => (a === b ? `${a}` : `${a}..${b}`)).join(", ");
    const why = r.reason.startsWith(`${name}: `) ? r.reason.slice(name.length + 2) : r.reason;
    return `${name} not covered at batch ${at}: its kernel is unknown there, so those classes ` +
      `may split further (${why})`;
  });
}

/** How piecewise CUDA graphs pad the batches, or null. */
function _graphNote(sizes: readonly number[] | null | undefined): string | null {
  if (sizes === undefined || sizes === null) return null;
  const shown = sizes.length > 8
    ? `${sizes.slice(0, 6).join(", ")}, ..., ${sizes[sizes.length - 1]}`
    : sizes.join(", ");
  return `piecewise CUDA graphs: every batch up to ${sizes[sizes.length - 1]} runs its GEMMs ` +
    `and norms at the smallest capture size that holds it (${shown}), so batches padded to the ` +
    "same size share those kernels and classes are at least as coarse as the capture sizes; " +
    "attention and the LM head run at the real batch";
}

function _modelNotes(c: DecoderConfig): string[] {
  const notes: string[] = [];
  const moe = layerCalls(c).moe;
  if (moe !== undefined) {
    // The routed GEMMs by shape: `gate_proj/up_proj [f x h], down_proj [h x f]`.
    const byShape = new Map<string, string[]>();
    for (const l of moe.linears.filter((l) => l.routed)) {
      const shape = `[${l.n} x ${l.k}]`;
      byShape.set(shape, [...(byShape.get(shape) ?? []), l.name]);
    }
    const gemms = [...byShape].map(([shape, names]) => `${names.join("/")} ${shape}`).join(", ");
    notes.push(
      `MoE expert GEMMs (${gemms}) run with M = the tokens routed to each expert: per expert ` +
        "and data-dependent, not a function of the batch size; these classes cover the dense " +
        "part only",
    );
  }
  if (!isFa2HeadDim(c.headDim)) {
    notes.push(
      `FA2's split kernel is modelled for head dimensions ${FA2_HEAD_DIMS.join(", ")}; head ` +
        `dimension ${c.headDim} is not`,
    );
  }
  return notes;
}
