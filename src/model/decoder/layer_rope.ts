/**
 * RoPE of a forward's rows as its stack applies it: HF's tables from the CPU-built `inv_freq`
 * (`modelInvFreq`, `ropeTables`, `applyRope`), or vLLM's BF16 cos/sin cache built on the GPU
 * (`vllmRopeInvFreq` with libdevice `powf`, `vllmCosSinCache`) applied by its CUDA kernel
 * (`vllmRotaryEmbedding`, GPT-NeoX pairs). One object per forward: the drivers build it from
 * the rows' positions, the layer applies it to q and k.
 *
 * @module
 */
import {
  applyRope,
  type LayerKernels,
  type Mufu,
  ropeTables,
  vllmCosSinCache,
  vllmRopeInvFreq,
  vllmRotaryEmbedding,
} from "../../kernels/mod.ts";
import type { DecoderConfig } from "../checkpoint/mod.ts";
import { ForwardUnsupported, modelInvFreq } from "./forward_support.ts";

/** Rotates BF16 [rows, heads, headDim] q or k, row i at the forward's i-th position. */
export type LayerRope = (x: Uint16Array, heads: number) => Uint16Array;

/**
 * Builds the RoPE of a forward's rows.
 *
 * @param kernels the stack's layer kernels (`rope`: `hf` or `vllm-cuda`)
 * @param o the config, the rows' positions, the recorded `inv_freq` patterns if any, the MUFU
 *   model (vLLM's `powf`, `cosf`, `sinf`)
 * @returns the rotation
 * @throws {ForwardUnsupported} for vLLM with a RoPE scaling (its scaled embeddings are not
 *   modelled), or as `modelInvFreq`
 * @example
 * ```ts ignore
 * const rope = layerRope(ops.layer, { config, positions, invFreq: undefined, mufu: runtime.sfu });
 * const q = rope(qNormed, heads);
 * ```
 */
export function layerRope(
  kernels: Pick<LayerKernels, "rope">,
  o: {
    readonly config: Pick<DecoderConfig, "headDim" | "ropeTheta" | "ropeScaling">;
    readonly positions: ArrayLike<number>;
    readonly invFreq: Uint32Array | undefined;
    readonly mufu: Mufu;
  },
): LayerRope {
  const c = o.config;
  if (kernels.rope === "hf") {
    const tables = ropeTables(modelInvFreq(o.invFreq, c), Array.from(o.positions));
    return (x, heads) => applyRope(x, { tables, heads });
  }
  if (c.ropeScaling !== undefined && o.invFreq === undefined) {
    throw new ForwardUnsupported(
      "vLLM's scaled rotary embeddings (rope_scaling) are not modelled (only an attention " +
        "block record can carry the model's recorded inv_freq patterns)",
    );
  }
  const inv = o.invFreq === undefined
    ? vllmRopeInvFreq(c.headDim, { base: Number(c.ropeTheta), mufu: o.mufu })
    : modelInvFreq(o.invFreq, c);
  // One cache row per distinct position (the GPU cache has every position; rows are pure).
  const distinct = [...new Set(Array.from(o.positions))].sort((a, b) => a - b);
  const cache = vllmCosSinCache(inv, distinct);
  const index = new Map(distinct.map((p, i) => [p, i]));
  const rows = Array.from(o.positions, (p) => index.get(p)!);
  return (x, heads) => vllmRotaryEmbedding(x, { cache, heads, headSize: c.headDim, rows });
}
