/**
 * Maps a recorded PyTorch version and build platform to the {@link SoftmaxStack} of its release.
 *
 * @module
 */
import {
  SOFTMAX_STACK_TORCH_2_1,
  SOFTMAX_STACK_TORCH_2_4,
  SOFTMAX_STACK_TORCH_2_7,
  type SoftmaxStack,
} from "./softmax_stack.ts";
import { parseTorchVersion } from "../torch_version.ts";

/** Options of {@link softmaxStackForTorch}. */
export interface SoftmaxStackForTorchOptions {
  /** Build flavour: `cuda` (default) or `rocm`. */
  readonly platform?: "cuda" | "rocm";
}

/**
 * Picks the softmax facts for a `torch.__version__` string.
 *
 * Known: CUDA builds of 2.1 to 2.10 (see the presets for which boundaries are read and which are
 * inferred). Refused: older and newer releases (their SoftMax.cu was not read), and ROCm builds,
 * whose `softmax_cuda_out` sets `use_fast_softmax` and launches `cunn_SoftMaxForwardGmem` /
 * `cunn_SoftMaxForwardFast` (`__expf`, a reciprocal of the sum and a multiply; not modelled).
 *
 * @param version `torch.__version__`, e.g. `"2.9.1+cu128"`
 * @param options the build platform
 * @returns the frozen preset
 * @throws {SyntaxError} when the version has no `major.minor` prefix
 * @throws {RangeError} for an unknown release or a ROCm build
 * @example
 * ```ts
 * import { softmaxStackForTorch } from "./softmax_stack_for_torch.ts";
 * if (softmaxStackForTorch("2.3.1+cu121").tree !== "smem-serial") throw new Error();
 * if (softmaxStackForTorch("2.10.0+cu128").maxWarpDim !== 2048) throw new Error();
 * ```
 */
export function softmaxStackForTorch(
  version: string,
  options: SoftmaxStackForTorchOptions = {},
): SoftmaxStack {
  const { major, minor } = parseTorchVersion(version);
  if ((options.platform ?? "cuda") === "rocm") {
    throw new RangeError(
      `Cannot pick the softmax kernels of torch '${version}' on ROCm: ` +
        `cunn_SoftMaxForwardGmem/cunn_SoftMaxForwardFast are not modelled`,
    );
  }
  if (major === 2 && minor >= 1 && minor <= 3) return SOFTMAX_STACK_TORCH_2_1;
  if (major === 2 && minor >= 4 && minor <= 6) return SOFTMAX_STACK_TORCH_2_4;
  if (major === 2 && minor >= 7 && minor <= 10) return SOFTMAX_STACK_TORCH_2_7;
  throw new RangeError(
    `Cannot pick the softmax kernels of torch '${version}': known releases are 2.1 to 2.10`,
  );
}
