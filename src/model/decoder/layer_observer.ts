/**
 * What the one decoder layer reports when a driver asks for its intermediates: each norm and
 * linear with the kernel's whole result (FP32 stages, the GEMM's pre-epilogue values), and the
 * tensors between them (RoPE'd q and k, the SiLU output, the gate product). Block claims collect
 * them for comparison with a GPU capture; drivers that set no observer keep nothing (no copy).
 *
 * @module
 */
import type { GemmResult, RmsNormResult } from "../../kernels/mod.ts";
import type { ProjectionName } from "./block_runtime.ts";
import type { LayerNormName } from "./layer_calls.ts";

/**
 * Where an intermediate sits: the tensor-parallel rank that computed it (0 on one GPU, and for
 * what every rank computes alike: the layer's RMSNorms), and the activation rows it covers when
 * the rows ran in launches that differ in kernel or norm configuration (undefined: every row,
 * in order).
 */
export interface LayerPlace {
  /** The rank. */
  readonly rank: number;
  /** The activation rows of this part, ascending; undefined when it covers every row. */
  readonly rows: readonly number[] | undefined;
}

/** A layer's intermediate, as the kernels computed it. */
export type LayerIntermediate =
  | LayerPlace & {
    /** An RMSNorm (the input or post-attention norm, or a QK-norm over head vectors). */
    readonly kind: "norm";
    /** Its module. */
    readonly name: LayerNormName;
    /** Output and FP32 per-row stages. */
    readonly result: RmsNormResult;
  }
  | LayerPlace & {
    /** A linear projection. */
    readonly kind: "linear";
    /** Its module. */
    readonly name: ProjectionName;
    /** FP32 values the epilogue rounds (bias included) and the BF16 output. */
    readonly result: GemmResult;
  }
  | {
    /** A tensor between kernels, every row of one rank. */
    readonly kind: "tensor";
    /** `q_rope` / `k_rope` (the attention core's q and k), `act` (`silu(gate)`), `down_input`. */
    readonly name: "q_rope" | "k_rope" | "act" | "down_input";
    /** The rank. */
    readonly rank: number;
    /** BF16 patterns. */
    readonly value: Uint16Array;
  };

/**
 * Receives the layer's intermediates as they are computed (q, k and v may arrive in any order).
 *
 * @param intermediate one intermediate
 */
export type LayerObserver = (intermediate: LayerIntermediate) => void;
