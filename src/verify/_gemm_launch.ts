/**
 * Whether a GEMM record's launch is one its stack runs as the record states it: the rows of one
 * launch, `m`, under the stack's operators (`stackOperators`, as the forward reads them). A stack
 * with no operators section (a bare CUTLASS or cuBLAS stack) launches what it is given. Under
 * CUDA graphs vLLM pads every launch but attention to the smallest capture size at least the
 * pass's token count (`vllmPaddedTokens`), so a record of `m` rows below a capture size names a
 * launch the stack never ran; under FULL_AND_PIECEWISE a uniform decode batch replays a full
 * graph, which the forward does not model either, and a GEMM record does not say which pass it
 * belonged to. Layer kernels the forward does not model (vLLM's Inductor path) leave a GEMM
 * record NOT_VERIFIED with the forward's reason.
 *
 * @module
 */
import { stackOperators, type StackProfile, vllmPaddedTokens } from "../kernels/mod.ts";
import { _Stop } from "./_stop.ts";

/**
 * Refuses (NOT_VERIFIED) a GEMM record whose launch its stack's operators do not run as stated.
 *
 * @param stack the record's stack profile
 * @param m the record's rows (the launch's M)
 * @throws {_Stop} NOT_VERIFIED: layer kernels not modelled, a stack that replays full CUDA
 *   graphs, or `m` that the stack's CUDA graphs pad to another row count
 */
export function _checkGemmLaunch(stack: StackProfile, m: number): void {
  if (stack.operators === undefined) return;
  // No attention: a GEMM runs none, so an unmodelled attention backend does not concern it.
  const support = stackOperators(stack, { driver: "prefill", moe: false, attention: false });
  if (!support.supported) throw new _Stop("NOT_VERIFIED", support.reason);
  const { ops } = support;
  if (ops.fullGraphDecode) {
    throw new _Stop(
      "NOT_VERIFIED",
      `stack '${stack.id}' replays a full CUDA graph for uniform decode batches (cudagraph_mode ` +
        "FULL_AND_PIECEWISE), which is not modelled, and a GEMM record does not say whether its " +
        "launch was one; run with cudagraph_mode PIECEWISE or --enforce-eager",
    );
  }
  if (ops.captureSizes === null) return;
  const padded = vllmPaddedTokens(m, ops.captureSizes);
  if (padded !== m) {
    throw new _Stop(
      "NOT_VERIFIED",
      `stack '${stack.id}' runs a pass of ${m} tokens under piecewise CUDA graphs at the ` +
        `${padded} rows of its capture size, so its GEMMs launch at M=${padded}; a GEMM record ` +
        `states one launch of ${m} rows`,
    );
  }
}
