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
 * As the spec states it (ops.md §1.1, gaps.md B.3): CUDA builds of PyTorch >= 2.7 shuffle with
 * decreasing offsets and vectorise at `dim0 >= 128`; PyTorch <= 2.6 and ROCm/fbcode builds shuffle
 * with increasing offsets. The release boundary is the spec's approximate one, not read in
 * PyTorch's source: ops.md says "≥ ~2.7, merged around Oct 2025" (a merge that late would postdate
 * 2.8.0), and gaps.md C.7 notes that the PyTorch version of the GPU-validated runs was never
 * printed. The direction rarely changes an output (a sum of squares differs on some rows, BF16
 * outputs seldom), so a forward's match with the peer does not pin it either. ASSUMED as well:
 * that the vectorisation threshold changed from `> 128` to `>= 128` at the same release as the
 * shuffle direction, and that ROCm/fbcode builds of releases before 2.7 use `> 128`. Verdicts
 * record the version; an explicit stack section, when known, is preferred.
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
