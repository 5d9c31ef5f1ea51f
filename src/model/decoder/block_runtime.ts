/**
 * What the one decoder layer, and every driver that runs it (prefill, serving replay, block
 * claims), needs to know about how it ran: the GPU profile, the software stack, which GEMM
 * kernel ran each projection, the K-walk implementation and the SFU model. Pure data and
 * functions; assets are loaded and hash-checked by the caller.
 *
 * @module
 */
import type { GpuProfile, Sfu } from "../../hardware/mod.ts";
import {
  type DispatchCatalog,
  type Fa2Forward,
  type GemmRecipe,
  type KWalker,
  lookupRecipe,
  recipeFit,
  type StackProfile,
} from "../../kernels/mod.ts";

/**
 * The GEMMs of a decoder layer: its linear layers, named as in HF checkpoints (`router` is a MoE
 * block's `mlp.gate`), and eager attention's batched products (`attn_scores` = Q K^T per head,
 * `attn_values` = P V); and the model's `lm_head` (logits of the rows that emit a token, N = vocab, K = hidden).
 */
export type ProjectionName =
  | "q_proj"
  | "k_proj"
  | "v_proj"
  | "qkv_proj"
  | "o_proj"
  | "gate_proj"
  | "up_proj"
  | "gate_up_proj"
  | "down_proj"
  | "router"
  | "attn_scores"
  | "attn_values"
  | "lm_head";

/** One projection call: y [m, n] = x [m, k] W^T, BF16 in and out. */
export interface GemmCall {
  /** Which projection. */
  readonly name: ProjectionName;
  /** Rows of x (tokens). */
  readonly m: number;
  /** Output features. */
  readonly n: number;
  /** Input features. */
  readonly k: number;
  /** A linear with a bias (PyTorch's `addmm`, the bias added in the epilogue); default false. */
  readonly bias?: boolean;
}

/** The kernel that ran a projection, or why it is not known. */
export type GemmDispatchResult =
  | {
    readonly covered: true;
    readonly recipe: GemmRecipe;
    /** The catalog entry is `verified`: its recipe was compared with the GPU's library. */
    readonly measured?: boolean;
  }
  | { readonly covered: false; readonly reason: string };

/** Chooses the kernel of each projection call (a dispatch catalog, or one fixed recipe). */
export type GemmDispatch = (call: GemmCall) => GemmDispatchResult;

/** Everything a decoder layer (or a block of one) needs besides its tensors. */
export interface BlockRuntime {
  /** GPU profile: tensor-core datapath and architecture. */
  readonly profile: GpuProfile;
  /** Software stack: SFU policy, torch version, attention backend. */
  readonly stack: StackProfile;
  /** Kernel of each projection. */
  readonly gemm: GemmDispatch;
  /** K-walk implementation (the plain reference or the wasm engine). */
  readonly walker: KWalker;
  /** SFU model (table model or IEEE mode); must be the mode the stack names. */
  readonly sfu: Sfu;
  /**
   * Runs the attention core (e.g. an `Fa2Pool`'s `forward`: heads over threads, tile products on
   * the wasm engine); default `flashAttentionForward` on the calling thread with the plain
   * K-walk. Same bits either way.
   */
  readonly attention?: Fa2Forward | undefined;
}

/**
 * Dispatch through a catalog: BF16 in/out, `tn` layout; shapes it does not cover stay uncovered
 * (never a fallback).
 *
 * @param catalog a validated dispatch catalog
 * @returns the dispatch function
 * @example
 * ```ts
 * import { catalogDispatch } from "./block_runtime.ts";
 * import { parseDispatchCatalog } from "../../kernels/mod.ts";
 * const c = parseDispatchCatalog({
 *   schema: "bitaudit.dispatch-catalog/v1", id: "x", gpu: "a100",
 *   library: { name: "cublas", version: "12" }, dtypes: { a: "bf16", b: "bf16", out: "bf16", compute: "fp32" },
 *   layout: "tn", sources: [], entries: [],
 * });
 * if (catalogDispatch(c)({ name: "q_proj", m: 4, n: 8, k: 8 }).covered) throw new Error();
 * ```
 */
export function catalogDispatch(catalog: DispatchCatalog): GemmDispatch {
  return (call) => {
    const hit = lookupRecipe(catalog, {
      m: call.m,
      n: call.n,
      k: call.k,
      dtype: "bf16",
      out: "bf16",
      layout: "tn",
      bias: call.bias === true,
    });
    return hit.covered
      ? { covered: true, recipe: hit.recipe, measured: hit.entry.verified === true }
      : { covered: false, reason: `${call.name}: ${hit.reason}` };
  };
}

/**
 * Dispatch that runs every projection with one recipe (a CUTLASS build with a fixed kernel). A
 * call whose K the recipe does not fit (`recipeFit`: more warps than a CTA holds, or more M x N
 * walks than the verifier emulates at that K) is not covered, with the reason.
 *
 * @param recipe the recipe
 * @returns the dispatch function
 * @example
 * ```ts
 * import { fixedRecipeDispatch } from "./block_runtime.ts";
 * const d = fixedRecipeDispatch({ family: "single_walk" });
 * const r = d({ name: "up_proj", m: 1, n: 1, k: 1 });
 * if (!r.covered || r.recipe.family !== "single_walk") throw new Error();
 * const split = fixedRecipeDispatch({ family: "serial_split_k", splitK: 64, tileK: 64 });
 * if (split({ name: "up_proj", m: 1, n: 1, k: 16 }).covered) throw new Error(); // 64 walks
 * ```
 */
export function fixedRecipeDispatch(recipe: GemmRecipe): GemmDispatch {
  return (call) => {
    const fit = recipeFit(recipe, call.k);
    return fit.fits
      ? { covered: true, recipe }
      : { covered: false, reason: `${call.name} (K = ${call.k}): ${fit.reason}` };
  };
}
