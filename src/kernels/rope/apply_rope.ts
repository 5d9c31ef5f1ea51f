/**
 * Rotate-half RoPE application with BF16 semantics (spec `ops.md` §4.1, `stack_pytorch_hf.md`
 * §1.3): for i < d/2, `out_i = bf16(bf16(x_i cos_i) + bf16(-x_{i+d/2} sin_i))`; for i >= d/2,
 * `out_i = bf16(bf16(x_i cos_i) + bf16(x_{i-d/2} sin_i))`. Each product is exact in FP32 and rounded
 * once to BF16 (they are separate tensors); the sum is an FP32 add and one more rounding.
 *
 * @module
 */
import { F32_RN } from "../../hardware/mod.ts";
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import type { RopeTables } from "./rope_tables.ts";

/**
 * Applies RoPE to `[tokens, heads, headDim]` BF16 activations; token t uses row t of the tables.
 *
 * @param x BF16 patterns, row-major [tokens, heads, headDim]
 * @param options tables and the number of heads
 * @returns the rotated BF16 tensor (same layout)
 * @throws {RangeError} when the shapes disagree
 * @example
 * ```ts
 * import { applyRope } from "./apply_rope.ts";
 * import { ropeTables } from "./rope_tables.ts";
 * const tables = ropeTables(new Uint32Array([0x3f800000]), [0]); // position 0: identity
 * const y = applyRope(new Uint16Array([0x3fc0, 0xc000]), { tables, heads: 1 });
 * if (y[0] !== 0x3fc0 || y[1] !== 0xc000) throw new Error();
 * ```
 */
export function applyRope(
  x: Uint16Array,
  options: { tables: RopeTables; heads: number },
): Uint16Array {
  const { tables, heads } = options;
  const d = tables.headDim;
  const half = d / 2;
  if (x.length !== tables.positions * heads * d) {
    throw new RangeError(
      `Cannot apply RoPE: ${x.length} values for ${tables.positions} tokens x ${heads} heads x ${d}`,
    );
  }
  const out = new Uint16Array(x.length);
  const prod = (a: number, b: number) =>
    fp32ToBf16(bitsFromF32(f32FromBits((a << 16) >>> 0) * f32FromBits((b << 16) >>> 0)));
  for (let t = 0; t < tables.positions; t++) {
    for (let h = 0; h < heads; h++) {
      const base = (t * heads + h) * d;
      for (let i = 0; i < d; i++) {
        const c = tables.cos[t * d + i]!;
        const s = tables.sin[t * d + i]!;
        const rot = i < half ? x[base + i + half]! ^ 0x8000 : x[base + i - half]!; // -x2 or x1
        const a = prod(x[base + i]!, c);
        const b = prod(rot, s);
        out[base + i] = fp32ToBf16(F32_RN.add((a << 16) >>> 0, (b << 16) >>> 0));
      }
    }
  }
  return out;
}
