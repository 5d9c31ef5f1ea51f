/**
 * Row-grouped operators, the ones every decoder driver runs its layers with. Each activation row
 * records the row count of the launch it ran in on the GPU (a prefill batch: all rows; a serving
 * replay: its pass's rows); rows whose launches dispatch the same GEMM recipe (or the same norm
 * launch) are computed in one call, which gives the same bits because rows never mix: every GEMM
 * recipe computes an output element from one row of A, and a norm reduces each row alone with
 * the configuration fixed by the launch's row count.
 *
 * `linearRows` is the one linear operation of the model code: it asks the runtime's dispatch for
 * the kernel of each launch shape (with or without a bias), runs it, and applies the bias in the
 * epilogue as PyTorch's `addmm` does (`addBiasEpilogue`).
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import {
  addBiasEpilogue,
  type GemmRecipe,
  type GemmResult,
  type ReduceStack,
  rmsNorm,
  type RmsNormResult,
  runGemmRecipe,
  vllmFusedAddRmsNormOfSum,
  vllmRmsNorm,
} from "../../kernels/mod.ts";
import type { BlockRuntime, ProjectionName } from "./block_runtime.ts";
import { ForwardUnsupported } from "./forward_support.ts";

/** Row i of the computed activations ran in a launch of `launchRows[i]` rows. */
export type LaunchRows = Int32Array;

/**
 * Receives a kernel's whole result for some rows: those of `rows` (ascending), or every row in
 * order when `rows` is undefined.
 */
export type RowsResult<R> = (result: R, rows: readonly number[] | undefined) => void;

/**
 * Groups row indices by a key, keeping the first-seen order of keys and ascending rows.
 *
 * @param n rows
 * @param key the key of row i
 * @returns groups of row indices
 * @example
 * ```ts
 * import { groupRows } from "./row_ops.ts";
 * const g = groupRows(4, (i) => i % 2);
 * if (g.length !== 2 || g[0]!.join() !== "0,2") throw new Error();
 * ```
 */
export function groupRows<K>(n: number, key: (i: number) => K): number[][] {
  const groups = new Map<K, number[]>();
  for (let i = 0; i < n; i++) {
    const k = key(i);
    let g = groups.get(k);
    if (g === undefined) groups.set(k, g = []);
    g.push(i);
  }
  return [...groups.values()];
}

/**
 * Copies chosen rows of a matrix into a new one.
 *
 * @param a [n, width]
 * @param rows row indices
 * @param width row width
 * @returns [rows.length, width]
 * @example
 * ```ts
 * import { pickRows } from "./row_ops.ts";
 * if (pickRows(new Uint16Array([1, 2, 3, 4]), [1], 2).join() !== "3,4") throw new Error();
 * ```
 */
export function pickRows(a: Uint16Array, rows: readonly number[], width: number): Uint16Array {
  const out = new Uint16Array(rows.length * width);
  rows.forEach((r, i) => out.set(a.subarray(r * width, (r + 1) * width), i * width));
  return out;
}

/**
 * Concatenates row-major blocks (weights or biases): the rows of a merged projection, e.g. a
 * rank's q, k and v blocks, or an expert's gate rows then up rows.
 *
 * @param parts the blocks, in order
 * @returns one array holding them back to back
 * @example
 * ```ts
 * import { concatRows } from "./row_ops.ts";
 * if (concatRows([new Uint16Array([1]), new Uint16Array([2, 3])]).join() !== "1,2,3") throw new Error();
 * ```
 */
export function concatRows(parts: readonly Uint16Array[]): Uint16Array {
  const out = new Uint16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function _put(dst: Uint16Array, src: Uint16Array, rows: readonly number[], width: number): void {
  rows.forEach((r, i) => dst.set(src.subarray(i * width, (i + 1) * width), r * width));
}

/**
 * y = x W^T (+ b) (BF16 out) for rows that ran in launches of different sizes: each row with the
 * recipe its launch's row count dispatches, rows sharing a recipe in one call.
 *
 * @param x activations [rows, k]
 * @param o runtime, datapath, the projection (`name`, `n`, `k`), the weight [n, k], the `bias`
 *   [n] if the layer has one, each row's launch rows (`m` of its call), and `onResult`, which
 *   receives each call's GEMM result (bias included) with the rows it computed
 * @returns y [rows, n]
 * @throws {ForwardUnsupported} when the dispatch does not cover a launch's shape, or a bias meets
 *   a kernel whose bias epilogue is not modelled
 * @example
 * ```ts ignore
 * const q = await linearRows(h, { runtime, datapath, name: "q_proj", n, k, weight, launchRows });
 * ```
 */
export async function linearRows(
  x: Uint16Array,
  o: {
    readonly runtime: BlockRuntime;
    readonly datapath: Datapath;
    readonly name: ProjectionName;
    readonly n: number;
    readonly k: number;
    readonly weight: Uint16Array;
    readonly bias?: Uint16Array | undefined;
    readonly launchRows: LaunchRows;
    readonly onResult?: RowsResult<GemmResult> | undefined;
  },
): Promise<Uint16Array> {
  const rows = o.launchRows.length;
  const recipes = new Map<number, GemmRecipe>();
  const recipeKey = new Map<string, GemmRecipe>();
  const bias = o.bias !== undefined;
  for (const m of new Set(o.launchRows)) {
    const hit = o.runtime.gemm({ name: o.name, m, n: o.n, k: o.k, ...(bias ? { bias } : {}) });
    if (!hit.covered) throw new ForwardUnsupported(hit.reason);
    if (bias && hit.recipe.family === "serial_split_k") {
      throw new ForwardUnsupported(
        `${o.name}: the bias epilogue of a serial split-K kernel is not modelled`,
      );
    }
    const key = JSON.stringify(hit.recipe);
    recipes.set(m, recipeKey.get(key) ?? hit.recipe);
    if (!recipeKey.has(key)) recipeKey.set(key, hit.recipe);
  }
  const out = new Uint16Array(rows * o.n);
  for (const group of groupRows(rows, (i) => recipes.get(o.launchRows[i]!)!)) {
    const recipe = recipes.get(o.launchRows[group[0]!]!)!;
    const r0 = await runGemmRecipe(recipe, {
      dp: o.datapath,
      walker: o.runtime.walker,
      a: group.length === rows ? x : pickRows(x, group, o.k),
      b: o.weight,
      m: group.length,
      n: o.n,
      k: o.k,
      outFormat: "bf16",
    });
    const r = o.bias === undefined ? r0 : addBiasEpilogue(r0, { bias: o.bias, n: o.n, recipe });
    o.onResult?.(r, group.length === rows ? undefined : group);
    if (group.length === rows) out.set(r.out);
    else _put(out, r.out, group, o.n);
  }
  return out;
}

/**
 * Which RMSNorm kernel runs: PyTorch's reduce kernel (HF's `Qwen3RMSNorm` and kin), vLLM's
 * `rms_norm` (no residual: the first layer's input norm, QK-norm), or vLLM's
 * `fused_add_rms_norm` (where a residual is carried; its block size follows the launch's tokens).
 */
export type NormKernel = "torch" | "vllm-rms-norm" | "vllm-fused-add-rms-norm";

/**
 * RMSNorm of rows that ran in launches of different sizes (each row with its launch's reduce
 * configuration and mean factor; rows sharing a launch size in one call). For vLLM's fused
 * kernel `x` is the residual sum the kernel writes back (`bf16(x + residual)`, which the layer
 * computes itself), whose squares the kernel sums.
 *
 * @param x [rows * perRow, width]: `perRow` normalised vectors per activation row (QK-norm:
 *   heads)
 * @param o width, weight, SFU, reduce stack, eps, `perRow`, each activation row's launch rows,
 *   and `onResult`, which receives each call's RMSNorm result with the rows it computed
 * @returns the normalised BF16 values, same layout
 * @throws {RangeError} as `rmsNorm`
 * @example
 * ```ts ignore
 * const h = normRows(x, { width: hidden, perRow: 1, weight, runtime, stack, eps, launchRows });
 * ```
 */
export function normRows(
  x: Uint16Array,
  o: {
    readonly width: number;
    readonly perRow: number;
    readonly weight: Uint16Array;
    readonly runtime: BlockRuntime;
    readonly stack: ReduceStack;
    readonly eps: number;
    readonly launchRows: LaunchRows;
    readonly onResult?: RowsResult<RmsNormResult> | undefined;
    /** The kernel (default `torch`). */
    readonly kernel?: NormKernel;
  },
): Uint16Array {
  const rows = o.launchRows.length;
  const w = o.width * o.perRow;
  const out = new Uint16Array(x.length);
  const kernel = o.kernel ?? "torch";
  for (const group of groupRows(rows, (i) => o.launchRows[i]!)) {
    const launch = o.launchRows[group[0]!]!;
    const input = group.length === rows ? x : pickRows(x, group, w);
    if (kernel !== "torch") {
      const v = {
        rows: group.length * o.perRow,
        hidden: o.width,
        weight: o.weight,
        mufu: o.runtime.sfu,
        eps: o.eps,
      };
      const y = kernel === "vllm-rms-norm"
        ? vllmRmsNorm(input, v).output
        : vllmFusedAddRmsNormOfSum(input, { ...v, numTokens: launch }).output;
      if (group.length === rows) out.set(y);
      else _put(out, y, group, w);
      continue;
    }
    const r = rmsNorm(input, {
      rows: group.length * o.perRow,
      launchRows: launch * o.perRow,
      hidden: o.width,
      weight: o.weight,
      sfu: o.runtime.sfu,
      stack: o.stack,
      eps: o.eps,
    });
    o.onResult?.(r, group.length === rows ? undefined : group);
    if (group.length === rows) out.set(r.output);
    else _put(out, r.output, group, w);
  }
  return out;
}
