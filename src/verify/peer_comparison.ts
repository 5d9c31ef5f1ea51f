/**
 * The one comparison of this code with the seed paper's GPU-validated emulator (the peer), and
 * the scope in which it vouches for GPU bits: the constants the evidence labels apply
 * (`_record_evidence.ts`) and `docs/support-matrix.md` states (generated from them).
 *
 * The peer was validated on an A100 with Qwen3-4B (hidden size 2560, head dimension 128, RoPE theta
 * 1e6, the GPU's SFU tables; causal prefills of one sequence from position 0, of 32 and 250
 * tokens: spec gaps.md B.5, B.6). This code was compared with the peer once: a whole 28-layer
 * Qwen3-0.6B forward (hidden size 1024, head dimension 128, theta 1e6) on the A100, found
 * bit-identical. The comparison's outputs are not bundled, so no test re-checks it after a code
 * change. A component is labelled `checked-against-peer` only where both runs cover it: the Dao
 * build's standard FlashAttention-2 kernel at head dimension 128 on the A100, for one sequence from
 * position 0 in passes of at most 250 rows. The norms over the hidden size are not: the peer's
 * reduce blocks are PyTorch's at 2560 but not at 1024 (gaps.md B.3), so the 0.6B agreement vouches
 * for no GPU bits there, and at 2560 nothing was compared; a decoder layer and a block's operators,
 * which include them, are derived from source, their component naming the comparison.
 *
 * @example
 * ```ts
 * import { PEER_COMPARISON } from "./peer_comparison.ts";
 * if (PEER_COMPARISON.compared.hidden === PEER_COMPARISON.validated.hidden) throw new Error();
 * ```
 *
 * @module
 */

/** One model run: the model and its hidden size. */
export interface PeerRun {
  /** The model's name, as its publisher writes it. */
  readonly model: string;
  /** Its hidden size (the width of the norms over the hidden size). */
  readonly hidden: number;
}

/** What the comparison and the peer's GPU validation share, and each run's model. */
export interface PeerComparison {
  /** The GPU profile both ran on. */
  readonly profile: string;
  /** The attention backend both ran (the Dao build's FlashAttention-2, its standard kernel). */
  readonly attention: string;
  /** The head dimension both ran. */
  readonly headDim: number;
  /** The RoPE theta both ran (Qwen3's default), as `DecoderConfig.ropeTheta` writes it. */
  readonly ropeTheta: string;
  /** Smallest pass on which the peer's QK-norm reduction tree is PyTorch's (gaps.md B.3). */
  readonly minRows: number;
  /** Longest prefill the peer ran (gaps.md B.5): positions 0..249. */
  readonly maxRows: number;
  /** The run this code was compared with the peer on (one whole forward, not bundled). */
  readonly compared: PeerRun & { readonly layers: number };
  /** The run the seed paper validated the peer on, on the GPU. */
  readonly validated: PeerRun;
}

/** The comparison and the peer's validation (see the module doc). */
export const PEER_COMPARISON: PeerComparison = Object.freeze({
  profile: "a100",
  attention: "fa2-dao-fastmath",
  headDim: 128,
  ropeTheta: "1000000",
  minRows: 16,
  maxRows: 250,
  compared: Object.freeze({ model: "Qwen3-0.6B", hidden: 1024, layers: 28 }),
  validated: Object.freeze({ model: "Qwen3-4B", hidden: 2560 }),
});
