/**
 * Softmax as PyTorch's CUDA kernels compute it (the eager attention path).
 *
 * @example
 * ```ts
 * import { softmaxWarp } from "./mod.ts";
 * const mufu = { ex2: (x: number) => x === 0 ? 0x3f800000 : x, rcp: (x: number) => x, rsqrt: (x: number) => x };
 * if (softmaxWarp(new Uint32Array([0]), { dim: 1, mufu })[0] !== 0x3f800000) throw new Error();
 * ```
 * @module
 */
export * from "./softmax_warp.ts";
