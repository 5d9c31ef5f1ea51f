/**
 * What the block, model-forward and sequence branches of the pipeline share: the record's GEMM
 * kernel resolved against its stack, and the runtime the model code runs on (each branch checks
 * its parallelism with `_checkedParallel`). What of the kernel is not modelled waits in the
 * branch's refusals (`_refusable`), said after the record's own contradictions: an unknown catalog
 * never hides a FAIL.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { KernelRef } from "../claims/mod.ts";
import {
  type ComponentEvidence,
  findDatapath,
  type GpuProfile,
  type ProfileDatapath,
} from "../hardware/mod.ts";
import {
  type Fa2Forward,
  type KWalker,
  recipeInstructionMismatch,
  type StackProfile,
} from "../kernels/mod.ts";
import type { BlockRuntime } from "../model/mod.ts";
import { modelRuntime } from "../resolve/mod.ts";
import { _refusableAsync, _REFUSED, _Stop } from "./_stop.ts";
import { _resolveKernel, type ResolvedKernel } from "./resolve_kernel.ts";
import {
  _datapathEvidence,
  _trackedDispatch,
  _unstatedInstructionConflict,
} from "./_record_evidence.ts";

/** What the branch's record and context say of its layers' kernels. */
interface _LayerInput {
  readonly store: AssetStore;
  readonly walker: KWalker;
  readonly attention?: Fa2Forward | undefined;
  readonly kernel: KernelRef;
  readonly profile: GpuProfile;
  readonly stack: StackProfile;
  readonly step: (name: string, detail: string) => void;
  /**
   * The branch's reasons not modelled (`_refusable`), which the kernel's joins; absent, it is said
   * at once (a branch whose contradictions are all checked before).
   */
  readonly refusals?: string[];
}

/**
 * Resolves the kernel (a passed `kernel` step) and builds the runtime. A kernel not modelled (an
 * unknown, foreign or differently hashed catalog, an invalid recipe, a recipe's instruction the
 * GPU lacks, an unstated instruction the GPU's profile leaves open) is pushed to `refusals`; the
 * runtime of a refused kernel covers no GEMM (its dispatch says why), so that the branch checks
 * the record against its history and checkpoint and then refuses it, recomputing nothing. Without
 * `refusals`, it is said at once.
 *
 * @param input assets, walker, attention runner, the record's kernel, profile and stack, and the
 *   branch's refusals, if it defers them
 * @returns the runtime (its dispatch noting which kernels it hands out) and the evidence of its
 *   datapath and kernels
 * @throws {_Stop} FAIL when the record's kernel contradicts its stack (a recipe where the stack
 *   dispatches through a catalog, or the other way round); without `refusals`, NOT_VERIFIED for a
 *   kernel not modelled
 */
export async function _layerRuntime(
  input: _LayerInput,
): Promise<{ runtime: BlockRuntime; evidence: () => ComponentEvidence[] }> {
  const { profile, stack, refusals } = input;
  const bf16 = findDatapath(profile, { input: "bf16", output: "fp32" });
  const kernel = refusals === undefined
    ? await _kernel(input, bf16)
    : await _refusableAsync(refusals, () => _kernel(input, bf16));
  // A refused kernel's runtime covers no GEMM: the branch hands its driver the first refusal,
  // which stops it before its first GEMM, and the dispatch would say the same.
  const dispatched = kernel === _REFUSED ? { uncovered: refusals!.at(-1)! } : kernel;
  const runtime = await modelRuntime(input.store, {
    profile,
    stack,
    kernel: dispatched,
    walker: input.walker,
    attention: input.attention,
  });
  if (kernel === _REFUSED) return { runtime, evidence: () => [] };
  const tracked = _trackedDispatch(
    runtime,
    "recipe" in kernel ? `recipe ${kernel.recipe.family}` : `catalog ${kernel.catalog.id}`,
  );
  // Only a K-walk recipe names its instruction (checked in `_kernel`); a catalog's kernels do not.
  const instructionStated = "recipe" in kernel && kernel.recipe.family === "kwalk";
  return {
    runtime: tracked.runtime,
    evidence: () => [
      ...(bf16 === undefined ? [] : _datapathEvidence(profile, bf16, { instructionStated })),
      tracked.evidence(),
    ],
  };
}

/**
 * The record's kernel, resolved against its stack and GPU (a passed `kernel` step).
 *
 * @param input the record's kernel, its stack and profile, the assets and the step recorder
 * @param bf16 the profile's BF16 -> FP32 datapath, if it has one
 * @returns the recipe or the catalog
 * @throws {_Stop} FAIL when the kernel contradicts the stack; NOT_VERIFIED when it is not modelled
 */
async function _kernel(
  input: _LayerInput,
  bf16: ProfileDatapath | undefined,
): Promise<ResolvedKernel> {
  const { profile, stack } = input;
  const kernel = await _resolveKernel(input.store, {
    kernel: input.kernel,
    stackId: stack.id,
    kernelSource: stack.gemm.kernelSource,
    profileId: profile.id,
  });
  input.step(
    "kernel",
    "recipe" in kernel ? JSON.stringify(kernel.recipe) : `catalog ${kernel.catalog.id}`,
  );
  if ("recipe" in kernel && bf16 !== undefined) {
    const mismatch = recipeInstructionMismatch(kernel.recipe, {
      architecture: profile.architecture,
      datapath: bf16,
    });
    if (mismatch !== null) throw new _Stop("NOT_VERIFIED", mismatch);
  }
  // Only a K-walk recipe names its instruction (checked just above); a catalog's kernels do not.
  const instructionStated = "recipe" in kernel && kernel.recipe.family === "kwalk";
  const conflict = bf16 === undefined
    ? null
    : _unstatedInstructionConflict(profile, bf16, { instructionStated });
  if (conflict !== null) throw new _Stop("NOT_VERIFIED", conflict);
  return kernel;
}
