/**
 * Shared pieces of the model forward: the "cannot be emulated" signal, the projection helper
 * that asks the runtime's dispatch for each GEMM's kernel (a shape the dispatch does not cover
 * ends the forward with the reason, never a fallback kernel).
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import { type GemmResult, runGemmRecipe } from "../../kernels/mod.ts";
import type { BlockRuntime, GemmCall } from "../blocks/mod.ts";

/** Ends a forward whose configuration cannot be emulated; carries the reason. */
export class ForwardUnsupported extends Error {
  /**
   * Creates the error.
   *
   * @param reason why (one line)
   */
  constructor(
    /** Why the configuration cannot be emulated (one line). */
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * Runs y = x W^T (BF16 out) with the kernel the runtime dispatches for the call's shape.
 *
 * @param x activations [call.m, call.k], BF16 patterns
 * @param o runtime, datapath, the call and the weight [call.n, call.k]
 * @returns the GEMM result
 * @throws {ForwardUnsupported} when the dispatch does not cover the shape
 * @example
 * ```ts ignore
 * const q = await project(h, { runtime, datapath, call: { name: "q_proj", m, n, k }, weight });
 * ```
 */
export async function project(
  x: Uint16Array,
  o: {
    readonly runtime: BlockRuntime;
    readonly datapath: Datapath;
    readonly call: GemmCall;
    readonly weight: Uint16Array;
  },
): Promise<GemmResult> {
  const { call } = o;
  const hit = o.runtime.gemm(call);
  if (!hit.covered) throw new ForwardUnsupported(hit.reason);
  return await runGemmRecipe(hit.recipe, {
    dp: o.datapath,
    walker: o.runtime.walker,
    a: x,
    b: o.weight,
    m: call.m,
    n: call.n,
    k: call.k,
    outFormat: "bf16",
  });
}
