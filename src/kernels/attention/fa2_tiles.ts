/**
 * FlashAttention-2 standard forward kernel tile sizes (kBlockM query rows x kBlockN keys per CTA)
 * per head dimension and architecture, from the `run_mha_fwd_hdim{64,96,128,256}` launch
 * templates of `csrc/flash_attn/src/flash_fwd_launch_template.h` (spec `stack_pytorch_hf.md`
 * §3.2, §4.3; `ops.md` §4.3).
 *
 * Sources: Dao-AILab/flash-attention tag v2.8.3 (060c918); the non-dropout branches of the four
 * functions are the same text at every tag from v2.3.6 to v2.8.3 (checked tag by tag: only
 * indentation, `dprops` vs `get_compute_capability` and the removed hdim 160/224 specialisations
 * differ). PyTorch 2.8.0's bundled FA2 compiles the same file from its `third_party/flash-attention`
 * submodule (`aten/src/ATen/native/transformers/cuda/flash_attn/CMakeLists.txt`, commit 9d15139;
 * the submodule was bumped to FA 2.7.4 by pytorch/pytorch#148147), so both builds share the
 * table. The exact submodule commit of the 2.8.0 release was not read; any commit in
 * v2.3.6 .. v2.8.3 gives the same table.
 *
 * Evidence: the hdim-128 sm_80 entry is the one the seed study measured its emulator with (FA
 * 2.8.3 on A100, 0 BF16 diffs, `ops.md` §4.3; this code is checked against that emulator); every
 * other entry (hdim 128 on sm_86/89/90, and all of hdim 64, 96 and 256) is derived
 * from source only, with no GPU measurement.
 *
 * Not in the tables, because they do not change the order of operations: the warp count (warps
 * tile M only, `Layout<Shape<Int<kNWarps>,_1,_1>>`: every row lives in one warp's 16-row slab and
 * its softmax reduces within one quad), and `Is_Q_in_regs` / `Share_Q_K_smem` (false in every
 * launch modelled here). The choice is kernel data, looked up by the GPU profile's architecture:
 * no architecture is named in code.
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

/** Head dimensions modelled: kernels instantiated with `kHeadDim = d` (`Is_even_K`). */
export type Fa2HeadDim = 64 | 96 | 128 | 256;

/** The modelled head dimensions, ascending. */
export const FA2_HEAD_DIMS: readonly Fa2HeadDim[] = Object.freeze([64, 96, 128, 256] as const);

const _t = (blockM: number, blockN: number): Fa2Tiles => Object.freeze({ blockM, blockN });
const _both = (t: Fa2Tiles): Fa2TileChoice => Object.freeze({ causal: t, nonCausal: t });
const _split = (causal: Fa2Tiles, nonCausal: Fa2Tiles): Fa2TileChoice =>
  Object.freeze({ causal, nonCausal });

/**
 * hdim 64 (`run_mha_fwd_hdim64`, `!Is_dropout`): `Flash_fwd_kernel_traits<64, 128, 128, 4>` on
 * every architecture, causal or not: 128 x 128, 4 warps. Derived from source only.
 */
export const FA2_HDIM64_TILES: Readonly<Partial<Record<Architecture, Fa2TileChoice>>> = Object
  .freeze({
    sm_80: _both(_t(128, 128)),
    sm_86: _both(_t(128, 128)),
    sm_89: _both(_t(128, 128)),
    sm_90: _both(_t(128, 128)),
  });

/**
 * hdim 96 (`run_mha_fwd_hdim96`): `is_sm8x = cc_major == 8 && cc_minor > 0`; sm 8.6/8.9 take
 * 64 x 64 causal and 128 x 64 non-causal, sm 8.0 and 9.0 take 128 x 64 for both; 4 warps.
 * Derived from source only.
 */
export const FA2_HDIM96_TILES: Readonly<Partial<Record<Architecture, Fa2TileChoice>>> = Object
  .freeze({
    sm_80: _both(_t(128, 64)),
    sm_86: _split(_t(64, 64), _t(128, 64)),
    sm_89: _split(_t(64, 64), _t(128, 64)),
    sm_90: _both(_t(128, 64)),
  });

/**
 * hdim 128 (`run_mha_fwd_hdim128`, `!Is_dropout`): `is_sm8x` sm 8.6/8.9 take 64 x 64 causal
 * ("square is fastest") and 128 x 32 non-causal (48 KB shared memory, two CTAs per SM); sm 8.0
 * and 9.0 take 128 x 64 for both; 4 warps. sm_80 as the seed study measured (causal, `ops.md`
 * §4.3), the rest derived from source only.
 */
export const FA2_HDIM128_TILES: Readonly<Partial<Record<Architecture, Fa2TileChoice>>> = Object
  .freeze({
    sm_80: _both(_t(128, 64)),
    sm_86: _split(_t(64, 64), _t(128, 32)),
    sm_89: _split(_t(64, 64), _t(128, 32)),
    sm_90: _both(_t(128, 64)),
  });

/**
 * hdim 256 (`run_mha_fwd_hdim256`): 128 x 64 with 8 warps when `max_smem_per_block >= 2 * 256 *
 * (128 + 2 * 64)` (128 KiB) and `max_smem_per_sm < 4 * 256 * (64 + 2 * 64)` (192 KiB), else
 * 64 x 64 with 4 warps, for both masks. The shared memory limits are fixed by the compute
 * capability (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability":
 * per SM / per block opt-in 164 / 163 KiB on 8.0, 100 / 99 KiB on 8.6 and 8.9, 228 / 227 KiB on
 * 9.0), so sm_80 takes 128 x 64 and sm_86, sm_89 and sm_90 take 64 x 64 (the template's comment:
 * "For A100 ... 128 x 64 (128KB smem). For H100 ... 64 x 64 (96KB smem)"). Derived from source
 * only.
 */
export const FA2_HDIM256_TILES: Readonly<Partial<Record<Architecture, Fa2TileChoice>>> = Object
  .freeze({
    sm_80: _both(_t(128, 64)),
    sm_86: _both(_t(64, 64)),
    sm_89: _both(_t(64, 64)),
    sm_90: _both(_t(64, 64)),
  });

/** The standard kernel's tables by head dimension. */
export const FA2_TILES: Readonly<
  Record<Fa2HeadDim, Readonly<Partial<Record<Architecture, Fa2TileChoice>>>>
> = Object.freeze({
  64: FA2_HDIM64_TILES,
  96: FA2_HDIM96_TILES,
  128: FA2_HDIM128_TILES,
  256: FA2_HDIM256_TILES,
});

/**
 * Whether a head dimension is modelled (one of {@link FA2_HEAD_DIMS}). Other sizes FA2 accepts
 * run a larger `kHeadDim` instantiation with `Is_even_K = false` (d = 80 runs the hdim-96
 * kernel), or kernels whose tables are not derived here (hdim 32, 192).
 *
 * @param headDim the head dimension d
 * @returns true for 64, 96, 128 and 256
 * @example
 * ```ts
 * import { isFa2HeadDim } from "./fa2_tiles.ts";
 * if (!isFa2HeadDim(96) || isFa2HeadDim(80)) throw new Error();
 * ```
 */
export function isFa2HeadDim(headDim: number): headDim is Fa2HeadDim {
  return (FA2_HEAD_DIMS as readonly number[]).includes(headDim);
}

/**
 * Tile shape of the standard forward kernel, looked up in {@link FA2_TILES}. Other head
 * dimensions and architectures are not characterised and are refused.
 *
 * @param architecture the GPU profile's architecture (e.g. `sm_80`)
 * @param options head dimension (64, 96, 128 or 256) and whether the mask is causal
 * @returns the tile shape
 * @throws {RangeError} for another head dimension or an uncharacterised architecture
 * @example
 * ```ts
 * import { fa2Tiles } from "./fa2_tiles.ts";
 * const t = fa2Tiles("sm_90", { headDim: 128, causal: true });
 * if (t.blockM !== 128 || t.blockN !== 64) throw new Error();
 * if (fa2Tiles("sm_89", { headDim: 128, causal: false }).blockN !== 32) throw new Error();
 * if (fa2Tiles("sm_80", { headDim: 64, causal: true }).blockN !== 128) throw new Error();
 * ```
 */
export function fa2Tiles(
  architecture: Architecture,
  options: { readonly headDim: number; readonly causal: boolean },
): Fa2Tiles {
  const d = options.headDim;
  if (!isFa2HeadDim(d)) {
    throw new RangeError(
      `Cannot choose FA2 tiles: head dimension ${d} is not modelled (expected ${
        _list(FA2_HEAD_DIMS)
      })`,
    );
  }
  const table = FA2_TILES[d];
  const choice = Object.hasOwn(table, architecture) ? table[architecture] : undefined;
  if (choice === undefined) {
    throw new RangeError(
      `Cannot choose FA2 tiles: architecture '${architecture}' is not characterised ` +
        `(expected ${_list(Object.keys(table))})`,
    );
  }
  return options.causal ? choice.causal : choice.nonCausal;
}

/** "a, b or c". */
function _list(xs: readonly (string | number)[]): string {
  return xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} or ${xs.at(-1)}`;
}
