/**
 * The model-forward workload of claim records: one prefill forward pass of a Qwen3 or
 * Qwen3-MoE checkpoint over a batch of sequences, fingerprinted at the last layer's final-norm
 * hidden state.
 *
 * ```
 * { "kind": "model_forward",
 *   "model": {"type": "qwen3"|"qwen3_moe", "checkpointSha256": "<hex>", "configSha256": "<hex>",
 *             "files": {"<weight file>": "<sha256>", ...}},
 *   "tokens": {"sequences": [[ids...], ...], "padTokenId"?: n},   (the batch, in order)
 *   "kernel": {"recipe": {...}} | {"catalog", "catalogSha256"},     (every GEMM's kernel)
 *   "attention": {"multiProcessorCount": n},
 *   "positions": [[seq, pos], ...],                     (rows fingerprinted, each at most once)
 *   "layerChain"?: [{"attention": "<hex>", "mlp": "<hex>"}, ...] }  (one entry per layer)
 * ```
 * The checkpoint digest follows `bitaudit.checkpoint-digest/v1` over `files`; the config is
 * `config.json` by its SHA-256. The batch composition is the token lists themselves (how they
 * become GEMM rows is the stack's `batching`). The fingerprint names `model.norm.out`
 * ([positions, hidden], BF16) and the chain is defined in `src/model/forward/fingerprint.ts`.
 *
 * @module
 */
import { predicateReaders } from "./predicate_readers.ts";
import { type KernelRef, parseKernelRef } from "./gemm_workload.ts";
import { type ModelRef, parseLayerChain, parseModelRef } from "./model_ref.ts";

/** A model-forward workload. */
export interface ModelForwardWorkload {
  /** Workload tag. */
  readonly kind: "model_forward";
  /** The checkpoint: model type, digests of the checkpoint and config, and each file's sha256. */
  readonly model: ModelRef;
  /** Token ids of each sequence of the batch, and the pad token when the stack pads. */
  readonly tokens: {
    readonly sequences: readonly (readonly number[])[];
    readonly padTokenId?: number;
  };
  /** The GEMM kernels: an explicit recipe or a dispatch catalog. */
  readonly kernel: KernelRef;
  /** Attention launch facts that choose kernels (streaming multiprocessor count). */
  readonly attention: { readonly multiProcessorCount: number };
  /** `[sequence, token]` pairs, each row at most once. */
  readonly positions: readonly (readonly [number, number])[];
  /** Optional per-layer hash chain (attention and MLP outputs at the fingerprinted positions). */
  readonly layerChain?: readonly { readonly attention: string; readonly mlp: string }[];
}

/** Most tokens of a claimed batch. */
export const MAX_CLAIM_TOKENS = 1 << 16;

/**
 * Validates a model-forward workload.
 *
 * @param json parsed value (its `kind` is `model_forward`)
 * @param ctx `bad(path, why)` raises the caller's coded error
 * @returns the workload
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
 * import { parseModelForwardWorkload } from "./model_forward_workload.ts";
 * let msg = "";
 * try {
 *   parseModelForwardWorkload({ kind: "model_forward" }, { bad: (p, w) => { throw new Error(`${p} ${w}`); } });
 * } catch (e) { msg = (e as Error).message; }
 * if (!msg.startsWith("predicate.workload")) throw new Error(msg);
 * ```
 */
export function parseModelForwardWorkload(
  json: unknown,
  ctx: { bad: (path: string, why: string) => never },
): ModelForwardWorkload {
  const { bad } = ctx;
  const P = "predicate.workload";
  const { obj, int, list } = predicateReaders(bad);
  const w = obj(json, P, [
    "kind",
    "model",
    "tokens",
    "kernel",
    "attention",
    "positions",
    "layerChain",
  ]);
  const model = parseModelRef(w.model, { path: `${P}.model`, bad });
  const t = obj(w.tokens, `${P}.tokens`, ["sequences", "padTokenId"]);
  let total = 0;
  const sequences = list(t.sequences, `${P}.tokens.sequences`, 1, 4096).map((s, i) => {
    const path = `${P}.tokens.sequences[${i}]`;
    const ids = list(s, path, 1, MAX_CLAIM_TOKENS);
    total += ids.length;
    if (total > MAX_CLAIM_TOKENS) {
      bad(`${P}.tokens`, `must hold at most ${MAX_CLAIM_TOKENS} tokens`);
    }
    return Object.freeze(ids.map((id, j) => int(id, `${path}[${j}]`, 0, 1 << 24)));
  });
  const a = obj(w.attention, `${P}.attention`, ["multiProcessorCount"]);
  // Each row at most once: a repeated row binds nothing more, and it would size the fingerprint
  // (rows x hidden) by the list rather than by the tokens computed.
  const seen = new Set<number>();
  const positions = list(w.positions, `${P}.positions`, 1, MAX_CLAIM_TOKENS).map((p, i) => {
    const path = `${P}.positions[${i}]`;
    const pair = Array.isArray(p) && p.length === 2 ? p : bad(path, "must be [sequence, token]");
    const seq = int(pair[0], path, 0, sequences.length - 1);
    const pos = int(pair[1], path, 0, sequences[seq]!.length - 1);
    // seq < 4096 and pos < 2^16: one exact key a row.
    if (seen.has(seq * MAX_CLAIM_TOKENS + pos)) bad(path, `repeats the row [${seq}, ${pos}]`);
    seen.add(seq * MAX_CLAIM_TOKENS + pos);
    return Object.freeze([seq, pos] as const);
  });
  const chain = parseLayerChain(w.layerChain, { path: `${P}.layerChain`, bad });
  return Object.freeze({
    kind: "model_forward",
    model,
    tokens: Object.freeze({
      sequences: Object.freeze(sequences),
      ...(t.padTokenId === undefined
        ? {}
        : { padTokenId: int(t.padTokenId, `${P}.tokens.padTokenId`, 0, 1 << 24) }),
    }),
    kernel: parseKernelRef(w.kernel, { path: `${P}.kernel`, bad }),
    attention: Object.freeze({
      multiProcessorCount: int(
        a.multiProcessorCount,
        `${P}.attention.multiProcessorCount`,
        1,
        4096,
      ),
    }),
    positions: Object.freeze(positions),
    ...(chain === undefined ? {} : { layerChain: Object.freeze(chain) }),
  });
}
