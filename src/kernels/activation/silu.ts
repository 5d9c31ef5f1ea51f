/**
 * SiLU as PyTorch's CUDA kernel computes it for BF16 tensors (`ActivationSiluKernel.cu`):
 * `y = bf16(x / (1.0f + expf(-x)))` in FP32 opmath with IEEE division (spec
 * `stack_pytorch_hf.md` §2.3-§2.4, `ops.md` §3).
 *
 * `expf` is libdevice's (MUFU.EX2 inside). Its final `e * scale` multiply is contractible, and
 * with SiLU's `1 +` after it ptxas is expected to emit one FFMA `fma(e, scale, 1)` (spec: inferred
 * from a PTX transcription). Whether it does cannot change the result: `scale` is a power of two,
 * so `e * scale` is exact unless it is subnormal, and then `1 + e * scale` rounds to 1 either way.
 * The fused form is computed; a test checks it equals the unfused one on every BF16 input.
 *
 * @module
 */
import { fp32ToBf16 } from "../../numerics/mod.ts";
import { divF32, fmaF32 } from "../../hardware/mod.ts";
import { expfParts, type Mufu } from "../math/mod.ts";

/** Options of {@link siluBf16}. */
export interface SiluOptions {
  /** MUFU implementation used by `expf` (table model or IEEE). */
  readonly mufu: Mufu;
}

const ONE = 0x3f800000;

/**
 * SiLU of one fp32 value, result in fp32 (before the BF16 store).
 *
 * @param x fp32 pattern
 * @param options MUFU implementation
 * @returns fp32 pattern of `x / fma(e, scale, 1)` where `expf(-x) = e * scale`
 * @example
 * ```ts
 * import { siluF32 } from "./silu.ts";
 * const mufu = { ex2: (x: number) => x, rcp: (x: number) => x, rsqrt: (x: number) => x };
 * if (siluF32(0, { mufu }) !== 0) throw new Error("silu(0) = 0 / 2 = +0");
 * ```
 */
export function siluF32(x: number, options: SiluOptions): number {
  const { e, scale } = expfParts((x ^ 0x80000000) >>> 0, options.mufu);
  return divF32(x, fmaF32([e, scale, ONE]));
}

/**
 * SiLU over a BF16 tensor (BF16 in, BF16 out). Each output depends only on its 16-bit input and
 * the MUFU model (a pure function of its argument), so a tensor of at least 65,536 elements is
 * mapped through the table of all 65,536 results, built once per MUFU object (same bits by
 * construction; a test compares it with `siluF32` on every pattern); smaller tensors are computed
 * element by element.
 *
 * @param x BF16 patterns
 * @param options MUFU implementation
 * @returns BF16 patterns
 * @example
 * ```ts
 * import { siluBf16 } from "./silu.ts";
 * const mufu = { ex2: (x: number) => x, rcp: (x: number) => x, rsqrt: (x: number) => x };
 * if (siluBf16(new Uint16Array([0x8000]), { mufu })[0] !== 0x8000) throw new Error("-0 stays -0");
 * ```
 */
export function siluBf16(x: Uint16Array, options: SiluOptions): Uint16Array {
  const out = new Uint16Array(x.length);
  let table = _tables.get(options.mufu);
  if (table === undefined && x.length >= 1 << 16) {
    table = new Uint16Array(1 << 16);
    for (let p = 0; p < 1 << 16; p++) table[p] = _siluBf16One(p, options);
    _tables.set(options.mufu, table);
  }
  if (table !== undefined) { for (let i = 0; i < x.length; i++) out[i] = table[x[i]!]!; }
  else for (let i = 0; i < x.length; i++) out[i] = _siluBf16One(x[i]!, options);
  return out;
}

/** The 65,536 results of {@link siluBf16} by MUFU model (dropped with the model). */
const _tables = new WeakMap<SiluOptions["mufu"], Uint16Array>();

function _siluBf16One(bf16: number, options: SiluOptions): number {
  return fp32ToBf16(siluF32((bf16 << 16) >>> 0, options));
}
