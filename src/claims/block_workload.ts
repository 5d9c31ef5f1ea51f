/**
 * The block workloads of claim records: one attention block or one FFN block of a dense decoder
 * layer (Qwen3), prefill of one sequence from position 0, BF16 activations and weights.
 *
 * ```
 * { "kind": "attention_block" | "ffn_block", "tokens": T,
 *   "shape": {"hidden", "intermediate", "heads", "kvHeads", "headDim"},
 *   "rmsNormEps": "1e-6",                       (the Python float, as a decimal string)
 *   "kernel": {"recipe": {...}} | {"catalog", "catalogSha256"},     (every projection's GEMM)
 *   "attention": {"multiProcessorCount": n,
 *                 "rope": {"theta": "1000000"} | {"invFreqSha256": "<hex>"}},  (attention only)
 *   "weights": {"<name>": "<sha256>", ...},
 *   "input": {"sha256", "shape": [T, hidden]} }
 * ```
 * Weight names: attention `norm, q, k, v, o, qNorm, kNorm`; FFN `norm, gate, up, down`. Tensors are
 * referenced by the SHA-256 of their raw little-endian bytes (`invFreqSha256`: 64 FP32 values for
 * head dim 128). The fingerprint names the block output `out` ([T, hidden], BF16).
 *
 * @module
 */
import { type KernelRef, parseKernelRef } from "./gemm_workload.ts";

/** Weight names of each block kind. */
export const BLOCK_WEIGHT_NAMES: Readonly<{
  attention_block: readonly ["norm", "q", "k", "v", "o", "qNorm", "kNorm"];
  ffn_block: readonly ["norm", "gate", "up", "down"];
}> = Object.freeze({
  attention_block: Object.freeze(["norm", "q", "k", "v", "o", "qNorm", "kNorm"] as const),
  ffn_block: Object.freeze(["norm", "gate", "up", "down"] as const),
});

/** A block workload. */
export interface BlockWorkload {
  /** Which block of a decoder layer. */
  readonly kind: "attention_block" | "ffn_block";
  /** Tokens of the one sequence the block runs on. */
  readonly tokens: number;
  /** The layer shape (hidden size, FFN width, heads, KV heads, head dimension). */
  readonly shape: {
    readonly hidden: number;
    readonly intermediate: number;
    readonly heads: number;
    readonly kvHeads: number;
    readonly headDim: number;
  };
  /** `rms_norm_eps` as the decimal text of the Python float. */
  readonly rmsNormEps: string;
  /** The kernel of the block's projections. */
  readonly kernel: KernelRef;
  /** Attention launch facts (attention blocks only). */
  readonly attention?: {
    readonly multiProcessorCount: number;
    readonly rope: { readonly theta: string } | { readonly invFreqSha256: string };
  };
  /** Weight digests by name. */
  readonly weights: Readonly<Record<string, string>>;
  /** The block input [T, hidden], BF16: digest of its bytes and its shape. */
  readonly input: { readonly sha256: string; readonly shape: readonly [number, number] };
}

const HEX64 = /^[0-9a-f]{64}$/;
const DECIMAL = /^[0-9]+(\.[0-9]+)?(e-?[0-9]+)?$/;

/**
 * Validates a block workload.
 *
 * @param json parsed value (its `kind` is `attention_block` or `ffn_block`)
 * @param ctx `bad(path, why)` raises the caller's coded error
 * @returns the workload
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
 * import { parseBlockWorkload } from "./block_workload.ts";
 * let msg = "";
 * try {
 *   parseBlockWorkload({ kind: "ffn_block", tokens: 0 }, { bad: (p, w) => { throw new Error(`${p} ${w}`); } });
 * } catch (e) { msg = (e as Error).message; }
 * if (!msg.startsWith("predicate.workload.tokens")) throw new Error(msg);
 * ```
 */
export function parseBlockWorkload(
  json: unknown,
  ctx: { bad: (path: string, why: string) => never },
): BlockWorkload {
  const { bad } = ctx;
  const P = "predicate.workload";
  const obj = (v: unknown, path: string) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? v as Record<string, unknown>
      : bad(path, "must be an object");
  const only = (o: Record<string, unknown>, path: string, keys: readonly string[]) => {
    for (const key of Object.keys(o)) {
      if (!keys.includes(key)) bad(`${path}.${key}`, "unknown field");
    }
  };
  const int = (v: unknown, path: string, max: number) =>
    Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= max
      ? v as number
      : bad(path, `must be an integer in 1..${max}`);
  const hex = (v: unknown, path: string) =>
    typeof v === "string" && HEX64.test(v) ? v : bad(path, "must be 64 lowercase hex digits");
  const w = obj(json, P);
  const kind = w.kind === "attention_block" || w.kind === "ffn_block"
    ? w.kind
    : bad(`${P}.kind`, "must be 'attention_block' or 'ffn_block'");
  const attention = kind === "attention_block";
  only(w, P, [
    "kind",
    "tokens",
    "shape",
    "rmsNormEps",
    "kernel",
    "weights",
    "input",
    ...(attention ? ["attention"] : []),
  ]);
  const tokens = int(w.tokens, `${P}.tokens`, 1 << 20);
  const s = obj(w.shape, `${P}.shape`);
  only(s, `${P}.shape`, ["hidden", "intermediate", "heads", "kvHeads", "headDim"]);
  const shape = {
    hidden: int(s.hidden, `${P}.shape.hidden`, 1 << 20),
    intermediate: int(s.intermediate, `${P}.shape.intermediate`, 1 << 20),
    heads: int(s.heads, `${P}.shape.heads`, 1024),
    kvHeads: int(s.kvHeads, `${P}.shape.kvHeads`, 1024),
    headDim: int(s.headDim, `${P}.shape.headDim`, 1024),
  };
  const eps = w.rmsNormEps;
  if (typeof eps !== "string" || !DECIMAL.test(eps) || !(Number(eps) > 0)) {
    bad(`${P}.rmsNormEps`, "must be a positive decimal string such as '1e-6'");
  }
  const names = BLOCK_WEIGHT_NAMES[kind];
  const ws = obj(w.weights, `${P}.weights`);
  only(ws, `${P}.weights`, names);
  const weights: Record<string, string> = {};
  for (const name of names) weights[name] = hex(ws[name], `${P}.weights.${name}`);
  const input = obj(w.input, `${P}.input`);
  const sh = input.shape;
  if (!Array.isArray(sh) || sh.length !== 2 || sh[0] !== tokens || sh[1] !== shape.hidden) {
    bad(`${P}.input.shape`, `must be [${tokens}, ${shape.hidden}]`);
  }
  return Object.freeze({
    kind,
    tokens,
    shape: Object.freeze(shape),
    rmsNormEps: eps as string,
    kernel: parseKernelRef(w.kernel, { path: `${P}.kernel`, bad }),
    ...(attention ? { attention: _attention(w.attention, { obj, only, int, hex, bad }) } : {}),
    weights: Object.freeze(weights),
    input: Object.freeze({
      sha256: hex(input.sha256, `${P}.input.sha256`),
      shape: [tokens, shape.hidden] as const,
    }),
  });
}

function _attention(
  json: unknown,
  h: {
    obj: (v: unknown, path: string) => Record<string, unknown>;
    only: (o: Record<string, unknown>, path: string, keys: readonly string[]) => void;
    int: (v: unknown, path: string, max: number) => number;
    hex: (v: unknown, path: string) => string;
    bad: (path: string, why: string) => never;
  },
): NonNullable<BlockWorkload["attention"]> {
  const P = "predicate.workload.attention";
  const a = h.obj(json, P);
  h.only(a, P, ["multiProcessorCount", "rope"]);
  const rope = h.obj(a.rope, `${P}.rope`);
  let r: { theta: string } | { invFreqSha256: string };
  if ("invFreqSha256" in rope) {
    h.only(rope, `${P}.rope`, ["invFreqSha256"]);
    r = { invFreqSha256: h.hex(rope.invFreqSha256, `${P}.rope.invFreqSha256`) };
  } else {
    h.only(rope, `${P}.rope`, ["theta"]);
    const t = rope.theta;
    if (typeof t !== "string" || !DECIMAL.test(t) || !(Number(t) > 1)) {
      h.bad(`${P}.rope`, "must be {theta: '<decimal > 1>'} or {invFreqSha256}");
    }
    r = { theta: t as string };
  }
  return Object.freeze({
    multiProcessorCount: h.int(a.multiProcessorCount, `${P}.multiProcessorCount`, 4096),
    rope: Object.freeze(r),
  });
}
