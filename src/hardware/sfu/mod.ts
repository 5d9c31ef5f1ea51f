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
export {
  createSfu,
  type CreateSfuOptions,
  type Sfu,
  type SfuDescription,
  sfuDescription,
  type SfuFn,
  type SfuFnName,
  type SfuMode,
} from "./create_sfu.ts";
export { decodeSfuTables } from "./decode_sfu_tables.ts";
export { encodeSfuTables } from "./encode_sfu_tables.ts";
export { type IeeeSfuOptions } from "./ieee_options.ts";
export { meetsSfuStatus } from "./meets_sfu_status.ts";
export { sfuStatusOn } from "./sfu_status_on.ts";
export { sfuTableByteLength, type SfuTableName, type SfuTables } from "./sfu_tables.ts";
export {
  SFU_IEEE_V1,
  SFU_TESLA_V1,
  type SfuFunctionStatus,
  type SfuModelDescriptor,
  type SfuValidationStatus,
} from "./sfu_tesla_v1.ts";
