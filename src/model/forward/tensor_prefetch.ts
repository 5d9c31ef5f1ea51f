/**
 * Reads a checkpoint's tensors ahead of their use: a forward asks for the next layer's weights
 * while it computes this one, so the reads (asynchronous I/O) overlap the arithmetic instead of
 * stalling it between layers. Each tensor is read at most once per `ahead`, and forgotten when
 * taken, so at most the tensors asked ahead and not yet taken stay in memory.
 *
 * @module
 */
import { type DecoderCheckpoint, isMoeLayer, layerPrefix } from "../checkpoint/mod.ts";

/** Tensor reads started ahead of use. */
export interface TensorPrefetch {
  /** Starts reading each named tensor not already started (in order). */
  ahead(names: readonly string[]): void;
  /**
   * The named tensor: the read started ahead, or one started now; forgotten once taken.
   *
   * @throws whatever the read rejects with (a read started ahead and never taken rejects nothing)
   */
  take(name: string): Promise<Uint16Array>;
}

/**
 * Wraps a tensor reader.
 *
 * @param read reads one tensor by name (e.g. `DecoderCheckpoint.tensor`)
 * @returns the prefetcher
 * @example
 * ```ts
 * import { tensorPrefetch } from "./tensor_prefetch.ts";
 * const reads: string[] = [];
 * const p = tensorPrefetch((n) => (reads.push(n), Promise.resolve(new Uint16Array(1))));
 * p.ahead(["a", "b"]);
 * await p.take("a");
 * await p.take("a"); // taken before: read again
 * if (reads.join() !== "a,b,a") throw new Error();
 * ```
 */
export function tensorPrefetch(read: (name: string) => Promise<Uint16Array>): TensorPrefetch {
  const started = new Map<string, Promise<Uint16Array>>();
  return {
    ahead(names) {
      for (const name of names) {
        if (started.has(name)) continue;
        const p = read(name);
        p.catch(() => {}); // reported when taken; a read never taken must not go unhandled
        started.set(name, p);
      }
    },
    take(name) {
      const p = started.get(name);
      started.delete(name);
      return p ?? read(name);
    },
  };
}

/** Tensors of an attention block, in the order the forwards use them. */
const _ATTENTION_TENSORS = [
  "input_layernorm.weight",
  "self_attn.q_proj.weight",
  "self_attn.k_proj.weight",
  "self_attn.v_proj.weight",
  "self_attn.o_proj.weight",
  "self_attn.q_norm.weight",
  "self_attn.k_norm.weight",
];
/** Tensors of a dense layer. */
const _DENSE_LAYER_TENSORS = [
  ..._ATTENTION_TENSORS,
  "post_attention_layernorm.weight",
  "mlp.gate_proj.weight",
  "mlp.up_proj.weight",
  "mlp.down_proj.weight",
];
/** Tensors of a MoE layer read ahead (the experts are read when routed to). */
const _MOE_LAYER_TENSORS = [
  ..._ATTENTION_TENSORS,
  "post_attention_layernorm.weight",
  "mlp.gate.weight",
];

/** One layer's weights: read them (`t`, by the name after the layer prefix), then `done()`. */
export interface LayerWeights {
  /** Reads a tensor of this layer (e.g. `"mlp.up_proj.weight"`). */
  t(name: string): Promise<Uint16Array>;
  /** Hands every tensor this layer read to `release` (call once the layer's work has settled). */
  done(): void;
}

/**
 * Layer-by-layer weights of a forward: each layer's and the next layer's tensors are read while
 * the layer computes (MoE experts when routed to), and a finished layer's tensors go to
 * `release` (e.g. to recycle their buffers).
 *
 * @param ckpt the checkpoint (its config and `tensor`)
 * @param release called with each tensor of a finished layer (optional)
 * @returns the weights of a layer, by layer index (visit the layers in order)
 * @example
 * ```ts ignore
 * const weights = layerWeights(ckpt);
 * const w = weights(0);
 * const q = await w.t("self_attn.q_proj.weight");
 * w.done();
 * ```
 */
export function layerWeights(
  ckpt: Pick<DecoderCheckpoint, "config" | "tensor">,
  release?: (tensor: Uint16Array) => void,
): (layer: number) => LayerWeights {
  const c = ckpt.config;
  const prefetch = tensorPrefetch((name) => ckpt.tensor(name));
  const names = (layer: number) =>
    (isMoeLayer(c, layer) ? _MOE_LAYER_TENSORS : _DENSE_LAYER_TENSORS).map((n) =>
      `${layerPrefix(layer)}${n}`
    );
  return (layer) => {
    prefetch.ahead(names(layer));
    if (layer + 1 < c.layers) prefetch.ahead(names(layer + 1));
    const taken: Uint16Array[] = [];
    return {
      t: async (name) => {
        const x = await prefetch.take(`${layerPrefix(layer)}${name}`);
        taken.push(x);
        return x;
      },
      done: () => {
        if (release !== undefined) { for (const x of taken) release(x); }
      },
    };
  };
}
