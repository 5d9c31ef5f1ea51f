/**
 * PyTorch's persistent warp softmax (`softmax_warp_forward`, FP32 in/out, softmax over the last
 * dimension), the kernel `F.softmax(..., dtype=float32)` launches for rows of up to 1,024
 * elements (PyTorch <= 2.3) or 2,048 (2.10); spec `stack_pytorch_hf.md` §2.5:
 *
 * ```
 * P2 = next power of two >= dim; WARP = min(P2, 32); ITER = P2 / WARP
 * lane l holds x[l + WARP*it] (missing elements are -inf)
 * m_l = max over it; M = butterfly max (exact)
 * e = expf(x - M)  (FADD, then libdevice expf with MUFU.EX2)
 * s_l = sequential fl32 sum over it from +0; S = xor butterfly sum, offsets WARP/2 .. 1
 * out = e / S  (IEEE division)
 * ```
 * Longer rows go to block kernels whose reduction trees differ between PyTorch versions; they
 * are refused here (the caller reports NOT_VERIFIED), never approximated.
 *
 * @module
 */
import { divF32, F32_RN } from "../../hardware/mod.ts";
import { bitsFromF32, f32FromBits } from "../../numerics/mod.ts";
import { cudaExpf, type Mufu } from "../math/mod.ts";

/** Options of {@link softmaxWarp}. */
export interface SoftmaxWarpOptions {
  /** Row length (the softmax dimension). */
  readonly dim: number;
  /** MUFU implementation for `expf`. */
  readonly mufu: Mufu;
  /** Largest row the warp kernel takes: 1024 (PyTorch <= 2.3) or 2048 (2.10); default 1024. */
  readonly maxDim?: 1024 | 2048;
}

/**
 * Softmax of each row of an FP32 matrix.
 *
 * @param x fp32 patterns, row-major [rows, dim]
 * @param options row length, MUFU, the PyTorch version's warp-kernel limit
 * @returns fp32 patterns, same layout
 * @throws {RangeError} when `dim` exceeds the warp kernel's limit or does not divide the input
 * @example
 * ```ts
 * import { softmaxWarp } from "./softmax_warp.ts";
 * const mufu = { ex2: (x: number) => x === 0 ? 0x3f800000 : x, rcp: (x: number) => x, rsqrt: (x: number) => x };
 * const y = softmaxWarp(new Uint32Array([0, 0]), { dim: 2, mufu }); // equal logits
 * if (y[0] !== 0x3f000000 || y[1] !== 0x3f000000) throw new Error(); // 1/2 each
 * ```
 */
export function softmaxWarp(x: Uint32Array, options: SoftmaxWarpOptions): Uint32Array {
  const { dim, mufu } = options;
  const maxDim = options.maxDim ?? 1024;
  if (!Number.isInteger(dim) || dim < 1 || dim > maxDim || x.length % dim !== 0) {
    throw new RangeError(
      `Cannot run the warp softmax: dim ${dim} must be in 1..${maxDim} and divide ${x.length} values`,
    );
  }
  let p2 = 1;
  while (p2 < dim) p2 *= 2;
  const warp = Math.min(p2, 32);
  const iter = p2 / warp;
  const out = new Uint32Array(x.length);
  const lanes = new Array<number>(warp);
  for (let row = 0; row < x.length / dim; row++) {
    const at = (l: number, it: number) => l + warp * it;
    const value = (l: number, it: number) =>
      at(l, it) < dim ? f32FromBits(x[row * dim + at(l, it)]!) : -Infinity;
    for (let l = 0; l < warp; l++) {
      let m = value(l, 0);
      for (let it = 1; it < iter; it++) m = Math.max(m, value(l, it)); // exact
      lanes[l] = m;
    }
    const maxAll = _butterfly(lanes, (a, b) => Math.max(a, b));
    const e = new Uint32Array(p2);
    for (let l = 0; l < warp; l++) {
      let s = 0; // fp32 pattern of +0
      for (let it = 0; it < iter; it++) {
        const arg = bitsFromF32(Math.fround(value(l, it) - maxAll)); // FADD, one rounding
        e[at(l, it)] = cudaExpf(arg, mufu);
        s = F32_RN.add(s, e[at(l, it)]!);
      }
      lanes[l] = s;
    }
    const sum = _butterfly(lanes, (a, b) => F32_RN.add(a, b));
    for (let i = 0; i < dim; i++) out[row * dim + i] = divF32(e[i]!, sum);
  }
  return out;
}

/** Xor butterfly over the lanes (offsets n/2 .. 1); returns lane 0's value (all lanes agree). */
function _butterfly(lanes: number[], op: (a: number, b: number) => number): number {
  const v = [...lanes];
  for (let off = v.length / 2; off >= 1; off /= 2) {
    const next = v.map((a, l) => op(a, v[l ^ off]!));
    v.splice(0, v.length, ...next);
  }
  return v[0]!;
}
