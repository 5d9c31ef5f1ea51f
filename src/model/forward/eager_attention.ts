/**
 * HF Transformers' `eager_attention_forward` for a padded prefill batch (spec
 * `stack_pytorch_hf.md` §1.5), per sequence b and query head h (KV head h / group, `repeat_kv`
 * copies values unchanged):
 * ```
 * s = bf16(q_h k_h^T)                    cuBLAS (strided-batched) GEMM, M = N = L, K = d
 * s = bf16(fl32(s * fl32(head_dim^-0.5))) the separate `* scaling` kernel
 * s = bf16(fl32(s + mask))                4D BF16 mask: 0, or finfo(bf16).min (0xff7f) above the
 *                                         diagonal and at padded keys
 * p = bf16(softmax(float(s)))             PyTorch's FP32 softmax kernel of the torch release
 * o = bf16(p v_h)                         GEMM, M = L, N = d, K = L
 * ```
 * Every row of the padded batch gets an output, pads included (their queries see the real keys
 * before them), so pad rows reach the o projection and, in MoE layers, the router.
 *
 * @module
 */
import { isHostResourceError } from "../../errors.ts";
import { softmaxRows } from "../../kernels/mod.ts";
import { type Datapath, F32_RN } from "../../hardware/mod.ts";
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import type { BatchLayout } from "./batch_layout.ts";
import { type BlockRuntime, ForwardUnsupported, project } from "../decoder/mod.ts";

/** `torch.finfo(torch.bfloat16).min`, the additive mask value. */
const BF16_MIN = 0xff7f;

/**
 * Eager attention over a padded batch.
 *
 * @param qkv Q [rows, heads, d], K and V [rows, kvHeads, d] after QK-norm and RoPE, BF16
 * @param o layout, head counts, runtime (GEMM dispatch and SFU), datapath, torch version
 * @returns the attention output [rows, heads * d], BF16
 * @throws {ForwardUnsupported} for a flattened batch, an uncovered GEMM shape or a softmax row
 *   length the torch release's kernels are not modelled for
 * @example
 * ```ts ignore
 * const core = await eagerAttention({ q, k, v }, { layout, heads, kvHeads, headDim, runtime, datapath, torchVersion });
 * ```
 */
export async function eagerAttention(
  qkv: { readonly q: Uint16Array; readonly k: Uint16Array; readonly v: Uint16Array },
  o: {
    readonly layout: BatchLayout;
    readonly heads: number;
    readonly kvHeads: number;
    readonly headDim: number;
    readonly runtime: BlockRuntime;
    readonly datapath: Datapath;
    readonly torchVersion: string;
  },
): Promise<Uint16Array> {
  const { layout, heads, kvHeads, headDim: d } = o;
  const batch = layout.cuSeqlens.length - 1;
  const len = layout.rows / batch;
  if (layout.varlen && !layout.padded) {
    throw new ForwardUnsupported("eager attention runs on padded batches, not flattened ones");
  }
  const scale = bitsFromF32(d ** -0.5);
  const out = new Uint16Array(layout.rows * heads * d);
  for (let b = 0; b < batch; b++) {
    const real = layout.cuSeqlens[b + 1]! - layout.cuSeqlens[b]!;
    for (let h = 0; h < heads; h++) {
      const kvh = Math.floor(h / (heads / kvHeads));
      const q = _head(qkv.q, { b, len, head: h, heads, d });
      const k = _head(qkv.k, { b, len, head: kvh, heads: kvHeads, d });
      const vT = _transpose(_head(qkv.v, { b, len, head: kvh, heads: kvHeads, d }), len, d);
      const s = (await project(q, {
        ...o,
        call: { name: "attn_scores", m: len, n: len, k: d },
        weight: k,
      })).out;
      const x32 = new Uint32Array(len * len);
      for (let i = 0; i < len; i++) {
        for (let j = 0; j < len; j++) {
          const sc = _mulBf16(s[i * len + j]!, scale);
          const masked = j > i || j >= real;
          const m = masked ? fp32ToBf16(F32_RN.add((sc << 16) >>> 0, (BF16_MIN << 16) >>> 0)) : sc;
          x32[i * len + j] = (m << 16) >>> 0;
        }
      }
      let p32: Uint32Array;
      try {
        p32 = softmaxRows(x32, { dim: len, torchVersion: o.torchVersion, mufu: o.runtime.sfu });
      } catch (e) {
        if (e instanceof RangeError && !isHostResourceError(e)) {
          throw new ForwardUnsupported(`eager softmax: ${e.message}`);
        }
        throw e;
      }
      const p = Uint16Array.from(p32, fp32ToBf16);
      const y = (await project(p, {
        ...o,
        call: { name: "attn_values", m: len, n: d, k: len },
        weight: vT,
      })).out;
      for (let i = 0; i < len; i++) {
        out.set(y.subarray(i * d, (i + 1) * d), ((b * len + i) * heads + h) * d);
      }
    }
  }
  return out;
}

/** `bf16(fl32(a * s))` for a BF16 value and an FP32 scale (exact product rounded once). */
function _mulBf16(a: number, scaleBits: number): number {
  // A BF16 (8-bit) times an FP32 (24-bit) significand is exact in float64; Math.fround rounds once.
  return fp32ToBf16(
    bitsFromF32(Math.fround(f32FromBits((a << 16) >>> 0) * f32FromBits(scaleBits))),
  );
}

function _head(
  x: Uint16Array,
  o: { b: number; len: number; head: number; heads: number; d: number },
): Uint16Array {
  const { b, len, head, heads, d } = o;
  const out = new Uint16Array(len * d);
  for (let i = 0; i < len; i++) {
    const at = ((b * len + i) * heads + head) * d;
    out.set(x.subarray(at, at + d), i * d);
  }
  return out;
}

function _transpose(x: Uint16Array, rows: number, cols: number): Uint16Array {
  const out = new Uint16Array(x.length);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) out[j * rows + i] = x[i * cols + j]!;
  }
  return out;
}
