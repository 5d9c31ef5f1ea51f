/**
 * `F.softmax(x, dim=-1)` on FP32 CUDA tensors as the recorded PyTorch release computes it:
 * `host_softmax`'s dispatch ({@link softmaxLaunch}) to the warp kernel ({@link softmaxWarp}) or a
 * block kernel ({@link softmaxBlock}).
 *
 * @module
 */
import type { Mufu } from "../math/mod.ts";
import { softmaxBlock } from "./softmax_block.ts";
import { softmaxLaunch } from "./softmax_launch.ts";
import { softmaxStackForTorch } from "./softmax_stack_for_torch.ts";
import { softmaxWarp } from "./softmax_warp.ts";

/** Options of {@link softmaxRows}. */
export interface SoftmaxRowsOptions {
  /** Row length (the softmax dimension). */
  readonly dim: number;
  /** `torch.__version__` of the run, e.g. `"2.3.1+cu121"`. */
  readonly torchVersion: string;
  /** MUFU implementation for `expf`. */
  readonly mufu: Mufu;
  /** Build flavour (default `cuda`; `rocm` is refused). */
  readonly platform?: "cuda" | "rocm";
  /** Input misalignment from a 16-byte boundary in elements (default 0). */
  readonly baseOffset?: number;
  /** `sharedMemPerBlock` of the GPU in bytes (default 49,152). */
  readonly sharedMemPerBlock?: number;
  /** FFMA contraction of the exp-sum, when known (see `softmaxBlock`). */
  readonly expfAccumulate?: "ffma" | "fmul-fadd";
}

/**
 * Softmax of each row of an FP32 matrix, with the kernel the release launches for `dim`.
 *
 * @param x fp32 patterns, row-major [rows, dim]
 * @param options row length, torch version, MUFU, alignment and GPU facts
 * @returns fp32 patterns, same layout
 * @throws {SyntaxError} when the version is unparsable
 * @throws {RangeError} for an unknown release or platform, a bad shape, or a row whose bits depend
 *   on an unpinned compilation choice (see `softmaxBlock`)
 * @example
 * ```ts
 * import { softmaxRows } from "./softmax_rows.ts";
 * import { createSfu } from "../../hardware/sfu/mod.ts";
 * const mufu = createSfu({ mode: "ieee", ftz: true });
 * const x = new Uint32Array(4096); // equal logits: every kernel gives 2^-12
 * for (const torchVersion of ["2.2.2", "2.5.1", "2.9.1+cu128"]) {
 *   if (softmaxRows(x, { dim: 4096, torchVersion, mufu })[7] !== 0x39800000) throw new Error();
 * }
 * ```
 */
export function softmaxRows(x: Uint32Array, options: SoftmaxRowsOptions): Uint32Array {
  const { dim, mufu } = options;
  const stack = softmaxStackForTorch(options.torchVersion, {
    platform: options.platform ?? "cuda",
  });
  const baseOffset = options.baseOffset ?? 0;
  const launch = softmaxLaunch(dim, {
    stack,
    baseOffset,
    sharedMemPerBlock: options.sharedMemPerBlock ?? 49152,
  });
  if (launch.kernel === "softmax_warp_forward") {
    return softmaxWarp(x, { dim, mufu, maxDim: launch.maxDim });
  }
  const acc = options.expfAccumulate;
  return softmaxBlock(x, {
    dim,
    mufu,
    launch,
    baseOffset,
    ...(acc === undefined ? {} : { expfAccumulate: acc }),
  });
}
