/**
 * Rotate-half RoPE application with BF16 semantics (spec `ops.md` §4.1, `stack_pytorch_hf.md`
 * §1.3): for i < d/2, `out_i = bf16(bf16(x_i cos_i) + bf16(-x_{i+d/2} sin_i))`; for i >= d/2,
 * `out_i = bf16(bf16(x_i cos_i) + bf16(x_{i-d/2} sin_i))`. Each product is exact in FP32 and rounded
 * once to BF16 (they are separate tensors); the sum is an FP32 add and one more rounding.
 *
 * @module
 */
import { fp32ToBf16 } from "../../numerics/mod.ts";
import type { RopeTables } from "./rope_tables.ts";

/**
 * Applies RoPE to `[tokens, heads, headDim]` BF16 activations; token t uses row t of the tables.
 *
 * @param x BF16 patterns, row-major [tokens, heads, headDim]
 * @param options tables and the number of heads
 * @returns the rotated BF16 tensor (same layout)
 * @throws {RangeError} when the shapes disagree, or the tables' head dimension is odd
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
  const cells = tables.positions * d;
  if (d % 2 !== 0 || tables.cos.length !== cells || tables.sin.length !== cells) {
    throw new RangeError(
      `Cannot apply RoPE: tables of head dimension ${d} (even needed) and ${tables.cos.length} / ${tables.sin.length} entries for ${tables.positions} tokens`,
    );
  }
  if (x.length !== tables.positions * heads * d) {
    throw new RangeError(
      `Cannot apply RoPE: ${x.length} values for ${tables.positions} tokens x ${heads} heads x ${d}`,
    );
  }
  const out = new Uint16Array(x.length);
  const cos = _widen(tables.cos);
  const sin = _widen(tables.sin);
  // Per row: the FP32 values of x, the two products (a store into a Float32Array is the FP32
  // rounding of the exact float64 product), each rounded to BF16, then their FP32 sum.
  const xf = new Float32Array(d);
  const xi = new Int32Array(xf.buffer);
  const pc = new Float32Array(d);
  const pci = new Int32Array(pc.buffer);
  const ps = new Float32Array(d);
  const psi = new Int32Array(ps.buffer);
  for (let t = 0; t < tables.positions; t++) {
    const row = t * d;
    for (let h = 0; h < heads; h++) {
      const base = (t * heads + h) * d;
      for (let i = 0; i < d; i++) xi[i] = (x[base + i] as number) << 16;
      for (let i = 0; i < half; i++) {
        pc[i] = (xf[i] as number) * (cos[row + i] as number);
        ps[i] = -(xf[i + half] as number) * (sin[row + i] as number); // -x2
      }
      for (let i = half; i < d; i++) {
        pc[i] = (xf[i] as number) * (cos[row + i] as number);
        ps[i] = (xf[i - half] as number) * (sin[row + i] as number); // x1
      }
      for (let i = 0; i < d; i++) {
        pci[i] = fp32ToBf16(pci[i] as number) << 16;
        psi[i] = fp32ToBf16(psi[i] as number) << 16;
      }
      for (let i = 0; i < d; i++) pc[i] = (pc[i] as number) + (ps[i] as number);
      for (let i = 0; i < d; i++) out[base + i] = fp32ToBf16(pci[i] as number);
    }
  }
  return out;
}

/** BF16 patterns widened to their FP32 values. */
function _widen(b: Uint16Array): Float32Array {
  const w = new Int32Array(b.length);
  for (let i = 0; i < b.length; i++) w[i] = (b[i] as number) << 16;
  return new Float32Array(w.buffer);
}
