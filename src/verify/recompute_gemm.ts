/**
 * The GEMM branch of the per-record pipeline: the record's own contradictions, its kernel (recipe
 * or catalog lookup) and support (launch, accumulator, datapath; its sharding is refused with every
 * record's parallelism checks, `_checkedParallel`), its tensors by digest, and the recipe run on
 * them.
 *
 * @module
 */
import type { AssetStore, BlobStore } from "../assets/mod.ts";
import { type ComponentEvidence, findDatapath, type GpuProfile } from "../hardware/mod.ts";
import {
  type GemmRecipe,
  type KWalker,
  lookupRecipe,
  recipeFit,
  recipeInstructionMismatch,
  runGemmRecipe,
  type StackProfile,
} from "../kernels/mod.ts";
import type { ClaimPredicate, GemmWorkload } from "../claims/mod.ts";
import { _checkCost, _checkSize, _refusable, _sayRefusal, _Stop } from "./_stop.ts";
import { recordProducts } from "./record_products.ts";
import { _held, _tensors16 } from "./_unheld_tensor.ts";
import { _checkOutputDescription } from "./_output_description.ts";
import type { _TensorsInput } from "./_tensors_input.ts";
import { _checkGemmLaunch } from "./_gemm_launch.ts";
import { _resolveKernel } from "./resolve_kernel.ts";
import { _datapathEvidence, _unstatedInstructionConflict } from "./_record_evidence.ts";

/** What the GEMM branch needs. */
export interface GemmRecomputeInput {
  readonly store: AssetStore;
  readonly walker: KWalker;
  readonly predicate: ClaimPredicate;
  readonly workload: GemmWorkload;
  readonly profile: GpuProfile;
  readonly stack: StackProfile;
  /** Records a passed pipeline step. */
  readonly step: (name: string, detail: string) => void;
  /** The branch's refusals (`_TensorsInput.refusals`): the first is said before the run. */
  readonly refusals: readonly string[];
}

/** A GEMM record's committed tensors, read and held to its shapes. */
export interface GemmTensors {
  /** The input x [M, K]. */
  readonly a: Uint16Array;
  /** The weights W [N, K]. */
  readonly b: Uint16Array;
}

/**
 * The checks of a GEMM record that need only the record and the blob store, in order: its output
 * description and its batch against its rows (FAIL), the verifier's size limits and its budget
 * (refusals that wait in `refusals`: bounds on memory and time, they hide none of the record's
 * FAILs), then its input and weights by digest (a passed `tensors` step): read into memory where
 * nothing is refused (a sharded record's refusal waits there already: `_shardedRefusal`), else
 * checked a chunk at a time and not held (`_checkTensorUnheld`). Run before the record's profile,
 * stack or kernel is loaded: none of those, known or not, hides these.
 *
 * @param blobs the blob store
 * @param o the record's predicate and workload, the step recorder, the audit's budget a record
 *   and the branch's refusals
 * @returns the input and the weights, or null where a refusal waits (they are not held)
 * @throws {_Stop} FAIL (the record contradicts itself or its tensors' lengths) or FAIL with
 *   `obligation: "committed-input"` (a tensor missing, mismatching or unreadable)
 */
export async function _gemmTensors(
  blobs: BlobStore,
  o: _TensorsInput<GemmWorkload>,
): Promise<GemmTensors | null> {
  const { predicate: p, workload: w } = o;
  _checkOutputDescription(p.fingerprint, {
    kind: w.kind,
    dtype: w.out,
    shape: [w.m, w.n],
    what: `the ${w.m}x${w.n}x${w.k} GEMM (${w.out} out)`,
  });
  if (p.batch.size !== w.m) {
    throw new _Stop(
      "FAIL",
      `record contradicts itself: batch size ${p.batch.size} but ${w.m} input rows`,
    );
  }
  // The limits bound the recomputation's memory and the budget its time: each refusal waits for
  // the record's contradictions, and a tensor over its limit is never read into memory.
  _refusable(o.refusals, () => _checkSize([w.m, w.n], "output"));
  _refusable(o.refusals, () => _checkSize(w.input.shape, "input"));
  _refusable(o.refusals, () => _checkSize(w.weights.shape, "weights"));
  _refusable(o.refusals, () =>
    _checkCost(recordProducts(w) ?? 0, {
      what: `the ${w.m}x${w.n}x${w.k} GEMM`,
      budget: o.maxRecordProducts,
    }));
  const input = { digest: w.input.sha256, shape: w.input.shape, what: "input" };
  const weights = { digest: w.weights.sha256, shape: w.weights.shape, what: "weights" };
  const { held, checked } = await _tensors16(blobs, [input, weights], o.refusals.length > 0);
  if (checked) o.step("tensors", `input [${w.m},${w.k}] and weights [${w.n},${w.k}] by digest`);
  return held === null ? null : { a: held[0]!, b: held[1]! };
}

/**
 * Recomputes a GEMM record's output from its tensors (`_gemmTensors`) and its parallelism
 * (`_checkedParallel`), whose checks came first (their refusals, sharding among them, wait in
 * `refusals`): its kernel (a passed `kernel` step), what is not modelled (the stack's launch, an
 * fp16 accumulator, the datapath: a passed `support` step), the first of the branch's refusals
 * (the budget, sharding), then the recipe run.
 *
 * @param input assets, walker, the record's predicate and workload, profile, stack, tensors, the
 *   step recorder and the branch's refusals
 * @returns the output and the evidence it rests on
 * @throws {_Stop} NOT_VERIFIED (unmodelled configuration, a waiting refusal) or FAIL (a kernel
 *   its stack does not run)
 */
export async function _recomputeGemm(
  input: GemmRecomputeInput & { readonly tensors: GemmTensors | null },
): Promise<{ out: Uint16Array; evidence: ComponentEvidence[] }> {
  const { workload: w, profile, stack, step } = input;
  const kernel = await _resolveKernel(input.store, {
    kernel: w.kernel,
    stackId: stack.id,
    kernelSource: stack.gemm.kernelSource,
    profileId: profile.id,
  });
  let recipe: GemmRecipe;
  let measured = false;
  if ("recipe" in kernel) {
    recipe = kernel.recipe;
    // The record's descriptor meets its K here, before any walk (a catalog's lookup does this
    // itself): one that would walk the output thousands of times for nothing is not emulated.
    const fit = recipeFit(recipe, w.k);
    if (!fit.fits) throw new _Stop("NOT_VERIFIED", fit.reason);
  } else {
    const hit = lookupRecipe(kernel.catalog, {
      m: w.m,
      n: w.n,
      k: w.k,
      dtype: w.dtype,
      out: w.out,
      layout: w.layout,
    });
    if (!hit.covered) throw new _Stop("NOT_VERIFIED", hit.reason);
    recipe = hit.recipe;
    measured = hit.entry.verified === true;
  }
  step("kernel", `${recipe.family} ${JSON.stringify(recipe)}`);
  _checkGemmLaunch(stack, w.m);
  if (w.accumulator === "fp16") {
    throw new _Stop(
      "NOT_VERIFIED",
      "an fp16 accumulator (cuBLAS CUBLAS_COMPUTE_16F) is not modelled for GEMM records",
    );
  }
  const dp = findDatapath(profile, { input: w.dtype, output: "fp32" });
  if (dp === undefined) {
    throw new _Stop("NOT_VERIFIED", `profile '${profile.id}' has no ${w.dtype}->fp32 mma datapath`);
  }
  const mismatch = recipeInstructionMismatch(recipe, {
    architecture: profile.architecture,
    datapath: dp,
  });
  if (mismatch !== null) throw new _Stop("NOT_VERIFIED", mismatch);
  // Only a K-walk recipe names its instruction (checked just above).
  const instructionStated = recipe.family === "kwalk";
  const conflict = _unstatedInstructionConflict(profile, dp, { instructionStated });
  if (conflict !== null) throw new _Stop("NOT_VERIFIED", conflict);
  step("support", `${dp.id}: k=${dp.k} L=${dp.blockSize} F=${dp.fracBits}`);
  _sayRefusal(input.refusals);
  const { a, b } = _held(input.tensors);
  const r = await runGemmRecipe(recipe, {
    dp,
    walker: input.walker,
    a,
    b,
    m: w.m,
    n: w.n,
    k: w.k,
    outFormat: w.out,
  });
  const kernelName = "recipe" in kernel
    ? `recipe ${recipe.family}`
    : `catalog ${kernel.catalog.id}`;
  return {
    out: r.out,
    evidence: [..._datapathEvidence(profile, dp, { instructionStated }), {
      // A `verified` catalog entry is a recipe the seed study found bit-exact against the real
      // library on that GPU; this emulator's recipe code follows it, and no GPU output of the
      // recipe is bundled to compare with: derived from source, the study named.
      component: `GEMM kernel (${kernelName}${
        measured ? "; recipe identified on the GPU by the seed study" : ""
      })`,
      level: "derived-from-source",
    }],
  };
}
