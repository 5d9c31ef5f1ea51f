/**
 * bitaudit: bit-exact verification of AI inference claims.
 *
 * The library API: number formats on bit patterns, GPU profiles and tensor-core arithmetic, the
 * kernels and model blocks, the execution engine (wasm GEMM, worker pools), the hash-checked asset
 * store and the resolution of named assets, and the verification building blocks.
 *
 * @example
 * ```ts
 * import { BF16, blockFma, FP32 } from "./mod.ts";
 * const h100 = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const d = blockFma(h100, { c: 0, a: [0x3f80, 0x3f80], b: [0x3f80, 0x3f80] });
 * if (d !== 0x40000000) throw new Error("1*1 + 1*1 = 2");
 * ```
 * @module
 */
export * from "./src/numerics/mod.ts";
export * from "./src/hardware/mod.ts";
export * from "./src/assets/mod.ts";
export * from "./src/errors.ts";
export { VERSION } from "./src/version.ts";
export * from "./src/claims/mod.ts";
export * from "./src/verify/mod.ts";
export * from "./src/attest/mod.ts";
// The verdict contract and signing API, named.
export {
  buildVerdictPredicate,
  type BuildVerdictPredicateOptions,
  parseVerdictPredicate,
  type SignedVerdict,
  signVerdict,
  type SignVerdictOptions,
  VERDICT_PREDICATE_TYPE,
  type VerdictAudit,
  type VerdictDifference,
  type VerdictPredicate,
  type VerdictPredicateCode,
  type VerdictResult,
  type VerdictSfuUse,
  verdictStatement,
  type VerifierInfo,
} from "./src/attest/mod.ts";
export * from "./src/kernels/mod.ts";
export * from "./src/model/mod.ts";
export * from "./src/engine/mod.ts";
export * from "./src/resolve/mod.ts";
