/**
 * The sequence workload of claim records: one sequence served by a continuous-batching engine,
 * through the forward passes that touched it (prefill, possibly in chunks, then one decode step
 * per generated token), fingerprinted at chosen positions of its last-layer final-norm hidden
 * state, with its generated tokens.
 *
 * ```
 * { "kind": "sequence",
 *   "model": {"type", "checkpointSha256", "configSha256", "files"},     (as model_forward)
 *   "kernel": {"recipe": {...}} | {"catalog", "catalogSha256"},
 *   "attention": {"multiProcessorCount": n},
 *   "history": {"sha256": "<hex>", "passes": n},      (the serving-history blob, by digest)
 *   "tokens": {"prompt": [ids...], "generated": [ids...]},
 *   "decoding": "greedy" | "sampled",  "sampler"?: "<text>"   (required when sampled)
 *   "positions": [p, ...],                  (positions fingerprinted, in order, each at most once)
 *   "layerChain"?: [{"attention": "<hex>", "mlp": "<hex>"}, ...] }
 * ```
 * The history blob (`serving_history.ts`) holds, per pass, its shape facts only: entries'
 * query and cached lengths, GEMM rows, LM head rows, MoE expert rows, and which entry is this
 * sequence. Neighbours' tokens are not part of the claim: they do not reach this sequence's bits.
 *
 * @module
 */
import { predicateReaders } from "./predicate_readers.ts";
import { type KernelRef, parseKernelRef } from "./gemm_workload.ts";
import { type ModelRef, parseLayerChain, parseModelRef } from "./model_ref.ts";
import { MAX_CLAIM_TOKENS } from "./model_forward_workload.ts";

/** A sequence workload. */
export interface SequenceWorkload {
  /** Workload tag. */
  readonly kind: "sequence";
  /** The checkpoint. */
  readonly model: ModelRef;
  /** The GEMM kernels: an explicit recipe or a dispatch catalog. */
  readonly kernel: KernelRef;
  /** Attention launch facts that choose kernels (streaming multiprocessor count). */
  readonly attention: { readonly multiProcessorCount: number };
  /** The serving history blob: its SHA-256 and number of passes. */
  readonly history: { readonly sha256: string; readonly passes: number };
  /** The prompt and the generated tokens. */
  readonly tokens: { readonly prompt: readonly number[]; readonly generated: readonly number[] };
  /** How generated tokens were chosen. */
  readonly decoding: "greedy" | "sampled";
  /** The sampler of sampled decoding (free text, recorded, not interpreted). */
  readonly sampler?: string;
  /** Positions fingerprinted, in order (each computed by some pass, each at most once). */
  readonly positions: readonly number[];
  /** Optional per-layer hash chain over the fingerprinted rows. */
  readonly layerChain?: readonly { readonly attention: string; readonly mlp: string }[];
}

const TEXT = /^[\x20-\x7e]{1,200}$/;

/**
 * Validates a sequence workload.
 *
 * @param json parsed value (its `kind` is `sequence`)
 * @param ctx `bad(path, why)` raises the caller's coded error
 * @returns the workload
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
 * import { parseSequenceWorkload } from "./sequence_workload.ts";
 * let msg = "";
 * try {
 *   parseSequenceWorkload({ kind: "sequence" }, { bad: (p, w) => { throw new Error(`${p} ${w}`); } });
 * } catch (e) { msg = (e as Error).message; }
 * if (!msg.startsWith("predicate.workload")) throw new Error(msg);
 * ```
 */
export function parseSequenceWorkload(
  json: unknown,
  ctx: { bad: (path: string, why: string) => never },
): SequenceWorkload {
  const { bad } = ctx;
  const P = "predicate.workload";
  const { obj, int, hex, list } = predicateReaders(bad);
  const w = obj(json, P, [
    "kind",
    "model",
    "kernel",
    "attention",
    "history",
    "tokens",
    "decoding",
    "sampler",
    "positions",
    "layerChain",
  ]);
  const a = obj(w.attention, `${P}.attention`, ["multiProcessorCount"]);
  const h = obj(w.history, `${P}.history`, ["sha256", "passes"]);
  const t = obj(w.tokens, `${P}.tokens`, ["prompt", "generated"]);
  const ids = (v: unknown, path: string, min: number) =>
    Object.freeze(
      list(v, path, min, MAX_CLAIM_TOKENS).map((id, j) => int(id, `${path}[${j}]`, 0, 1 << 24)),
    );
  const prompt = ids(t.prompt, `${P}.tokens.prompt`, 1);
  const generated = ids(t.generated, `${P}.tokens.generated`, 0);
  const total = prompt.length + generated.length;
  if (total > MAX_CLAIM_TOKENS) bad(`${P}.tokens`, `must hold at most ${MAX_CLAIM_TOKENS} tokens`);
  const decoding = w.decoding === "greedy" || w.decoding === "sampled"
    ? w.decoding
    : bad(`${P}.decoding`, "must be 'greedy' or 'sampled'");
  if ((decoding === "sampled") !== (w.sampler !== undefined)) {
    bad(`${P}.sampler`, "must be given exactly when decoding is 'sampled'");
  }
  const sampler = w.sampler === undefined
    ? undefined
    : typeof w.sampler === "string" && TEXT.test(w.sampler)
    ? w.sampler
    : bad(`${P}.sampler`, "must be 1..200 printable ASCII characters");
  // Every token but the last generated one is an input of some pass.
  const computed = generated.length === 0 ? prompt.length : total - 1;
  // Each position at most once (a repeat binds nothing more and would size the fingerprint by
  // the list rather than by the tokens computed).
  const seen = new Set<number>();
  const positions = list(w.positions, `${P}.positions`, 1, MAX_CLAIM_TOKENS).map((p, i) => {
    const pos = int(p, `${P}.positions[${i}]`, 0, computed - 1);
    if (seen.has(pos)) bad(`${P}.positions[${i}]`, `repeats position ${pos}`);
    seen.add(pos);
    return pos;
  });
  const chain = parseLayerChain(w.layerChain, { path: `${P}.layerChain`, bad });
  return Object.freeze({
    kind: "sequence",
    model: parseModelRef(w.model, { path: `${P}.model`, bad }),
    kernel: parseKernelRef(w.kernel, { path: `${P}.kernel`, bad }),
    attention: Object.freeze({
      multiProcessorCount: int(
        a.multiProcessorCount,
        `${P}.attention.multiProcessorCount`,
        1,
        4096,
      ),
    }),
    history: Object.freeze({
      sha256: hex(h.sha256, `${P}.history.sha256`),
      passes: int(h.passes, `${P}.history.passes`, 1, 1 << 16),
    }),
    tokens: Object.freeze({ prompt, generated }),
    decoding,
    ...(sampler === undefined ? {} : { sampler }),
    positions: Object.freeze(positions),
    ...(chain === undefined ? {} : { layerChain: Object.freeze(chain) }),
  });
}
