/**
 * The `gemm` workload of claim records: y = x W^T as `torch.nn.functional.linear` computes it.
 *
 * ```
 * { "kind": "gemm", "m", "n", "k", "dtype": "bf16"|"fp16", "out": "bf16"|"fp16", "layout": "tn",
 *   "kernel": {"recipe": <recipe descriptor>} | {"catalog": "<id>", "catalogSha256": "<hex>"},
 *   "weights": {"sha256", "shape": [N, K]}, "input": {"sha256", "shape": [M, K]} }
 * ```
 * Tensors are referenced by the SHA-256 of their raw little-endian bytes.
 *
 * @module
 */
import { child, fieldsOf, has, int, ints, oneOf, onlyKnown, str } from "../json_fields.ts";

/** The GEMM kernel of a record: an explicit recipe descriptor, or a dispatch catalog by digest. */
export type KernelRef =
  | { readonly recipe: Readonly<Record<string, unknown>> }
  | { readonly catalog: string; readonly catalogSha256: string };

/** A GEMM workload. */
export interface GemmWorkload {
  /** The workload kind. */
  readonly kind: "gemm";
  /** Rows of the input (tokens). */
  readonly m: number;
  /** Rows of the weight matrix (output features). */
  readonly n: number;
  /** Reduction length (input features). */
  readonly k: number;
  /** Element type of both operands. */
  readonly dtype: "bf16" | "fp16";
  /** Element type of the output. */
  readonly out: "bf16" | "fp16";
  /** Operand layout: `x [M, K]` times `W [N, K]` transposed. */
  readonly layout: "tn";
  /**
   * Accumulator type of the products; absent: `fp32`. `fp16` (cuBLAS `CUBLAS_COMPUTE_16F`, fp16
   * operands only) is a claim of its own, so that a pass that ran it is not judged as FP32.
   */
  readonly accumulator?: "fp32" | "fp16";
  /** The kernel: an explicit recipe descriptor, or a dispatch catalog to look the shape up in. */
  readonly kernel: KernelRef;
  /** The weights W [N, K]: digest of their bytes and their shape. */
  readonly weights: { readonly sha256: string; readonly shape: readonly [number, number] };
  /** The input x [M, K]: digest of its bytes and its shape. */
  readonly input: { readonly sha256: string; readonly shape: readonly [number, number] };
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Validates a `gemm` workload.
 *
 * @param json parsed value
 * @param ctx `bad(path, why)` raises the caller's coded error
 * @returns the workload
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
 * import { parseGemmWorkload } from "./gemm_workload.ts";
 * let msg = "";
 * try {
 *   parseGemmWorkload({ kind: "conv" }, { where: "t", bad: (p, w) => { throw new Error(`${p} ${w}`); } });
 * } catch (e) { msg = (e as Error).message; }
 * if (!msg.startsWith("$.predicate.workload.kind")) throw new Error(msg);
 * ```
 */
export function parseGemmWorkload(
  json: unknown,
  ctx: { where: string; bad: (path: string, why: string) => never },
): GemmWorkload {
  const { bad } = ctx;
  const P = "$.predicate.workload";
  const w = fieldsOf(json, P, bad);
  if (w.obj.kind !== "gemm") {
    bad(`${P}.kind`, "must be 'gemm' (the only workload kind of this version)");
  }
  onlyKnown(w, [
    "kind",
    "m",
    "n",
    "k",
    "dtype",
    "out",
    "layout",
    "accumulator",
    "kernel",
    "weights",
    "input",
  ]);
  const dim = { min: 1, max: 1 << 24 };
  const m = int(w, "m", dim);
  const n = int(w, "n", dim);
  const k = int(w, "k", dim);
  const formats = ["bf16", "fp16"] as const;
  if (w.obj.layout !== "tn") bad(`${P}.layout`, "must be 'tn'");
  const tensor = (key: string, rows: number) => {
    const t = child(w, key, ["sha256", "shape"]);
    const sha256 = str(t, "sha256", HEX64);
    const shape = ints(t, "shape", dim);
    if (shape.length !== 2 || shape[0] !== rows || shape[1] !== k) {
      bad(`${t.path}.shape`, `must be [${rows}, ${k}]`);
    }
    return { sha256, shape: [rows, k] as const };
  };
  const dtype = oneOf(w, "dtype", formats);
  const accumulator = w.obj.accumulator === undefined
    ? undefined
    : oneOf(w, "accumulator", ["fp32", "fp16"] as const);
  if (accumulator === "fp16" && dtype !== "fp16") {
    bad(`${P}.accumulator`, "an fp16 accumulator takes fp16 operands only");
  }
  return {
    kind: "gemm",
    m,
    n,
    k,
    dtype,
    out: oneOf(w, "out", formats),
    layout: "tn",
    ...(accumulator === undefined ? {} : { accumulator }),
    kernel: parseKernelRef(w.obj.kernel, { path: `${P}.kernel`, bad }),
    weights: tensor("weights", n),
    input: tensor("input", m),
  };
}

/**
 * Validates a kernel reference (`{recipe}` or `{catalog, catalogSha256}`). The recipe descriptor
 * is kept verbatim (its fields are checked when the recipe is resolved).
 *
 * @param json parsed value
 * @param ctx the field's path and `bad(path, why)`, which raises the caller's coded error
 * @returns the reference
 * @throws whatever `ctx.bad` throws
 * @example
 * ```ts
 * import { parseKernelRef } from "./gemm_workload.ts";
 * const bad = (p: string, w: string): never => { throw new Error(`${p} ${w}`); };
 * const r = parseKernelRef({ recipe: { family: "single_walk" } }, { path: "k", bad });
 * if (!("recipe" in r)) throw new Error();
 * ```
 */
export function parseKernelRef(
  json: unknown,
  ctx: { path: string; bad: (path: string, why: string) => never },
): KernelRef {
  const kern = fieldsOf(json, ctx.path, ctx.bad);
  if (has(kern, "recipe")) {
    onlyKnown(kern, ["recipe"]);
    return { recipe: child(kern, "recipe").obj };
  }
  onlyKnown(kern, ["catalog", "catalogSha256"]);
  return {
    catalog: str(kern, "catalog", CATALOG_ID),
    catalogSha256: str(kern, "catalogSha256", HEX64),
  };
}

/** Catalog ids: lowercase names with digits, dots, dashes and underscores. */
const CATALOG_ID = /^[A-Za-z0-9._-]{1,128}$/;
