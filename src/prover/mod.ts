/**
 * A simulated prover: scenarios in, honest (or deliberately falsified) claim logs out.
 *
 * @example
 * ```ts
 * import { synthBf16 } from "./mod.ts";
 * if (synthBf16("seed", { label: "x", count: 3 }).length !== 3) throw new Error();
 * ```
 * @module
 */
export * from "./scenario.ts";
export * from "./synth_tensor.ts";
export * from "./make_claims.ts";
export * from "./make_block_claims.ts";
export * from "./forward_scenario.ts";
export * from "./make_model_claims.ts";
