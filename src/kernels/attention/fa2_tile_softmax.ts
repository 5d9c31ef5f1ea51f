/**
 * The contract of an FA2 tile softmax on flat state arrays: what
 * `FlashAttentionOptions.tileSoftmax` takes (e.g. the wasm engine's, `GemmEngine.fa2TileSoftmax`)
 * in place of the TypeScript step.
 *
 * @module
 */

/** One tile's online softmax on flat state arrays (see {@link Fa2TileSoftmax}). */
export interface Fa2TileSoftmaxTile {
  /** Rows of the tile. */
  readonly rows: number;
  /** Tile width (kBlockN, a multiple of 8). */
  readonly blockN: number;
  /** Head dimension. */
  readonly d: number;
  /** Raw scores S of the tile, FP32 patterns [rows, blockN] (read only). */
  readonly scores: Uint32Array;
  /** Per row, the first masked column of this tile (<= 0: all masked). */
  readonly limits: Int32Array;
  /** Per row, the running maximum of the raw scores (FP32 pattern; -inf before the first tile). */
  readonly rowMax: Uint32Array;
  /** Per row, the four per-lane row sums (FP32 patterns), lane order. */
  readonly sums: Uint32Array;
  /** Per row, the unnormalised O accumulator (FP32 patterns [rows, d]), rescaled in place. */
  readonly o: Uint32Array;
  /** P rounded to BF16 [rows, blockN], written (the P·V operand). */
  readonly pb: Uint16Array;
  /** Whether this is the rows' first tile. */
  readonly first: boolean;
  /**
   * Whether the rescale of a later tile takes a row max of -inf as 0 (`Check_inf`: FA2's
   * masking iterations, `fa2MaskingSteps`); without it such a row's O and sums become NaN.
   */
  readonly checkInf: boolean;
  /** `fl32(softmax_scale * log2 e)` pattern. */
  readonly scaleLog2: number;
}

/**
 * The FA2 online-softmax step of every row of a tile, updating `rowMax`, `sums` and `o` in place
 * and writing `pb`, with the bits of the TypeScript step (`_fa2TileSoftmax`) for the launch's
 * build and MUFU model.
 */
export type Fa2TileSoftmax = (tile: Fa2TileSoftmaxTile) => void;
