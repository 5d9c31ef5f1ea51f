/**
 * The parallelism a model record claims, checked against its stack and resolved into the split
 * the forward runs (`TensorParallel`): tensor-parallel size and the recorded all-reduce; pipeline
 * stages move activations between GPUs by copies and do not change bits (a record with pp above
 * 1 is verified as the tensor-parallel pass of each stage); data-parallel replicas each run their
 * own passes; expert parallelism is refused with the layout's reason.
 *
 * @module
 */
import type { ClaimPredicate } from "../claims/mod.ts";
import {
  type ClaimedAllReduce,
  claimedAllReduceUnsupported,
  parseClaimedAllReduce,
  type StackProfile,
  tensorParallelLayout,
} from "../kernels/mod.ts";
import type { TensorParallel } from "../model/mod.ts";
import { _Stop } from "./_stop.ts";

/** At TP = 2 every implementation adds once and rounds once: any stands for the one that ran. */
const _TP2_DEFAULT: ClaimedAllReduce = Object.freeze({ kind: "torch-symm-mem-two-shot" });

/**
 * Resolves a record's parallelism.
 *
 * @param p the record's predicate
 * @param stack the record's stack
 * @returns the split, or undefined for a one-GPU pass (tp = 1)
 * @throws {_Stop} FAIL when the record contradicts itself or its stack (GPU count below tp x pp,
 *   an all-reduce with tp = 1, an invalid all-reduce, one the stack cannot run, none named at
 *   tp above 2); NOT_VERIFIED for what is not modelled (no layout in the stack, expert
 *   parallelism, an unmodelled all-reduce)
 */
export function _claimedParallel(
  p: ClaimPredicate,
  stack: StackProfile,
): TensorParallel | undefined {
  const par = p.parallelism;
  if (p.hardware.count < par.tp * par.pp) {
    throw new _Stop(
      "FAIL",
      `record contradicts itself: tp=${par.tp} x pp=${par.pp} ranks on ${p.hardware.count} GPU(s)`,
    );
  }
  if (par.tp === 1) {
    if (par.ep !== 1) {
      throw new _Stop("NOT_VERIFIED", `expert parallelism (ep=${par.ep}) is not modelled`);
    }
    return undefined;
  }
  const id = stack.operators?.tensorParallel;
  if (id === undefined) {
    throw new _Stop(
      "NOT_VERIFIED",
      `stack '${stack.id}' declares no tensor-parallel layout: tp=${par.tp} is not modelled for it`,
    );
  }
  const layout = tensorParallelLayout(id);
  if (par.ep !== 1) {
    throw new _Stop(
      "NOT_VERIFIED",
      `ep=${par.ep}: ${layout.expertParallel ?? "expert parallelism is not modelled"}`,
    );
  }
  let allReduce: ClaimedAllReduce;
  if (par.allReduce === undefined) {
    if (par.tp !== 2) {
      throw new _Stop(
        "FAIL",
        `record claims tp=${par.tp} and names no all-reduce (only at tp=2 do all agree)`,
      );
    }
    allReduce = _TP2_DEFAULT;
  } else {
    try {
      allReduce = parseClaimedAllReduce(par.allReduce, par.tp);
    } catch (e) {
      throw new _Stop("FAIL", `record's all-reduce is invalid: ${(e as Error).message}`);
    }
    const why = claimedAllReduceUnsupported(allReduce);
    if (why !== null) throw new _Stop("NOT_VERIFIED", why);
    if (!(layout.allReduce as readonly string[]).includes(allReduce.kind)) {
      throw new _Stop(
        "FAIL",
        `record contradicts its stack: stack '${stack.id}' (layout '${layout.id}') all-reduces ` +
          `with ${layout.allReduce.join(" or ")}, the record names '${allReduce.kind}'`,
      );
    }
  }
  return { size: par.tp, layout, allReduce };
}
