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
import {
  child,
  type Fields,
  fieldsOf,
  has,
  int,
  ints,
  oneOf,
  onlyKnown,
  str,
} from "../json_fields.ts";

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
/**
 * Most characters of a decimal text field (`rmsNormEps`, `rope.theta`): a Python float's repr
 * takes at most 24 (`2.2250738585072014e-308`); the schema states the same `maxLength`.
 */
export const MAX_DECIMAL_CHARS = 64;
const DECIMAL = new RegExp(`^(?=.{1,${MAX_DECIMAL_CHARS}}$)[0-9]+(\\.[0-9]+)?(e-?[0-9]+)?$`);

/**
 * Why a RoPE theta's text is refused, or null: it must be a decimal text of at most
 * {@link MAX_DECIMAL_CHARS} characters whose value is above 1. The record's `rope.theta` and the
 * simulated prover's scenario (`blocks.ropeTheta`) are held to this one rule, so a scenario cannot
 * write a theta the record parser refuses.
 *
 * @param text the theta as written
 * @returns the reason (for the caller to raise naming its field), or null
 * @example
 * ```ts
 * import { ropeThetaRefusal } from "./block_workload.ts";
 * if (ropeThetaRefusal("1e6") !== null) throw new Error();
 * if (ropeThetaRefusal("1") !== "must be a decimal > 1") throw new Error();
 * if (ropeThetaRefusal("1".repeat(65)) === null) throw new Error();
 * ```
 */
export function ropeThetaRefusal(text: string): string | null {
  if (!DECIMAL.test(text)) return `does not match ${DECIMAL}`;
  return Number(text) > 1 ? null : "must be a decimal > 1";
}

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
 * if (!msg.startsWith("$.predicate.workload.tokens")) throw new Error(msg);
 * ```
 */
export function parseBlockWorkload(
  json: unknown,
  ctx: { bad: (path: string, why: string) => never },
): BlockWorkload {
  const { bad } = ctx;
  const w = fieldsOf(json, "$.predicate.workload", bad);
  const kind = oneOf(w, "kind", ["attention_block", "ffn_block"] as const);
  const attention = kind === "attention_block";
  onlyKnown(w, [
    "kind",
    "tokens",
    "shape",
    "rmsNormEps",
    "kernel",
    "weights",
    "input",
    ...(attention ? ["attention"] : []),
  ]);
  const tokens = int(w, "tokens", { min: 1, max: 1 << 20 });
  const s = child(w, "shape", ["hidden", "intermediate", "heads", "kvHeads", "headDim"]);
  const wide = { min: 1, max: 1 << 20 };
  const heads = { min: 1, max: 1024 };
  const shape = {
    hidden: int(s, "hidden", wide),
    intermediate: int(s, "intermediate", wide),
    heads: int(s, "heads", heads),
    kvHeads: int(s, "kvHeads", heads),
    headDim: int(s, "headDim", heads),
  };
  const eps = str(w, "rmsNormEps", DECIMAL);
  if (!(Number(eps) > 0)) {
    bad(`${w.path}.rmsNormEps`, "must be a positive decimal string such as '1e-6'");
  }
  const names = BLOCK_WEIGHT_NAMES[kind];
  const ws = child(w, "weights", names);
  const weights: Record<string, string> = {};
  for (const name of names) weights[name] = str(ws, name, HEX64);
  const input = child(w, "input", ["sha256", "shape"]);
  const sh = ints(input, "shape", wide);
  if (sh.length !== 2 || sh[0] !== tokens || sh[1] !== shape.hidden) {
    bad(`${input.path}.shape`, `must be [${tokens}, ${shape.hidden}]`);
  }
  return Object.freeze({
    kind,
    tokens,
    shape: Object.freeze(shape),
    rmsNormEps: eps,
    kernel: parseKernelRef(w.obj.kernel, { path: `${w.path}.kernel`, bad }),
    ...(attention
      ? { attention: _attention(child(w, "attention", ["multiProcessorCount", "rope"])) }
      : {}),
    weights: Object.freeze(weights),
    input: Object.freeze({
      sha256: str(input, "sha256", HEX64),
      shape: [tokens, shape.hidden] as const,
    }),
  });
}

function _attention(a: Fields): NonNullable<BlockWorkload["attention"]> {
  const rope = child(a, "rope");
  let r: { theta: string } | { invFreqSha256: string };
  if (has(rope, "invFreqSha256")) {
    onlyKnown(rope, ["invFreqSha256"]);
    r = { invFreqSha256: str(rope, "invFreqSha256", HEX64) };
  } else {
    onlyKnown(rope, ["theta"]);
    const t = str(rope, "theta");
    const refused = ropeThetaRefusal(t);
    if (refused !== null) rope.fail(`${rope.path}.theta`, refused, "range");
    r = { theta: t };
  }
  return Object.freeze({
    multiProcessorCount: int(a, "multiProcessorCount", { min: 1, max: 4096 }),
    rope: Object.freeze(r),
  });
}
