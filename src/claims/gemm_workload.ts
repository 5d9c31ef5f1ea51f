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
 * if (!msg.startsWith("predicate.workload.kind")) throw new Error(msg);
 * ```
 */
export function parseGemmWorkload(
  json: unknown,
  ctx: { where: string; bad: (path: string, why: string) => never },
): GemmWorkload {
  const { bad } = ctx;
  const P = "predicate.workload";
  const obj = (v: unknown, path: string) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? v as Record<string, unknown>
      : bad(path, "must be an object");
  const w = obj(json, P);
  if (w.kind !== "gemm") {
    bad(`${P}.kind`, "must be 'gemm' (the only workload kind of this version)");
  }
  const dim = (v: unknown, path: string) =>
    Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= 1 << 24
      ? v as number
      : bad(path, "must be an integer in 1..16777216");
  const m = dim(w.m, `${P}.m`);
  const n = dim(w.n, `${P}.n`);
  const k = dim(w.k, `${P}.k`);
  const fmt = (v: unknown, path: string) =>
    v === "bf16" || v === "fp16" ? v : bad(path, "must be 'bf16' or 'fp16'");
  if (w.layout !== "tn") bad(`${P}.layout`, "must be 'tn'");
  const tensor = (v: unknown, path: string, rows: number) => {
    const t = obj(v, path);
    if (typeof t.sha256 !== "string" || !HEX64.test(t.sha256)) {
      bad(`${path}.sha256`, "must be 64 lowercase hex digits");
    }
    if (
      !Array.isArray(t.shape) || t.shape.length !== 2 || t.shape[0] !== rows || t.shape[1] !== k
    ) {
      bad(`${path}.shape`, `must be [${rows}, ${k}]`);
    }
    return { sha256: t.sha256 as string, shape: [rows, k] as const };
  };
  const kernel = parseKernelRef(w.kernel, { path: `${P}.kernel`, bad });
  return {
    kind: "gemm",
    m,
    n,
    k,
    dtype: fmt(w.dtype, `${P}.dtype`),
    out: fmt(w.out, `${P}.out`),
    layout: "tn",
    kernel,
    weights: tensor(w.weights, `${P}.weights`, n),
    input: tensor(w.input, `${P}.input`, m),
  };
}

/**
 * Validates a kernel reference (`{recipe}` or `{catalog, catalogSha256}`).
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
  const { path, bad } = ctx;
  const isObj = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObj(json)) return bad(path, "must be an object");
  const kern = json as Record<string, unknown>;
  if ("recipe" in kern) {
    if (Object.keys(kern).length !== 1) bad(path, "must hold only 'recipe'");
    if (!isObj(kern.recipe)) bad(`${path}.recipe`, "must be an object");
    return { recipe: kern.recipe as Record<string, unknown> };
  }
  if (
    typeof kern.catalog !== "string" || typeof kern.catalogSha256 !== "string" ||
    !HEX64.test(kern.catalogSha256)
  ) {
    bad(path, "must be {recipe} or {catalog, catalogSha256}");
  }
  return { catalog: kern.catalog as string, catalogSha256: kern.catalogSha256 as string };
}
