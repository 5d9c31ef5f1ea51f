/**
 * Normalisation kernels as the HF Transformers + PyTorch CUDA stack computes them: RMSNorm
 * ({@link rmsNorm}), Qwen3 QK-norm ({@link qkNorm}) and the `mean` factor ({@link meanFactor}).
 * The sum of squares uses the reduce-kernel plan of `../reduce`; `rsqrt` is the injected SFU.
 *
 * @example
 * ```ts
 * import { meanFactor, rmsNorm } from "./mod.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * import { reduceStackForTorch } from "../reduce/mod.ts";
 * if (meanFactor(1, 2560) !== 0x39cccccd) throw new Error();
 * const x = new Uint16Array(2560).fill(0x3f80);
 * const weight = new Uint16Array(2560).fill(0x4000); // 2.0
 * const stack = reduceStackForTorch("2.9.1");
 * const r = rmsNorm(x, { rows: 1, hidden: 2560, weight, sfu: createSfu({ mode: "ieee" }), stack });
 * if (r.output[0] !== 0x4000 || r.rsqrtStatus.status !== "ieee-exact") throw new Error();
 * ```
 * @module
 */
export { meanFactor } from "./mean_factor.ts";
export { qkNorm, type QkNormOptions } from "./qk_norm.ts";
export { rmsNorm, type RmsNormOptions, type RmsNormResult } from "./rms_norm.ts";
