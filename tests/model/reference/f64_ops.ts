/**
 * Float64 building blocks of the reference forward: RMSNorm, `nn.Linear`, the gated MLP. Rows are
 * row-major `Float64Array`s; nothing is rounded to a narrower format anywhere.
 *
 * @module
 */

/**
 * RMSNorm of each `width`-wide row (HF `*RMSNorm.forward`): `x * rsqrt(mean(x^2) + eps) * w`.
 *
 * @param x rows `[rows, width]` with `width = w.length` (a QK-norm passes head-wide rows)
 * @param o `w` (the weight, `[width]`) and `eps`
 * @returns normalised rows, same shape
 * @throws {TypeError} when `x.length` is not a multiple of the width
 * @example
 * ```ts
 * import { rmsNormRows } from "./f64_ops.ts";
 * const y = rmsNormRows(Float64Array.of(3, 4), { w: Float64Array.of(1, 2), eps: 0 });
 * if (Math.abs(y[1]! - 8 / Math.sqrt(12.5)) > 1e-15) throw new Error();
 * ```
 */
export function rmsNormRows(x: Float64Array, o: { w: Float64Array; eps: number }): Float64Array {
  const n = o.w.length;
  if (n === 0 || x.length % n !== 0) {
    throw new TypeError(`Cannot normalise: ${x.length} values are not rows of ${n}`);
  }
  const out = new Float64Array(x.length);
  for (let r = 0; r < x.length; r += n) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += x[r + i]! * x[r + i]!;
    const inv = 1 / Math.sqrt(ss / n + o.eps);
    for (let i = 0; i < n; i++) out[r + i] = x[r + i]! * inv * o.w[i]!;
  }
  return out;
}

/**
 * `nn.Linear`: `y = x W^T (+ b)`, `W` as stored, `[out, in]`.
 *
 * @param x rows `[rows, in]`
 * @param o `w` (`[out, in]`), `out` (output features) and optional `b` (`[out]`)
 * @returns rows `[rows, out]`
 * @throws {TypeError} on inconsistent lengths
 * @example
 * ```ts
 * import { linearRows } from "./f64_ops.ts";
 * const y = linearRows(Float64Array.of(1, 2), { w: Float64Array.of(1, 1, 0, 1), out: 2 });
 * if (y[0] !== 3 || y[1] !== 2) throw new Error();
 * ```
 */
export function linearRows(
  x: Float64Array,
  o: { w: Float64Array; out: number; b?: Float64Array | undefined },
): Float64Array {
  const k = o.w.length / o.out;
  if (!Number.isInteger(k) || k === 0 || x.length % k !== 0) {
    throw new TypeError(
      `Cannot apply linear: weight of ${o.w.length} with ${o.out} outputs, input of ${x.length}`,
    );
  }
  if (o.b !== undefined && o.b.length !== o.out) {
    throw new TypeError(`Cannot apply linear: bias of ${o.b.length} for ${o.out} outputs`);
  }
  const rows = x.length / k;
  const y = new Float64Array(rows * o.out);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < o.out; j++) {
      let s = o.b === undefined ? 0 : o.b[j]!;
      for (let i = 0; i < k; i++) s += x[r * k + i]! * o.w[j * k + i]!;
      y[r * o.out + j] = s;
    }
  }
  return y;
}

/** `silu(v) = v * sigmoid(v)` (HF `ACT2FN["silu"]`). */
export function silu(v: number): number {
  return v / (1 + Math.exp(-v));
}

/** Weights of a gated MLP (`down(silu(gate(x)) * up(x))`), with optional biases (Llama `mlp_bias`). */
export interface GatedMlpWeights {
  /** `[f, h]`. */
  readonly gate: Float64Array;
  /** `[f, h]`. */
  readonly up: Float64Array;
  /** `[h, f]`. */
  readonly down: Float64Array;
  readonly gateBias?: Float64Array | undefined;
  readonly upBias?: Float64Array | undefined;
  readonly downBias?: Float64Array | undefined;
}

/**
 * The gated MLP of `*MLP.forward`: `down_proj(silu(gate_proj(x)) * up_proj(x))`.
 *
 * @param x rows `[rows, hidden]`
 * @param o the weights `w` and the model width `hidden`; the MLP width is `gate.length / hidden`
 * @returns rows `[rows, hidden]`
 * @throws {TypeError} on inconsistent lengths
 * @example
 * ```ts
 * import { gatedMlp } from "./f64_ops.ts";
 * const one = Float64Array.of(1);
 * const y = gatedMlp(Float64Array.of(2), { w: { gate: one, up: one, down: one }, hidden: 1 });
 * if (y[0] !== 4 / (1 + Math.exp(-2))) throw new Error();
 * ```
 */
export function gatedMlp(
  x: Float64Array,
  o: { w: GatedMlpWeights; hidden: number },
): Float64Array {
  const { w, hidden } = o;
  const f = w.gate.length / hidden;
  const g = linearRows(x, { w: w.gate, out: f, b: w.gateBias });
  const u = linearRows(x, { w: w.up, out: f, b: w.upBias });
  for (let i = 0; i < g.length; i++) g[i] = silu(g[i]!) * u[i]!;
  return linearRows(g, { w: w.down, out: hidden, b: w.downBias });
}
