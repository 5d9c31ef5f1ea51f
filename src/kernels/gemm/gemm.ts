/**
 * `gemm(x, w, options)`: the library entry point for y = x W^T as `torch.nn.functional.linear`
 * computes it, bit-exactly for a tensor-core datapath and a kernel recipe.
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import { type KWalker, referenceKWalker } from "./k_walker.ts";
import type { GemmRecipe } from "./recipe.ts";
import { type GemmOutFormat, type GemmResult, runGemmRecipe } from "./run_gemm_recipe.ts";

/** Options of {@link gemm}. */
export interface GemmOptions {
  /** Tensor-core datapath (from a GPU profile: `findDatapath(profile, {input, output: "fp32"})`). */
  readonly datapath: Datapath;
  /** Kernel recipe (default: one sequential K-walk, CUTLASS's default mainloop). */
  readonly recipe?: GemmRecipe;
  /** Rows of x. */
  readonly m: number;
  /** Rows of W (output columns). */
  readonly n: number;
  /** Shared dimension. */
  readonly k: number;
  /** Epilogue format (default bf16). */
  readonly outFormat?: GemmOutFormat;
  /** K-walk implementation (default: the plain reference; pass the wasm engine for speed). */
  readonly walker?: KWalker;
}

/**
 * Computes y = x W^T.
 *
 * @param x activations as 16-bit patterns, row-major [M, K]
 * @param w weights as 16-bit patterns, row-major [N, K] (nn.Linear layout)
 * @param options datapath, recipe, shape, epilogue format, walker
 * @returns `acc` (fp32 patterns before the final rounding) and `out` (16-bit patterns), [M, N]
 * @throws {RangeError} on shape mismatch or a datapath without 16-bit inputs and fp32 output
 * @example
 * ```ts
 * import { gemm } from "./gemm.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const datapath = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const x = new Uint16Array([0x3f80, 0x4000]); // [1, 2]
 * const w = new Uint16Array([0x4040, 0x3f80]); // [3, 1]
 * const y = await gemm(x, w, { datapath, m: 1, n: 1, k: 2 });
 * if (y.out[0] !== 0x40a0) throw new Error(); // 1*3 + 2*1 = 5
 * ```
 */
export function gemm(x: Uint16Array, w: Uint16Array, options: GemmOptions): Promise<GemmResult> {
  const { datapath: dp, m, n, k } = options;
  return runGemmRecipe(options.recipe ?? { family: "single_walk" }, {
    dp,
    walker: options.walker ?? referenceKWalker,
    a: x,
    b: w,
    m,
    n,
    k,
    ...(options.outFormat === undefined ? {} : { outFormat: options.outFormat }),
  });
}
