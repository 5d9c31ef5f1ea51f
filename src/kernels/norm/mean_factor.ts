/**
 * The FP32 factor of PyTorch's CUDA `mean` (ATen `MeanOps`, ReduceMomentKernel.cu).
 *
 * @module
 */
import { bitsFromF32 } from "../../numerics/mod.ts";

/**
 * `factor = float(num_outputs) / numel`, computed on the host in float: both integers are
 * converted to FP32 (RNE), then one FP32 division. Equals fl32(1/H) whenever both counts are
 * exact in FP32 (stack_pytorch_hf.md §1.1; gaps.md B.3). The mean is then `fl32(sum * factor)`.
 *
 * Exactness: `Math.fround(a / b)` of two FP32 values is the correctly rounded FP32 quotient, since
 * double rounding is innocuous for division when 53 >= 2*24 + 2 (Figueroa 1995).
 *
 * @param numOutputs number of output elements (rows)
 * @param numel number of input elements (rows x H)
 * @returns FP32 pattern of the factor
 * @throws {RangeError} when the counts are not positive integers
 * @example
 * ```ts
 * import { meanFactor } from "./mean_factor.ts";
 * if (meanFactor(7, 7 * 2560) !== 0x39cccccd) throw new Error(); // not 0x3A800000 (= 2^-10)
 * if (meanFactor(40, 40 * 128) !== 0x3c000000) throw new Error(); // 1/128, exact
 * ```
 */
export function meanFactor(numOutputs: number, numel: number): number {
  if (!Number.isSafeInteger(numOutputs) || numOutputs < 1 || !Number.isSafeInteger(numel)) {
    throw new RangeError(`Cannot compute mean factor: counts must be positive integers`);
  }
  if (numel < numOutputs) {
    throw new RangeError(`Cannot compute mean factor: numel ${numel} < outputs ${numOutputs}`);
  }
  return bitsFromF32(Math.fround(numOutputs) / Math.fround(numel));
}
