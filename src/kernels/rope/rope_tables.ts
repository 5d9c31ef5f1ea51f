/**
 * The RoPE cos/sin tables for a list of positions (spec `sfu_and_math.md` §6,
 * `stack_pytorch_hf.md` §1.2 steps 4-6): `freqs[p, i] = fl32(inv_freq[i] * p)` (an FP32 GEMM with
 * K = 1, TF32 off), `emb = cat(freqs, freqs)`, `cos = bf16(cosf(emb))`, `sin = bf16(sinf(emb))`
 * with libdevice `cosf`/`sinf` (no MUFU), attention scaling 1.0.
 *
 * @module
 */
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import { cudaCosf, cudaSinf } from "../math/mod.ts";

/** BF16 cos and sin tables, row-major [positions, headDim]. */
export interface RopeTables {
  /** cos, BF16 patterns [positions, headDim]. */
  readonly cos: Uint16Array;
  /** sin, BF16 patterns [positions, headDim]. */
  readonly sin: Uint16Array;
  /** Head dimension. */
  readonly headDim: number;
  /** Number of positions. */
  readonly positions: number;
}

/**
 * Builds the tables.
 *
 * @param invFreq the model's `inv_freq` fp32 patterns (headDim / 2 of them)
 * @param positions token positions (integers below 2^24, exact in float32)
 * @returns BF16 cos and sin tables
 * @throws {RangeError} for positions that are not exact float32 integers
 * @example
 * ```ts
 * import { ropeTables } from "./rope_tables.ts";
 * const t = ropeTables(new Uint32Array([0x3f800000]), [0]);
 * if (t.cos[0] !== 0x3f80 || t.sin[1] !== 0x0000) throw new Error(); // cos 0 = 1, sin 0 = 0
 * ```
 */
export function ropeTables(invFreq: Uint32Array, positions: readonly number[]): RopeTables {
  const half = invFreq.length;
  const d = 2 * half;
  const cos = new Uint16Array(positions.length * d);
  const sin = new Uint16Array(positions.length * d);
  positions.forEach((pos, r) => {
    if (!Number.isInteger(pos) || pos < 0 || pos >= 2 ** 24) {
      throw new RangeError(
        `Cannot build RoPE tables: position ${pos} is not an integer in 0..2^24-1`,
      );
    }
    for (let i = 0; i < half; i++) {
      const f = bitsFromF32(Math.fround(f32FromBits(invFreq[i]!) * pos)); // one rounded product
      const c = fp32ToBf16(cudaCosf(f));
      const s = fp32ToBf16(cudaSinf(f));
      cos[r * d + i] = cos[r * d + half + i] = c;
      sin[r * d + i] = sin[r * d + half + i] = s;
    }
  });
  return { cos, sin, headDim: d, positions: positions.length };
}
