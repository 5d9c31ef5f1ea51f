/**
 * The kernels of the software stack, built from hardware operations: GEMM recipes and dispatch
 * catalogs, CUDA math (libdevice), PyTorch's reduction trees, RMSNorm, SiLU, RoPE, softmax and
 * FlashAttention-2, and the software-stack profiles that choose among them.
 *
 * @example
 * ```ts
 * import { parseRecipe } from "./mod.ts";
 * if (parseRecipe({ family: "single_walk" }).family !== "single_walk") throw new Error();
 * ```
 * @module
 */
export * from "./gemm/mod.ts";
export * from "./stack_profile.ts";
export * from "./torch_version.ts";
export * from "./attention_backend.ts";
export * from "./moe_experts.ts";
export * from "./reduce/mod.ts";
export * from "./norm/mod.ts";
export * from "./math/mod.ts";
export * from "./activation/mod.ts";
export * from "./rope/mod.ts";
export * from "./softmax/mod.ts";
export * from "./attention/mod.ts";
