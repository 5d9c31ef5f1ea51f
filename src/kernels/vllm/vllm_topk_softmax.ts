/**
 * `vllmTopkSoftmax`: vLLM's CUDA `topk_softmax` op (the router of `fused_topk`, every MoE layer
 * on the fused-MoE path) bit for bit: the softmax of each row of FP32 router logits and its top-k
 * experts with their probabilities.
 *
 * Source: vllm-project/vllm commit c31246800c98272ab28b7d454d6b72f38e396972 (vLLM 0.11 main):
 * - `vllm/model_executor/layers/fused_moe/fused_moe.py:954-1010`: `fused_topk` casts the BF16
 *   logits to FP32 (`gating_output.float()`) and calls `ops.topk_softmax`; with `renormalize`
 *   the weights are then divided by their sum in PyTorch (not here: `reduceSumRows` and IEEE
 *   division, as HF renormalises).
 * - `csrc/moe/topk_softmax_kernels.cu:188-384` (`topkGatingSoftmax`, experts a power of two up
 *   to 512, or 192, 320, 384, 448, 576): a row is shared by `THREADS_PER_ROW` lanes of a warp,
 *   each holding `VPT` values loaded `ELTS_PER_LDG` at a time (16-byte loads for powers of two,
 *   8-byte for the multiples of 64); per lane a sequential max and a sequential FP32 sum of
 *   `expf(x - max)` (libdevice `expf`: vLLM is built without fast-math), xor-butterfly max and
 *   sum across the row's lanes (masks `THREADS_PER_ROW / 2` down to 1), `1.f / row_sum` (IEEE
 *   division) and a multiply per value; top-k by repeated argmax: per lane the strictly greater
 *   value in column order, across lanes the greater value or, on ties, the lower expert; the
 *   winner is set to -10000 before the next round.
 * - `:47-170` (`moeSoftmax<256>` and `moeTopK<256>`, every other expert count): one block of 256
 *   threads per row, thread t holding columns t, t + 256, ...; CUB block max, CUB block sum of
 *   the threads' `exp(x - max)` sums, `1.f / Z`, `exp(x - max) * (1 / Z)`; top-k by CUB ArgMax
 *   (ties to the lower expert), earlier winners skipped.
 *
 * Evidence: derived from source only. GPU-only question: whether ptxas fuses `expf`'s final
 * power-of-two scaling into the following add (it can change a result only when `expf` is
 * subnormal, i.e. a probability below 2^-126 of the row's largest).
 *
 * @module
 */
import { divF32, F32_RN } from "../../hardware/mod.ts";
import { f32FromBits } from "../../numerics/mod.ts";
import { cudaExpf, type Mufu } from "../math/mod.ts";
import { cubBlockReduceSum } from "./cub_block_reduce.ts";

/** Options of {@link vllmTopkSoftmax}. */
export interface VllmTopkSoftmaxOptions {
  /** Rows (tokens). */
  readonly rows: number;
  /** Experts E (the logits' row length). */
  readonly experts: number;
  /** k. */
  readonly topK: number;
  /** MUFU model (`expf` runs MUFU.EX2). */
  readonly mufu: Mufu;
}

/** Result of {@link vllmTopkSoftmax}. */
export interface VllmTopkSoftmaxResult {
  /** Expert ids [rows, k], in selection order (descending probability, ties to the lower id). */
  readonly ids: Int32Array;
  /** FP32 patterns of the selected probabilities [rows, k]. */
  readonly weights: Uint32Array;
  /** Which kernel ran: the fused warp kernel or the two block kernels. */
  readonly kernel: "warp" | "block";
}

/** Expert counts the fused warp kernel is instantiated for, with its largest load in bytes. */
const _WARP_LOAD_BYTES: ReadonlyMap<number, number> = new Map([
  ...[1, 2, 4, 8, 16, 32, 64, 128, 256, 512].map((e) => [e, 16] as const),
  ...[192, 320, 384, 448, 576].map((e) => [e, 8] as const),
]);

/** Below every probability: the warp kernel's blanking value. */
const _BLANK = 0xc61c4000; // -10000.0f

/**
 * Softmax and top-k of BF16 router logits, as `topk_softmax` computes them.
 *
 * @param logits BF16 patterns [rows, experts] (widened exactly to FP32, as `.float()` does)
 * @param options shape, k and the MUFU model
 * @returns ids and FP32 weights [rows, k]
 * @throws {RangeError} on a shape that is not positive integers, k above the experts, a length
 *   mismatch, or a NaN probability in the block kernels (their ArgMax is not modelled on NaN)
 * @example
 * ```ts
 * import { vllmTopkSoftmax } from "./vllm_topk_softmax.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * // Logits 0, 0, 0, 0: every probability is 1/4; ties go to the lower expert.
 * const r = vllmTopkSoftmax(new Uint16Array(4), {
 *   rows: 1, experts: 4, topK: 2, mufu: createSfu({ mode: "ieee" }),
 * });
 * if (r.ids.join() !== "0,1" || r.weights[0] !== 0x3e800000 || r.kernel !== "warp") throw new Error();
 * ```
 */
export function vllmTopkSoftmax(
  logits: Uint16Array,
  options: VllmTopkSoftmaxOptions,
): VllmTopkSoftmaxResult {
  const { rows, experts: e, topK: k, mufu } = options;
  for (const [name, v] of [["rows", rows], ["experts", e], ["topK", k]] as const) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new RangeError(`Cannot route: ${name} ${v} is not a positive integer`);
    }
  }
  if (k > e) throw new RangeError(`Cannot route: top-${k} of ${e} experts`);
  if (logits.length !== rows * e) {
    throw new RangeError(`Cannot route: expected ${rows} x ${e} logits, got ${logits.length}`);
  }
  const ids = new Int32Array(rows * k);
  const weights = new Uint32Array(rows * k);
  const bytes = _WARP_LOAD_BYTES.get(e);
  const row = new Uint32Array(e);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < e; i++) row[i] = (logits[r * e + i]! << 16) >>> 0;
    const out = { ids: ids.subarray(r * k, (r + 1) * k), weights: weights.subarray(r * k) };
    if (bytes !== undefined) _warpRow(row, { bytes, k, mufu, out });
    else _blockRow(row, { k, mufu, out });
  }
  return Object.freeze({ ids, weights, kernel: bytes === undefined ? "block" : "warp" });
}

const _gt = (a: number, b: number) => f32FromBits(a) > f32FromBits(b);
/** `a - b` in FP32 (round to nearest): `a + (-b)`, the same IEEE operation. */
const _sub = (a: number, b: number) => F32_RN.add(a, (b ^ 0x80000000) >>> 0);
const _fmax = (a: number, b: number) => {
  // fmaxf: a NaN operand yields the other; equal zeros of either sign are interchangeable here
  // (the max is only subtracted, and x - (+-0) is x).
  if ((a & 0x7fffffff) > 0x7f800000) return b;
  if ((b & 0x7fffffff) > 0x7f800000) return a;
  return _gt(b, a) ? b : a;
};

/** One row through `topkGatingSoftmax` (the lanes of the row emulated in turn). */
function _warpRow(
  x: Uint32Array,
  o: {
    readonly bytes: number;
    readonly k: number;
    readonly mufu: Mufu;
    readonly out: { ids: Int32Array; weights: Uint32Array };
  },
): void {
  const e = x.length;
  const elts = Math.min(o.bytes, 4 * e) / 4;
  const vecs = Math.max(1, Math.floor(e / (elts * 32)));
  const vpt = vecs * elts;
  const lanes = e / vpt;
  const colsPerLdg = elts * lanes;
  // chunk[g][j]: lane g's j-th value, column g * elts + floor(j / elts) * colsPerLdg + j % elts.
  const col = (g: number, j: number) => g * elts + Math.floor(j / elts) * colsPerLdg + (j % elts);
  const chunk = Array.from(
    { length: lanes },
    (_, g) => Uint32Array.from({ length: vpt }, (_, j) => x[col(g, j)]!),
  );
  const butterfly = (v: number[], op: (a: number, b: number) => number) => {
    for (let mask = lanes / 2; mask >= 1; mask /= 2) {
      v = v.map((a, g) => op(a, v[g ^ mask]!));
    }
    return v;
  };
  const max = butterfly(chunk.map((c) => c.reduce((m, v) => _fmax(m, v))), _fmax);
  const sums = chunk.map((c, g) => {
    let s = 0;
    for (let j = 0; j < vpt; j++) {
      c[j] = cudaExpf(_sub(c[j]!, max[g]!), o.mufu);
      s = F32_RN.add(s, c[j]!);
    }
    return s;
  });
  const sum = butterfly(sums, (a, b) => F32_RN.add(a, b));
  chunk.forEach((c, g) => {
    const recip = divF32(0x3f800000, sum[g]!);
    for (let j = 0; j < vpt; j++) c[j] = F32_RN.mul(c[j]!, recip);
  });
  for (let s = 0; s < o.k; s++) {
    // Each lane's argmax in column order (strictly greater wins), then the butterfly.
    let best = chunk.map((c, g) => {
      let v = c[0]!, at = col(g, 0);
      for (let j = 1; j < vpt; j++) {
        if (_gt(c[j]!, v)) {
          v = c[j]!;
          at = col(g, j);
        }
      }
      return { v, at };
    });
    for (let mask = lanes / 2; mask >= 1; mask /= 2) {
      best = best.map((mine, g) => {
        const other = best[g ^ mask]!;
        return _gt(other.v, mine.v) || (other.v === mine.v && other.at < mine.at) ? other : mine;
      });
    }
    const win = best[0]!;
    o.out.ids[s] = win.at;
    o.out.weights[s] = win.v;
    // The lane holding the winner blanks it.
    const g = Math.floor(win.at / elts) % lanes;
    const j = Math.floor(win.at / colsPerLdg) * elts + (win.at % elts);
    chunk[g]![j] = _BLANK;
  }
}

/** One row through `moeSoftmax<256>` and `moeTopK<256>`. */
function _blockRow(
  x: Uint32Array,
  o: {
    readonly k: number;
    readonly mufu: Mufu;
    readonly out: { ids: Int32Array; weights: Uint32Array };
  },
): void {
  const e = x.length;
  const tpb = 256;
  let max = 0xff7fffff; // -FLT_MAX
  for (let i = 0; i < e; i++) max = _fmax(max, x[i]!);
  const partials = new Uint32Array(tpb);
  for (let t = 0; t < tpb; t++) {
    let s = 0;
    for (let i = t; i < e; i += tpb) s = F32_RN.add(s, cudaExpf(_sub(x[i]!, max), o.mufu));
    partials[t] = s;
  }
  const factor = divF32(0x3f800000, cubBlockReduceSum(partials, { blockThreads: tpb }));
  const p = Array.from(x, (v) => F32_RN.mul(cudaExpf(_sub(v, max), o.mufu), factor));
  if (p.some((v) => (v & 0x7fffffff) > 0x7f800000)) {
    throw new RangeError("Cannot route: a NaN probability (CUB ArgMax on NaN is not modelled)");
  }
  const order = p.map((_, i) => i).sort((
    a,
    b,
  ) => (_gt(p[a]!, p[b]!) ? -1 : _gt(p[b]!, p[a]!) ? 1 : a - b));
  for (let s = 0; s < o.k; s++) {
    o.out.ids[s] = order[s]!;
    o.out.weights[s] = p[order[s]!]!;
  }
}
