/**
 * Runs a GEMM recipe: the partition structure of the library kernel around K-walks, then the
 * epilogue. The order of operations is the spec (`gemm.md` §1-§2).
 *
 * @module
 */
import { BF16, convert, FP16, FP32, fp32ToBf16 } from "../../numerics/mod.ts";
import { type Datapath, F32_RN } from "../../hardware/mod.ts";
import type { KWalker } from "./k_walker.ts";
import { type KSegment, slicedStripes, splitKPartitions } from "./partitions.ts";
import type { GemmRecipe } from "./recipe.ts";
import { recipeFit } from "./recipe_fit.ts";

/** Epilogue output formats. */
export type GemmOutFormat = "bf16" | "fp16";

/** A GEMM problem y = x W^T: x [M, K] and W [N, K] as 16-bit input patterns. */
export interface GemmProblem {
  /** Tensor-core datapath of the GPU (input bf16 or fp16, output fp32). */
  readonly dp: Datapath;
  /** K-walk implementation. */
  readonly walker: KWalker;
  /** x, row-major [M, K]. */
  readonly a: Uint16Array;
  /** W, row-major [N, K]. */
  readonly b: Uint16Array;
  /** Rows of x (tokens). */
  readonly m: number;
  /** Rows of W (output features). */
  readonly n: number;
  /** Reduction length. */
  readonly k: number;
  /** Epilogue format (default bf16). */
  readonly outFormat?: GemmOutFormat;
}

/** GEMM results. */
export interface GemmResult {
  /** fp32 value that the final epilogue rounds (the accumulator for single-walk recipes). */
  readonly acc: Uint32Array;
  /** Output rounded to the epilogue format with nearest-even. */
  readonly out: Uint16Array;
}

/**
 * Runs a recipe.
 *
 * @param recipe the recipe descriptor
 * @param problem operands, shape, datapath, walker, epilogue format
 * @returns fp32 pre-epilogue values and the rounded output
 * @throws {RangeError} on shape mismatch, a datapath that is not fp32-accumulating, or a recipe
 *   that does not fit K (`recipeFit`: callers that take recipes from input ask it first, and
 *   refuse the recipe as not emulated; this is the backstop before any walk)
 * @example
 * ```ts
 * import { runGemmRecipe } from "./run_gemm_recipe.ts";
 * import { referenceKWalker } from "./k_walker.ts";
 * import { BF16, FP32 } from "../../numerics/mod.ts";
 * const dp = {
 *   family: "mma", input: BF16, output: FP32, k: 16, blockSize: 16, fracBits: 25,
 *   resultFormat: FP32, rounding: "rz", alignFloor: -133, chain: { kind: "contiguous" },
 *   accumulator: "early",
 * } as const;
 * const a = new Uint16Array(64).fill(0x3f80);
 * const r = await runGemmRecipe({ family: "serial_split_k", splitK: 2, tileK: 16 }, {
 *   dp, walker: referenceKWalker, a, b: a, m: 1, n: 1, k: 64,
 * });
 * if (r.out[0] !== 0x4280) throw new Error(); // 64.0
 * ```
 */
export async function runGemmRecipe(recipe: GemmRecipe, problem: GemmProblem): Promise<GemmResult> {
  const { dp, m, n, k } = problem;
  if (dp.output !== FP32 || (dp.input !== BF16 && dp.input !== FP16)) {
    throw new RangeError(
      `Cannot run GEMM: datapath ${dp.input.name}->${dp.output.name} is not a 16-bit-input fp32 GEMM`,
    );
  }
  if (problem.a.length !== m * k || problem.b.length !== n * k) {
    throw new RangeError(`Cannot run GEMM: operands do not match ${m}x${n}x${k}`);
  }
  const fit = recipeFit(recipe, k);
  if (!fit.fits) throw new RangeError(`Cannot run GEMM: ${fit.reason}`);
  const round = _rounder(problem.outFormat ?? "bf16");
  const walk = (segments: readonly KSegment[]) => problem.walker(dp, { ...problem, segments });
  switch (recipe.family) {
    case "single_walk":
      return _finish(await walk([[0, k]]), round);
    case "kwalk": {
      const [, , tbK] = recipe.threadblock;
      const warpK = recipe.warp[2];
      if (warpK === tbK) return _finish(await walk([[0, k]]), round);
      return await _serial([[0, k]], (slice) => _sliced(slice, tbK, warpK, walk), round);
    }
    case "serial_split_k":
      return await _serial(splitKPartitions(k, recipe), (p) => walk([p]), round);
    case "sliced_k":
      return await _serial(
        splitKPartitions(k, recipe),
        (slice) => _sliced(slice, recipe.tileK, recipe.warpK, walk),
        round,
      );
    case "parallel_split_k": {
      const r = new Uint32Array(m * n); // +0
      for (const p of splitKPartitions(k, recipe)) {
        const w = await walk([p]);
        for (let i = 0; i < w.length; i++) {
          const partial = recipe.workspace === "fp32" ? w[i]! : round.widen(round.narrow(w[i]!));
          r[i] = F32_RN.add(r[i]!, partial);
        }
      }
      return _finish(r, round);
    }
  }
}

interface _Rounder {
  narrow(x: number): number;
  widen(x: number): number;
}

function _rounder(format: GemmOutFormat): _Rounder {
  if (format === "bf16") return { narrow: fp32ToBf16, widen: (x) => (x << 16) >>> 0 };
  return { narrow: (x) => convert(FP32, FP16, x), widen: (x) => convert(FP16, FP32, x) };
}

function _finish(acc: Uint32Array, round: _Rounder): GemmResult {
  const out = new Uint16Array(acc.length);
  for (let i = 0; i < acc.length; i++) out[i] = round.narrow(acc[i]!);
  return { acc, out };
}

/** Serial split-K: partition 0 writes the rounded output; each later one adds to it in fp32. */
async function _serial(
  parts: readonly KSegment[],
  partial: (p: KSegment) => Promise<Uint32Array>,
  round: _Rounder,
): Promise<GemmResult> {
  let result: GemmResult | undefined;
  for (const p of parts) {
    const acc = await partial(p);
    if (result !== undefined) {
      for (let i = 0; i < acc.length; i++) {
        acc[i] = F32_RN.add(acc[i]!, round.widen(result.out[i]!));
      }
    }
    result = _finish(acc, round);
  }
  return result as GemmResult;
}

/** Sliced-K CTA: one walk per warp partition over its stripes, summed in fp32 in order. */
async function _sliced(
  slice: KSegment,
  tileK: number,
  warpK: number,
  walk: (segments: readonly KSegment[]) => Promise<Uint32Array>,
): Promise<Uint32Array> {
  let cta: Uint32Array | undefined;
  for (let p = 0; p < tileK / warpK; p++) {
    const part = await walk(slicedStripes(slice, { tileK, warpK, p }));
    if (cta === undefined) cta = part;
    else for (let i = 0; i < cta.length; i++) cta[i] = F32_RN.add(cta[i]!, part[i]!);
  }
  return cta as Uint32Array;
}
