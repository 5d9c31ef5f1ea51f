/**
 * FlashAttention-2 forward tile sizes (kBlockM query rows x kBlockN keys per CTA) for head
 * dimension 128, from `flash_fwd_launch_template.h` (unchanged v2.3.6 .. v2.8.3; spec
 * `stack_pytorch_hf.md` §3.2, §4.3; `ops.md` §4.3).
 *
 * @module
 */
import type { Architecture } from "../../hardware/mod.ts";

/** One kernel's tile shape. */
export interface Fa2Tiles {
  /** Query rows per CTA (kBlockM). */
  readonly blockM: number;
  /** Keys per KV tile (kBlockN); a lane of a quad owns `blockN / 4` columns of a row. */
  readonly blockN: number;
}

/** The split-KV kernel (`compute_attn_1rowblock_splitkv`), hdim 128: 64 x 128, 4 warps. */
export const FA2_SPLIT_TILES: Fa2Tiles = Object.freeze({ blockM: 64, blockN: 128 });

/**
 * Tile shape of the standard forward kernel for hdim 128: sm 8.0 and 9.0 use 128 x 64 for causal
 * and non-causal; sm 8.6/8.9 use 64 x 64 causal and 128 x 32 non-causal. Other architectures
 * are not characterised and are refused.
 *
 * @param architecture the GPU profile's architecture (e.g. `sm_80`)
 * @param options head dimension (only 128) and whether the mask is causal
 * @returns the tile shape
 * @throws {RangeError} for another head dimension or an uncharacterised architecture
 * @example
 * ```ts
 * import { fa2Tiles } from "./fa2_tiles.ts";
 * const t = fa2Tiles("sm_90", { headDim: 128, causal: true });
 * if (t.blockM !== 128 || t.blockN !== 64) throw new Error();
 * if (fa2Tiles("sm_89", { headDim: 128, causal: false }).blockN !== 32) throw new Error();
 * ```
 */
export function fa2Tiles(
  architecture: Architecture,
  options: { readonly headDim: number; readonly causal: boolean },
): Fa2Tiles {
  if (options.headDim !== 128) {
    throw new RangeError(
      `Cannot choose FA2 tiles: head dimension ${options.headDim} is not modelled (expected 128)`,
    );
  }
  if (architecture === "sm_80" || architecture === "sm_90") {
    return Object.freeze({ blockM: 128, blockN: 64 });
  }
  if (architecture === "sm_86" || architecture === "sm_89") {
    return Object.freeze(options.causal ? { blockM: 64, blockN: 64 } : { blockM: 128, blockN: 32 });
  }
  throw new RangeError(
    `Cannot choose FA2 tiles: architecture '${architecture}' is not characterised ` +
      `(expected sm_80, sm_86, sm_89 or sm_90)`,
  );
}
