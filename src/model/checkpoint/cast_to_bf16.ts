/**
 * The cast the stacks' loaders apply to a floating tensor stored as F32 or F16 where the model's
 * parameter is BF16. HF Transformers' `from_pretrained(dtype=torch.bfloat16)` casts each loaded
 * floating tensor to its parameter's dtype (`param.to(casting_dtype)`; the five families keep no
 * module in FP32: their `PreTrainedModel` classes set no `_keep_in_fp32_modules`), and vLLM's
 * weight loaders copy it into the BF16 parameter (`param.data.copy_(loaded_weight)`, converted on
 * the CPU for a blocking copy: ATen `copy_kernel_cuda`). Both are PyTorch's `float -> bfloat16`:
 * c10 `BFloat16(float)`, whose `round_to_nearest_even` adds `0x7FFF` plus the lowest kept bit to
 * the F32 pattern and keeps its high 16 bits (nearest-even on the magnitude, a finite value past
 * the largest BF16 to infinity), as ATen's vectorised kernels do and, on sm_80 and later,
 * `__float2bfloat16` (`cvt.rn.bf16.f32`): one rule for every finite value and infinity, wherever
 * the cast runs. An F16 tensor converts to float first, exactly (c10 `Half` -> `float`), then the
 * same way.
 *
 * A NaN is where the places differ: c10's scalar rule gives `0x7FC0`, ATen's AVX2 and AVX-512
 * kernels (`cvtfp32_bf16`) `0xFFFF`, the GPU's `cvt` its canonical `0x7FFF`. Which one a loader
 * used depends on the host and the element's place in the tensor, so a NaN is not cast here: its
 * index comes back and the caller refuses the tensor.
 *
 * @module
 */
import { convert, FP16, FP32, fp32ToBf16 } from "../../numerics/mod.ts";

/** The stored dtypes a BF16 parameter is loaded from by the modelled cast. */
export type LoadCastDtype = "F32" | "F16";

/**
 * Whether a tensor of this safetensors dtype is loaded into a BF16 parameter by the modelled cast.
 *
 * @param dtype a safetensors dtype name
 * @returns true for `F32` and `F16`
 * @example
 * ```ts
 * import { isLoadCastDtype } from "./cast_to_bf16.ts";
 * if (!isLoadCastDtype("F32") || isLoadCastDtype("F64") || isLoadCastDtype("BF16")) throw new Error();
 * ```
 */
export function isLoadCastDtype(dtype: string): dtype is LoadCastDtype {
  return dtype === "F32" || dtype === "F16";
}

/**
 * Casts stored F32 or F16 patterns to BF16 as PyTorch's `float -> bfloat16` does (see the
 * module), into `out` from index `at`; stops at the first NaN, which is not cast.
 *
 * @param dtype the stored dtype
 * @param o `bits`: the stored patterns (`Uint32Array` for F32, `Uint16Array` for F16); `out`:
 *   the BF16 patterns' array, written at `at` (default 0) onwards, `bits.length` of them
 * @returns the index in `bits` of the first NaN (`out` is written up to it), or -1 when none
 * @throws {RangeError} when `bits` is not the dtype's array kind or `out` is too short
 * @example
 * ```ts
 * import { castToBf16 } from "./cast_to_bf16.ts";
 * const out = new Uint16Array(3);
 * // 1 + 2^-8 ties to 1.0 (even); 1 + 3 * 2^-8 ties up to 1 + 2^-6; FLT_MAX overflows to +inf.
 * const bits = new Uint32Array([0x3f808000, 0x3f818000, 0x7f7fffff]);
 * if (castToBf16("F32", { bits, out }) !== -1) throw new Error();
 * if (out.join() !== [0x3f80, 0x3f82, 0x7f80].join()) throw new Error();
 * if (castToBf16("F32", { bits: new Uint32Array([0x7fc00000]), out }) !== 0) throw new Error();
 * ```
 */
export function castToBf16(
  dtype: LoadCastDtype,
  o: {
    readonly bits: Uint32Array | Uint16Array;
    readonly out: Uint16Array;
    readonly at?: number;
  },
): number {
  const { bits, out } = o;
  const at = o.at ?? 0;
  const wide = dtype === "F32";
  if ((bits instanceof Uint32Array) !== wide) {
    throw new RangeError(
      `Cannot cast ${dtype} to BF16: the patterns are not a ${
        wide ? "Uint32Array" : "Uint16Array"
      }`,
    );
  }
  if (!Number.isSafeInteger(at) || at < 0 || at + bits.length > out.length) {
    throw new RangeError(
      `Cannot cast ${bits.length} patterns to BF16 at ${at}: the output holds ${out.length}`,
    );
  }
  if (wide) {
    for (let i = 0; i < bits.length; i++) {
      const b = bits[i]!;
      if ((b & 0x7fffffff) > F32_INF) return i;
      out[at + i] = fp32ToBf16(b);
    }
    return -1;
  }
  const table = _f16Table();
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i]!;
    if ((h & 0x7fff) > F16_INF) return i;
    out[at + i] = table[h]!;
  }
  return -1;
}

/**
 * The index of the first NaN among stored F32 or F16 patterns (the one `castToBf16` stops at), or
 * -1: what a load's NaN check needs, without casting.
 *
 * @param bits the stored patterns (`Uint32Array` for F32, `Uint16Array` for F16)
 * @returns the index, or -1
 * @example
 * ```ts
 * import { firstNan } from "./cast_to_bf16.ts";
 * if (firstNan(new Uint32Array([0x3f800000, 0x7f800000, 0xffc00001])) !== 2) throw new Error();
 * if (firstNan(new Uint16Array([0x7c00, 0xfc00])) !== -1) throw new Error(); // infinities
 * ```
 */
export function firstNan(bits: Uint32Array | Uint16Array): number {
  // A NaN: all-ones exponent, nonzero fraction (sign aside).
  const [mask, inf] = bits instanceof Uint32Array ? [0x7fffffff, F32_INF] : [0x7fff, F16_INF];
  for (let i = 0; i < bits.length; i++) if ((bits[i]! & mask) > inf) return i;
  return -1;
}

/** The infinity patterns (sign cleared): a larger magnitude pattern is a NaN. */
const F32_INF = 0x7f800000;
const F16_INF = 0x7c00;

let _F16_TO_BF16: Uint16Array | null = null;

/**
 * Every F16 pattern's BF16 cast (NaN entries unused): exactly to F32 by the reference `convert`,
 * then nearest-even to BF16. Built once, on first use (65,536 conversions).
 */
function _f16Table(): Uint16Array {
  if (_F16_TO_BF16 !== null) return _F16_TO_BF16;
  const t = new Uint16Array(1 << 16);
  for (let h = 0; h < t.length; h++) {
    if ((h & 0x7fff) <= F16_INF) t[h] = fp32ToBf16(convert(FP16, FP32, h));
  }
  return (_F16_TO_BF16 = t);
}
