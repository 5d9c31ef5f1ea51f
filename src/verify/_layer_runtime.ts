/**
 * What the block and model-forward branches of the pipeline share: the record's GEMM kernel
 * resolved against its stack, the parallelism check, and the runtime the model code runs on.
 *
 * @module
 */
import type { AssetStore } from "../assets/mod.ts";
import type { ClaimPredicate, KernelRef } from "../claims/mod.ts";
import { type ComponentEvidence, findDatapath, type GpuProfile } from "../hardware/mod.ts";
import {
  type Fa2Forward,
  type KWalker,
  recipeInstructionMismatch,
  type StackProfile,
} from "../kernels/mod.ts";
import type { BlockRuntime } from "../model/mod.ts";
import { modelRuntime } from "../resolve/mod.ts";
import { _Stop } from "./_stop.ts";
import { _resolveKernel } from "./resolve_kernel.ts";
import {
  _datapathEvidence,
  _trackedDispatch,
  _unstatedInstructionConflict,
} from "./_record_evidence.ts";

/**
 * Resolves the kernel (a passed `kernel` step), refuses sharded runs and builds the runtime.
 *
 * @param input assets, walker, attention runner, the record's predicate, kernel, profile, stack
 * @param what what is not modelled when sharded (e.g. `blocks`), for the reason; null when the
 *   branch models parallelism itself (`_claimedParallel`)
 * @returns the runtime (its dispatch noting which kernels it hands out) and the evidence of its
 *   datapath and kernels
 * @throws {_Stop} FAIL or NOT_VERIFIED from the kernel resolution; NOT_VERIFIED when tp, pp or
 *   ep is above 1 and `what` is given
 */
export async function _layerRuntime(
  input: {
    readonly store: AssetStore;
    readonly walker: KWalker;
    readonly attention?: Fa2Forward | undefined;
    readonly predicate: ClaimPredicate;
    readonly kernel: KernelRef;
    readonly profile: GpuProfile;
    readonly stack: StackProfile;
    readonly step: (name: string, detail: string) => void;
  },
  what: string | null,
): Promise<{ runtime: BlockRuntime; evidence: () => ComponentEvidence[] }> {
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
  const bf16 = findDatapath(profile, { input: "bf16", output: "fp32" });
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
  const par = input.predicate.parallelism;
  if (what !== null && (par.tp !== 1 || par.pp !== 1 || par.ep !== 1)) {
    throw new _Stop(
      "NOT_VERIFIED",
      `parallelism tp=${par.tp} pp=${par.pp} ep=${par.ep}: sharded ${what} are not modelled`,
    );
  }
  const runtime = await modelRuntime(input.store, {
    profile,
    stack,
    kernel,
    walker: input.walker,
    attention: input.attention,
  });
  const tracked = _trackedDispatch(
    runtime,
    "recipe" in kernel ? `recipe ${kernel.recipe.family}` : `catalog ${kernel.catalog.id}`,
  );
  const dp = bf16;
  return {
    runtime: tracked.runtime,
    evidence: () => [
      ...(dp === undefined ? [] : _datapathEvidence(profile, dp, { instructionStated })),
      tracked.evidence(),
    ],
  };
}
