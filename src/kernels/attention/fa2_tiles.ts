/**
 * FlashAttention-2 forward tile sizes (kBlockM query rows x kBlockN keys per CTA) for head
 * dimension 128, from `flash_fwd_launch_template.h` (unchanged v2.3.6 .. v2.8.3; spec
 * `stack_pytorch_hf.md` §3.2, §4.3; `ops.md` §4.3).
 *
 * The choice is kernel data ({@link FA2_HDIM128_TILES}), looked up by the GPU profile's
 * architecture: no architecture is named in code.
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

/** The tile shapes the standard forward kernel launches on one architecture. */
export interface Fa2TileChoice {
  /** Tiles of the causal launch. */
  readonly causal: Fa2Tiles;
  /** Tiles of the non-causal launch. */
  readonly nonCausal: Fa2Tiles;
}

/** The split-KV kernel (`compute_attn_1rowblock_splitkv`), hdim 128: 64 x 128, 4 warps. */
export const FA2_SPLIT_TILES: Fa2Tiles = Object.freeze({ blockM: 64, blockN: 128 });

const _SQUARE: Fa2Tiles = Object.freeze({ blockM: 128, blockN: 64 });
const _SM8X: Fa2TileChoice = Object.freeze({
  causal: Object.freeze({ blockM: 64, blockN: 64 }),
  nonCausal: Object.freeze({ blockM: 128, blockN: 32 }),
});

/**
 * Standard forward kernel tiles for hdim 128 per characterised architecture. The launch template
 * tests `is_sm8x = cc_major == 8 && cc_minor > 0`: sm 8.6/8.9 take 64 x 64 causal ("square is
 * fastest") and 128 x 32 non-causal (48 KB shared memory, two CTAs per SM); sm 8.0 and 9.0 take
 * 128 x 64 for both. Architectures absent here are not characterised.
 */
export const FA2_HDIM128_TILES: Readonly<Partial<Record<Architecture, Fa2TileChoice>>> = Object
  .freeze({
    sm_80: Object.freeze({ causal: _SQUARE, nonCausal: _SQUARE }),
    sm_86: _SM8X,
    sm_89: _SM8X,
    sm_90: Object.freeze({ causal: _SQUARE, nonCausal: _SQUARE }),
  });

/**
 * Tile shape of the standard forward kernel for hdim 128, looked up in
 * {@link FA2_HDIM128_TILES}. Other architectures are not characterised and are refused.
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
  const choice = Object.hasOwn(FA2_HDIM128_TILES, architecture)
    ? FA2_HDIM128_TILES[architecture]
    : undefined;
  if (choice === undefined) {
    const known = Object.keys(FA2_HDIM128_TILES);
    throw new RangeError(
      `Cannot choose FA2 tiles: architecture '${architecture}' is not characterised ` +
        `(expected ${known.slice(0, -1).join(", ")} or ${known.at(-1)})`,
    );
  }
  return options.causal ? choice.causal : choice.nonCausal;
}
