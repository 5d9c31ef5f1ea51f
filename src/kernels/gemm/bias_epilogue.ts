/**
 * The bias of `torch.nn.functional.linear` on CUDA, as the GEMM's epilogue adds it. PyTorch
 * (`aten/src/ATen/native/cuda/Blas.cpp`, `addmm_out_cuda_impl`) runs a linear with a bias as
 * `addmm(bias, x, W^T)`: through cuBLASLt's bias epilogue (`gemm_and_bias`, `CUBLASLT_EPILOGUE_BIAS`)
 * when the bias is 1-D and contiguous, beta is 1 and both operands have more than one row and
 * column; otherwise (one token) the bias is copied into the output and the GEMM runs with
 * beta = 1. Either way the compute type is FP32 and the output is rounded once: each element is
 * `round(acc + bias)`, the FP32 sum of the full accumulator (after any parallel split-K
 * reduction) and the bias widened exactly, rounded to nearest even in FP32, then to the output
 * format. Which kernel each path dispatches is the catalog's business (an entry says whether it
 * covers biased calls).
 *
 * A serial split-K kernel adds each partition to the output already written, so where its bias
 * enters is not fixed by the library's source: that combination is refused.
 *
 * Evidence: derived from source only (PyTorch and cuBLASLt documentation), not measured on a GPU.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";
import { fp32ToBf16 } from "../../numerics/mod.ts";
import type { GemmResult } from "./run_gemm_recipe.ts";
import type { GemmRecipe } from "./recipe.ts";

/**
 * Applies the bias epilogue to a GEMM result (BF16 output).
 *
 * @param result the GEMM result without bias (its `acc` is what the epilogue rounds)
 * @param o the `bias` [n] (BF16 patterns), the output width `n`, and the `recipe` that ran
 * @returns the result with `acc` = acc + bias and `out` its BF16 rounding
 * @throws {RangeError} for a serial split-K recipe, or a bias of the wrong length
 * @example
 * ```ts
 * import { addBiasEpilogue } from "./bias_epilogue.ts";
 * const acc = new Uint32Array([0x3f800000]); // 1.0
 * const r = addBiasEpilogue({ acc, out: new Uint16Array([0x3f80]) }, {
 *   bias: new Uint16Array([0x3f80]), n: 1, recipe: { family: "single_walk" },
 * });
 * if (r.out[0] !== 0x4000) throw new Error(); // 2.0
 * ```
 */
export function addBiasEpilogue(
  result: GemmResult,
  o: { readonly bias: Uint16Array; readonly n: number; readonly recipe: GemmRecipe },
): GemmResult {
  if (o.recipe.family === "serial_split_k") {
    throw new RangeError(
      "Cannot add a bias: where a serial split-K kernel adds it is not modelled",
    );
  }
  if (o.bias.length !== o.n || result.acc.length % o.n !== 0) {
    throw new RangeError(`Cannot add a bias of ${o.bias.length} to rows of ${o.n}`);
  }
  const acc = new Uint32Array(result.acc.length);
  const out = new Uint16Array(acc.length);
  for (let i = 0; i < acc.length; i++) {
    acc[i] = F32_RN.add(result.acc[i]!, (o.bias[i % o.n]! << 16) >>> 0);
    out[i] = fp32ToBf16(acc[i]!);
  }
  return { acc, out };
}
