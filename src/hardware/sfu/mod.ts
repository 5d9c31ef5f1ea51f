/**
 * The special function unit (MUFU): a bit-exact model of `rcp/rsqrt/ex2/lg2.approx.ftz.f32` built
 * on the Tesla SFU lookup-table ROM (envytools, MIT), and a correctly rounded `ieee` mode, behind
 * one interface. Each function's validation status travels as data ({@link SFU_TESLA_V1}): lg2 is
 * `model-only` (the documented G80 algorithm, never measured on a modern GPU). sin and cos are
 * not modelled (their ROM table is carried in the asset only).
 *
 * The model does no I/O: callers load `tables/sfu/tesla_sfu_v1.bin` through the asset store and
 * pass the bytes to {@link decodeSfuTables}. An SFU is described by plain data
 * ({@link sfuDescription}: its mode and tables or FTZ flag), from which another thread rebuilds the
 * same SFU with {@link createSfu}.
 *
 * @example
 * ```ts
 * import { createSfu, decodeSfuTables } from "./mod.ts";
 * const bytes = Deno.readFileSync(new URL("../../../tables/sfu/tesla_sfu_v1.bin", import.meta.url));
 * const gpu = createSfu({ mode: "tesla-table", tables: decodeSfuTables(bytes) });
 * const ieee = createSfu({ mode: "ieee" });
 * // rcp(1.766359567...) : the table model is 1 ulp above the correctly rounded result.
 * if (gpu.rcp(0x3fe21812) !== 0x3f10ee4d || ieee.rcp(0x3fe21812) !== 0x3f10ee4c) throw new Error();
 * if (gpu.status.functions.rcp.status !== "histogram-matched") throw new Error();
 * ```
 * @module
 */
export * from "./sfu_tables.ts";
export * from "./decode_sfu_tables.ts";
export * from "./encode_sfu_tables.ts";
export * from "./sfu_square.ts";
export * from "./mufu_rcp.ts";
export * from "./mufu_rsqrt.ts";
export * from "./pre_ex2.ts";
export * from "./mufu_ex2.ts";
export * from "./mufu_lg2.ts";
export * from "./ieee_options.ts";
export * from "./ieee_rcp.ts";
export * from "./ieee_rsqrt.ts";
export * from "./ln2_fixed.ts";
export * from "./exp2_fixed.ts";
export * from "./ieee_ex2.ts";
export * from "./log2_fixed.ts";
export * from "./ieee_lg2.ts";
export * from "./sfu_tesla_v1.ts";
export * from "./create_sfu.ts";
export * from "./meets_sfu_status.ts";
