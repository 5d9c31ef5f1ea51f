/**
 * RMSNorm as HF Transformers' eager `Qwen3RMSNorm` computes it on CUDA with PyTorch: five ATen
 * kernels whose rounding points are formats.md §3 rows 2-9 and ops.md §1.
 *
 * @module
 */
import type { Sfu, SfuFunctionStatus } from "../../hardware/mod.ts";
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../numerics/mod.ts";
import { cudaRsqrtf } from "../math/mod.ts";
import { reduceSumRows } from "../reduce/mod.ts";
import type { ReduceStack } from "../reduce/mod.ts";
import { meanFactor } from "./mean_factor.ts";

/** Options of {@link rmsNorm}. */
export interface RmsNormOptions {
  /** Rows M (`num_outputs` of the mean: tokens, or tokens x heads for QK-norm). */
  readonly rows: number;
  /** Normalised length H. */
  readonly hidden: number;
  /** BF16 weight patterns, `hidden` of them. */
  readonly weight: Uint16Array;
  /** The SFU whose `rsqrt` models `torch.rsqrt` (MUFU.RSQ; `tesla-table` or `ieee`). */
  readonly sfu: Pick<Sfu, "rsqrt" | "status">;
  /** Reduce-kernel facts of the PyTorch build. */
  readonly stack: ReduceStack;
  /** `variance_epsilon` as the Python float (default 1e-6; fl32(1e-6) = 0x358637BD). */
  readonly eps?: number;
  /** Offset of the input tensor from a 16-byte boundary in FP32 elements (default 0). */
  readonly baseOffset?: number;
  /**
   * Rows of the whole tensor on the GPU when `x` holds only some of them (a serving pass's rows
   * of one sequence): the reduce launch and the mean factor follow it; default `rows`.
   */
  readonly launchRows?: number;
}

/** Output and per-row intermediates of {@link rmsNorm} (the spec's validated checkpoints). */
export interface RmsNormResult {
  /** BF16 [rows, hidden]: `bf16(fl32(w * bf16(fl32(x * r))))`. */
  readonly output: Uint16Array;
  /** FP32 per row: the reduce-tree sum of squares. */
  readonly sumsq: Uint32Array;
  /** FP32 per row: `fl32(sumsq * factor)`. */
  readonly variance: Uint32Array;
  /** FP32 per row: `rsqrt(fl32(variance + fl32(eps)))` through the SFU. */
  readonly rstd: Uint32Array;
  /** The mean factor `float(rows) / (rows * hidden)` as an FP32 pattern. */
  readonly factor: number;
  /** Validation status of the SFU rsqrt model used, for verdicts. */
  readonly rsqrtStatus: SfuFunctionStatus;
}

/**
 * RMSNorm of a BF16 [rows, hidden] matrix:
 * 1. `x32 = float(x)` (exact); 2. `sq = fl32(x32 * x32)` (`pow(2)` is one FMUL; exact for
 * normal BF16); 3. `sumsq` = reduce_kernel sum ({@link reduceSumRows}); 4. `var =
 * fl32(sumsq * factor)` (MeanOps project); 5. `t = fl32(var + fl32(eps))`; 6. `r = rsqrtf(t)`
 * (`torch.rsqrt`, built without fast math: `rsqrt.approx.f32`, MUFU.RSQ with the subnormal
 * pre-scale, `cudaRsqrtf`; a subnormal `t` comes only from an epsilon below 2^-126);
 * 7. `n = fl32(x32 * r)`; 8. `nb = bf16(n)` (RNE); 9. `out = bf16(fl32(w * nb))` (BF16 x BF16 in
 * FP32 opmath, exact for normal values, then RNE).
 *
 * Host arithmetic: `Math.fround(a * b)` of two FP32 values is the RNE FP32 product because the
 * float64 product of two 24-bit significands is exact (48 bits, exponents far inside float64's
 * range); `Math.fround(a + b)` is the RNE FP32 sum by the 2p + 2 double-rounding argument.
 *
 * @param x BF16 patterns, row-major [rows, hidden]
 * @param options shape, weight, SFU, stack, eps
 * @returns the BF16 output and per-row FP32 intermediates
 * @throws {TypeError} when `x` or `weight` have the wrong length
 * @throws {RangeError} on bad sizes or an unmodelled reduce configuration
 * @example
 * ```ts
 * import { rmsNorm } from "./rms_norm.ts";
 * import { createSfu } from "../../hardware/mod.ts";
 * import { REDUCE_STACK_CUDA_RECENT as stack } from "../reduce/mod.ts";
 * // A row of 2.0: sumsq 8, var 4 (+eps), r ~ 0.5, x*r ~ 1 -> bf16 1.0, times weight 1.0.
 * const x = new Uint16Array(2).fill(0x4000);
 * const weight = new Uint16Array(2).fill(0x3f80);
 * const r = rmsNorm(x, { rows: 1, hidden: 2, weight, sfu: createSfu({ mode: "ieee" }), stack });
 * if (r.sumsq[0] !== 0x41000000 || r.output[0] !== 0x3f80) throw new Error();
 * ```
 */
export function rmsNorm(x: Uint16Array, options: RmsNormOptions): RmsNormResult {
  const { rows, hidden, weight, sfu, stack } = options;
  if (!(x instanceof Uint16Array) || x.length !== rows * hidden) {
    throw new TypeError(`Cannot normalise: expected ${rows} x ${hidden} BF16 values in x`);
  }
  if (!(weight instanceof Uint16Array) || weight.length !== hidden) {
    throw new TypeError(`Cannot normalise: expected ${hidden} BF16 weights`);
  }
  // Float views of FP32 patterns: a float64 product of two binary32 values is exact, and a store
  // into a Float32Array rounds it to nearest-even once (NaN payloads may differ from the
  // canonical NaN, which nothing below can see: the reduce canonicalises its sum, and every NaN
  // rounds to the BF16 NaN 0x7FFF).
  // Scratch reused across calls (one realm runs one call at a time): fresh multi-megabyte arrays
  // per call cost more in page faults than the arithmetic. Only up to _REUSE_MAX elements: a
  // long prefill's inputs (hundreds of MB) are not kept alive for the rest of the process.
  const reuse = x.length <= _REUSE_MAX;
  if (reuse && _x32.length < x.length) {
    _x32 = new Float32Array(x.length);
    _sq = new Float32Array(x.length);
  }
  const x32 = reuse ? _x32.subarray(0, x.length) : new Float32Array(x.length);
  const xBits = new Int32Array(x32.buffer, 0, x.length);
  for (let i = 0; i < x.length; i++) xBits[i] = (x[i] as number) << 16;
  const sqF = reuse ? _sq.subarray(0, x.length) : new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = x32[i] as number;
    sqF[i] = v * v;
  }
  const sq = new Uint32Array(sqF.buffer, 0, x.length);
  const launchRows = options.launchRows ?? rows;
  const sumsq = reduceSumRows(sq, {
    rows,
    length: hidden,
    stack,
    baseOffset: options.baseOffset ?? 0,
    launchRows,
  });
  const factor = meanFactor(launchRows, launchRows * hidden);
  const factorValue = f32FromBits(factor);
  const eps = Math.fround(options.eps ?? 1e-6);
  const variance = new Uint32Array(rows);
  const rstd = new Uint32Array(rows);
  const wBits = new Int32Array(hidden);
  for (let j = 0; j < hidden; j++) wBits[j] = (weight[j] as number) << 16;
  const w32 = new Float32Array(wBits.buffer);
  const output = new Uint16Array(x.length);
  const t = new Float32Array(hidden);
  const tBits = new Int32Array(t.buffer);
  const n = new Float32Array(hidden);
  const nBits = new Int32Array(n.buffer);
  for (let r = 0; r < rows; r++) {
    const v = Math.fround(f32FromBits(sumsq[r] as number) * factorValue);
    variance[r] = bitsFromF32(v);
    const rs = cudaRsqrtf(bitsFromF32(v + eps), sfu);
    rstd[r] = rs;
    const rv = f32FromBits(rs);
    const i0 = r * hidden;
    for (let j = 0; j < hidden; j++) t[j] = (x32[i0 + j] as number) * rv;
    for (let j = 0; j < hidden; j++) nBits[j] = fp32ToBf16(tBits[j] as number) << 16;
    for (let j = 0; j < hidden; j++) t[j] = (w32[j] as number) * (n[j] as number);
    for (let j = 0; j < hidden; j++) output[i0 + j] = fp32ToBf16(tBits[j] as number);
  }
  return Object.freeze({
    output,
    sumsq,
    variance,
    rstd,
    factor,
    rsqrtStatus: sfu.status.functions.rsqrt,
  });
}

/** Largest input (elements) whose scratch {@link rmsNorm} keeps for the next call (16 MiB each). */
const _REUSE_MAX = 1 << 22;

/** Input scratch of {@link rmsNorm}: the FP32 values of x and their squares. */
let _x32 = new Float32Array(0);
let _sq = new Float32Array(0);
