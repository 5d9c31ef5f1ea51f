/**
 * Shared pieces of the model forward: the "cannot be emulated" signal, the projection helper
 * that asks the runtime's dispatch for each GEMM's kernel (a shape the dispatch does not cover
 * ends the forward with the reason, never a fallback kernel).
 *
 * @module
 */
import type { Datapath } from "../../hardware/mod.ts";
import {
  type GemmResult,
  ropeInvFreq,
  ropeInvFreqGap,
  runGemmRecipe,
  scaleInvFreq,
} from "../../kernels/mod.ts";
import type { DecoderConfig } from "../checkpoint/mod.ts";
import type { BlockRuntime, GemmCall } from "./block_runtime.ts";

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
    /**
     * Rows of x computed here when they are only some of the call's `m` (one sequence of a
     * serving pass): the kernel is the one dispatched for `m`, and rows never mix in a GEMM
     * (every recipe walks K per output element), so the computed rows are those of the full
     * call. Default `call.m`.
     */
    readonly rows?: number;
  },
): Promise<GemmResult> {
  const { call } = o;
  const rows = o.rows ?? call.m;
  if (!(Number.isSafeInteger(rows) && rows >= 1 && rows <= call.m)) {
    throw new RangeError(`Cannot run ${call.name}: ${rows} rows of a call of ${call.m}`);
  }
  const hit = o.runtime.gemm(call);
  if (!hit.covered) throw new ForwardUnsupported(hit.reason);
  return await runGemmRecipe(hit.recipe, {
    dp: o.datapath,
    walker: o.runtime.walker,
    a: x,
    b: o.weight,
    m: rows,
    n: call.n,
    k: call.k,
    outFormat: "bf16",
  });
}

/**
 * The RoPE inverse frequencies of a forward: the model's recorded FP32 patterns (HF's `inv_freq`
 * buffer, scaling included), or computed from the config: the default frequencies from
 * `rope_theta`, when that computation is unambiguous, then the config's scaling (`linear`,
 * `llama3`) as HF applies it at load.
 *
 * @param given recorded patterns (headDim / 2 of them), if any
 * @param config the head dimension, theta and scaling
 * @returns the patterns
 * @throws {RangeError} when the given patterns have the wrong length
 * @throws {ForwardUnsupported} when a head dimension leaves entries to the host's scalar glibc
 *   `powf`, which is not emulated (`ropeInvFreq`)
 * @example
 * ```ts
 * import { modelInvFreq } from "./forward_support.ts";
 * if (modelInvFreq(undefined, { headDim: 128, ropeTheta: "1000000" })[0] !== 0x3f800000) {
 *   throw new Error(); // theta^0
 * }
 * ```
 */
export function modelInvFreq(
  given: Uint32Array | undefined,
  config: Pick<DecoderConfig, "headDim" | "ropeTheta" | "ropeScaling">,
): Uint32Array {
  const d = config.headDim;
  if (given !== undefined) {
    if (given.length !== d / 2) {
      throw new RangeError(`Cannot run forward: inv_freq must hold ${d / 2} FP32 patterns`);
    }
    return given.slice();
  }
  const gap = ropeInvFreqGap(d);
  if (gap !== null) {
    throw new ForwardUnsupported(
      `Cannot compute inv_freq: ${gap} (only an attention block record can carry recorded ` +
        "inv_freq patterns)",
    );
  }
  const base = ropeInvFreq(d, { theta: Number(config.ropeTheta) });
  return config.ropeScaling === undefined ? base : scaleInvFreq(base, config.ropeScaling);
}
