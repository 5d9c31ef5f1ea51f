/**
 * Maps a recorded PyTorch version and build platform to the {@link ReduceStack} facts of the spec.
 *
 * @module
 */
import {
  REDUCE_STACK_CUDA_LEGACY,
  REDUCE_STACK_CUDA_RECENT,
  REDUCE_STACK_ROCM_RECENT,
  type ReduceStack,
} from "./reduce_stack.ts";
import { parseTorchVersion } from "../torch_version.ts";

/** Options of {@link reduceStackForTorch}. */
export interface ReduceStackForTorchOptions {
  /** Build flavour: `cuda` (default), `rocm`, or `fbcode` (internal Meta builds). */
  readonly platform?: "cuda" | "rocm" | "fbcode";
}

/**
 * Picks the reduce topology for a `torch.__version__` string.
 *
 * Pinned by the spec (ops.md §1.1, gaps.md B.3/C.7): CUDA builds of PyTorch >= 2.7 shuffle with
 * decreasing offsets and vectorise at `dim0 >= 128`; PyTorch <= 2.6 and ROCm/fbcode builds shuffle
 * with increasing offsets. ASSUMED (not pinned): that the vectorisation threshold changed from
 * `> 128` to `>= 128` at the same release as the shuffle direction, and that ROCm/fbcode builds of
 * releases before 2.7 use `> 128`. The spec itself calls the 2.7 boundary approximate ("~2.7"),
 * so verdicts should record the version and prefer an explicit stack section when known.
 *
 * @param version `torch.__version__`, e.g. `"2.9.1+cu128"`
 * @param options the build platform
 * @returns a frozen preset
 * @throws {SyntaxError} when the version has no `major.minor` prefix
 * @example
 * ```ts
 * import { reduceStackForTorch } from "./reduce_stack_for_torch.ts";
 * if (reduceStackForTorch("2.9.1+cu128").warpShuffle !== "decreasing") throw new Error();
 * if (reduceStackForTorch("2.5.1").vectorizeWhen !== ">") throw new Error();
 * if (reduceStackForTorch("2.9.0", { platform: "rocm" }).warpShuffle !== "increasing") {
 *   throw new Error();
 * }
 * ```
 */
export function reduceStackForTorch(
  version: string,
  options: ReduceStackForTorchOptions = {},
): ReduceStack {
  const { major, minor } = parseTorchVersion(version);
  const recent = major > 2 || (major === 2 && minor >= 7);
  if (!recent) return REDUCE_STACK_CUDA_LEGACY;
  const platform = options.platform ?? "cuda";
  return platform === "cuda" ? REDUCE_STACK_CUDA_RECENT : REDUCE_STACK_ROCM_RECENT;
}
