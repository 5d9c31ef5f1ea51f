/**
 * The split-KV launch's head-dimension constants (spec `stack_pytorch_hf.md` §4.3-§4.4): the
 * split kernel's tiles (`run_mha_fwd_splitkv_dispatch`) and the combine kernel's rows per CTA
 * (`run_flash_splitkv_fwd`), both in `csrc/flash_attn/src/flash_fwd_launch_template.h`. The same
 * text at every Dao-AILab/flash-attention tag v2.3.6 .. v2.8.3 (060c918), which PyTorch 2.8.0
 * compiles from its `third_party/flash-attention` submodule: one table for both builds. Derived
 * from source only (no GPU measurement), including hdim 128.
 *
 * @module
 */
import { FA2_HEAD_DIMS, type Fa2HeadDim, type Fa2Tiles, isFa2HeadDim } from "./fa2_tiles.ts";

const _t = (blockM: number, blockN: number): Fa2Tiles => Object.freeze({ blockM, blockN });

/**
 * Split kernel tiles by head dimension: `kBlockM = 64` ("fixed for all head dimensions"),
 * `kBlockN = Headdim <= 64 ? 256 : (Headdim <= 128 ? 128 : 64)`, 4 warps, on every
 * architecture. The split heuristic's `block_n` (`set_params_splitkv`, Dao `flash_api.cpp` and
 * PyTorch's copy) is the same expression of the head size (`fa2NumSplits`).
 */
export const FA2_SPLIT_TILES_BY_HEAD_DIM: Readonly<Record<Fa2HeadDim, Fa2Tiles>> = Object.freeze({
  64: _t(64, 256),
  96: _t(64, 128),
  128: _t(64, 128),
  256: _t(64, 64),
});

/** The split kernel (`compute_attn_1rowblock_splitkv`) at hdim 128: 64 x 128, 4 warps. */
export const FA2_SPLIT_TILES: Fa2Tiles = FA2_SPLIT_TILES_BY_HEAD_DIM[128];

/**
 * Rows per CTA of the combine kernel by head dimension: `kBlockM = kHeadDim % 128 == 0 ? 4 :
 * (kHeadDim % 64 == 0 ? 8 : 16)`. With 128 threads it fixes the combine's lane count per row,
 * `min(128 / kBlockM, kMaxSplits)`, and so the order of its LSE sum (`fa2CombineRow`).
 */
export const FA2_COMBINE_BLOCK_M: Readonly<Record<Fa2HeadDim, number>> = Object.freeze({
  64: 8,
  96: 16,
  128: 4,
  256: 4,
});

/**
 * The split kernel's tiles for a head dimension ({@link FA2_SPLIT_TILES_BY_HEAD_DIM}).
 *
 * @param headDim the head dimension (64, 96, 128 or 256)
 * @returns the tiles
 * @throws {RangeError} for another head dimension
 * @example
 * ```ts
 * import { fa2SplitTiles } from "./fa2_split_tiles.ts";
 * if (fa2SplitTiles(64).blockN !== 256 || fa2SplitTiles(256).blockN !== 64) throw new Error();
 * ```
 */
export function fa2SplitTiles(headDim: number): Fa2Tiles {
  return FA2_SPLIT_TILES_BY_HEAD_DIM[_headDim(headDim, "choose FA2 split tiles")];
}

/**
 * The combine kernel's rows per CTA for a head dimension ({@link FA2_COMBINE_BLOCK_M}).
 *
 * @param headDim the head dimension (64, 96, 128 or 256)
 * @returns kBlockM of `combine_attn_seqk_parallel` (4, 8 or 16)
 * @throws {RangeError} for another head dimension
 * @example
 * ```ts
 * import { fa2CombineBlockM } from "./fa2_split_tiles.ts";
 * if (fa2CombineBlockM(128) !== 4 || fa2CombineBlockM(96) !== 16) throw new Error();
 * ```
 */
export function fa2CombineBlockM(headDim: number): number {
  return FA2_COMBINE_BLOCK_M[_headDim(headDim, "choose the FA2 combine's rows")];
}

function _headDim(d: number, action: string): Fa2HeadDim {
  if (!isFa2HeadDim(d)) {
    throw new RangeError(
      `Cannot ${action}: head dimension ${d} is not modelled (expected ` +
        `${FA2_HEAD_DIMS.slice(0, -1).join(", ")} or ${FA2_HEAD_DIMS.at(-1)})`,
    );
  }
  return d;
}
