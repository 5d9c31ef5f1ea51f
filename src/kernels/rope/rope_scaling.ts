/**
 * RoPE frequency scaling as HF Transformers applies it to the default `inv_freq` at model load
 * (`modeling_rope_utils.py`: `_compute_linear_scaling_rope_parameters`,
 * `_compute_llama3_parameters`), on the host in float32 PyTorch CPU tensors. Every step is an
 * IEEE float32 operation, reproduced here op by op in the order the Python expression runs:
 *
 * - a Python number meeting a float32 tensor is first converted to float32 (TensorIterator's
 *   common dtype; CPU `div` by a scalar divides, it does not multiply by a reciprocal, for float32);
 * - `scalar / tensor` is `Tensor.__rtruediv__`, which PyTorch defines as
 *   `tensor.reciprocal() * scalar`: a reciprocal, then a product;
 * - `1 - tensor` is `rsub`: `1 - x`;
 * - comparisons against a Python number compare with that number converted to float32.
 *
 * Linear: `inv_freq / factor`. Llama 3 (`rope_type: "llama3"`): with L = the original context
 * length, `wavelen = 2π / inv`; low band (`wavelen > L / low_freq_factor`) divided by `factor`,
 * high band (`wavelen < L / high_freq_factor`) unchanged, the middle band interpolated with
 * `s = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)`:
 * `(1 - s) * inv / factor + s * inv`. The attention factor of both is 1 (cos and sin unscaled).
 *
 * Evidence: derived from source only (HF Transformers' code and PyTorch's operator semantics);
 * checked against hand computations of the formula, not against a GPU capture.
 *
 * @module
 */

/** A RoPE scaling this emulator models (`rope_type` and its parameters, as config.json gives them). */
export type RopeScaling =
  | { readonly kind: "linear"; readonly factor: number }
  | {
    readonly kind: "llama3";
    readonly factor: number;
    readonly lowFreqFactor: number;
    readonly highFreqFactor: number;
    readonly originalMaxPositions: number;
  };

const f = Math.fround;
const _u32 = new Uint32Array(1);
const _f32 = new Float32Array(_u32.buffer);

/**
 * Scales default inverse frequencies (float32 patterns) as HF does for the scaling's `rope_type`.
 *
 * @param invFreq the default `inv_freq` patterns (`ropeInvFreq`)
 * @param scaling the scaling
 * @returns the scaled patterns (a new array)
 * @throws {RangeError} for a factor that is not a positive finite number, or llama3 frequency
 *   factors with high <= low
 * @example
 * ```ts
 * import { scaleInvFreq } from "./rope_scaling.ts";
 * const one = new Uint32Array([0x3f800000]); // 1.0
 * if (scaleInvFreq(one, { kind: "linear", factor: 4 })[0] !== 0x3e800000) throw new Error(); // 0.25
 * ```
 */
export function scaleInvFreq(invFreq: Uint32Array, scaling: RopeScaling): Uint32Array {
  _positive(scaling.factor, "factor");
  const factor = f(scaling.factor);
  const inv = Array.from(invFreq, _value);
  if (scaling.kind === "linear") return Uint32Array.from(inv, (x) => _bits(f(x / factor)));
  const { lowFreqFactor: low, highFreqFactor: high, originalMaxPositions: len } = scaling;
  _positive(low, "low_freq_factor");
  _positive(high, "high_freq_factor");
  _positive(len, "original_max_position_embeddings");
  if (!(high > low)) {
    throw new RangeError(
      `Cannot scale inv_freq: high_freq_factor ${high} must exceed low_freq_factor ${low}`,
    );
  }
  // Python floats, then float32 where they meet a tensor.
  const lowWavelen = f(len / low);
  const highWavelen = f(len / high);
  const twoPi = f(2 * Math.PI);
  const lenF = f(len);
  const lowF = f(low);
  const span = f(high - low);
  return Uint32Array.from(inv, (x) => {
    const wavelen = f(f(1 / x) * twoPi);
    const llama = wavelen > lowWavelen ? f(x / factor) : x;
    const medium = !(wavelen < highWavelen) && !(wavelen > lowWavelen);
    if (!medium) return _bits(llama);
    const s = f(f(f(f(1 / wavelen) * lenF) - lowF) / span);
    const smoothed = f(f(f(f(1 - s) * llama) / factor) + f(s * llama));
    return _bits(smoothed);
  });
}

function _positive(v: number, name: string): void {
  if (!(typeof v === "number" && Number.isFinite(v) && v > 0)) {
    throw new RangeError(`Cannot scale inv_freq: ${name} ${v} is not a positive number`);
  }
}

function _value(bits: number): number {
  _u32[0] = bits;
  return _f32[0]!;
}

function _bits(v: number): number {
  _f32[0] = v;
  return _u32[0]!;
}
