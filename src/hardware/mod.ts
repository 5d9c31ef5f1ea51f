/**
 * Hardware models: GPU profiles, the instruction catalog, the exact FP32 instruction set
 * (`fp32_unit/`), tensor-core arithmetic and the special-function unit.
 *
 * @example
 * ```ts
 * import { findDatapath, parseGpuProfile } from "./mod.ts";
 * const p = parseGpuProfile({
 *   schema: "bitaudit.gpu-profile/v1", id: "x", name: "X", architecture: "sm_90",
 *   computeCapability: "9.0", aliases: [], sources: [], tensorCore: { datapaths: [] },
 * });
 * if (findDatapath(p, { input: "bf16", output: "fp32" }) !== undefined) throw new Error();
 * ```
 * @module
 */
export * from "./gpu_profile.ts";
export * from "./instruction_catalog.ts";
export * from "./fp32_unit/mod.ts";
export * from "./tensor_core/mod.ts";
export * from "./sfu/mod.ts";
