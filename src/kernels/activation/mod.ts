/**
 * Element-wise activation-path operators of a transformer layer: SiLU, the gate product and
 * residual adds, with PyTorch's rounding points.
 *
 * @example
 * ```ts
 * import { addBf16, mulBf16 } from "./mod.ts";
 * const x = new Uint16Array([0x3f80]);
 * if (addBf16(x, x)[0] !== 0x4000 || mulBf16(x, x)[0] !== 0x3f80) throw new Error();
 * ```
 * @module
 */
export { addBf16, mulBf16 } from "./elementwise_bf16.ts";
export { siluBf16, siluF32, type SiluOptions } from "./silu.ts";
