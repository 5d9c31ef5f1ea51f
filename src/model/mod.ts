/**
 * Model-level code: tensors, safetensors files, configs and forward passes. Pure: no I/O, no
 * `Deno.*`; files reach this layer as `ByteSource`s built in `src/assets`.
 *
 * @example
 * ```ts
 * import { bytesByteSource, encodeSafetensors, openSafetensors } from "./mod.ts";
 * const bytes = encodeSafetensors([
 *   { name: "b", dtype: "BF16", shape: [], data: new Uint16Array([0x3f80]) },
 * ]);
 * const file = await openSafetensors(bytesByteSource(bytes));
 * if (file.header.tensors[0]?.shape.length !== 0) throw new Error();
 * ```
 * @module
 */
export * from "./safetensors/mod.ts";
export * from "./blocks/mod.ts";
export * from "./checkpoint/mod.ts";
export * from "./qwen3/mod.ts";
