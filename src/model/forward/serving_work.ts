/**
 * A serving replay's work laid out and checked against itself: the passes against the computed
 * sequences (`servingRows`), each pass's logits rows against the entries of it that emit a token,
 * and the fingerprinted positions against the rows that compute them. None of this reads a
 * checkpoint: a caller runs it before the checkpoint is opened (expert rows aside, which are the
 * checkpoint's MoE layers to check), so that a checkpoint not modelled never hides a record's
 * contradiction of its own history, and the replay runs it again with the checkpoint's experts.
 *
 * @module
 */
import {
  type PassShape,
  type RowBlock,
  type ServedSequence,
  servingRows,
} from "./serving_shape.ts";

/** The rows of a replay's work, laid out. */
export interface ServingWork {
  /** The computed blocks, in pass order, then entry order. */
  readonly blocks: readonly RowBlock[];
  /** Computed rows in all. */
  readonly rows: number;
  /** The computed blocks of each pass that has some (contiguous rows, entry order). */
  readonly byPass: ReadonlyMap<number, readonly RowBlock[]>;
  /** Per sequence: its fingerprinted positions and the computed row of each. */
  readonly fpRows: readonly { readonly positions: number[]; readonly rows: number[] }[];
}

/**
 * Lays out and checks a replay's work.
 *
 * @param work the pass shapes and the computed sequences
 * @param o `flatten`: whether a pass's GEMM rows must be the sum of its query lengths;
 *   `positions`: the fingerprinted positions per sequence (default: each one's last computed);
 *   `experts`, `moeLayers` and `topK` as `servingRows` takes them, where expert rows are checked
 * @returns the blocks, rows, blocks by pass and fingerprinted rows
 * @throws {RangeError} naming the pass, sequence or position that contradicts the others
 * @example
 * ```ts
 * import { servingWork } from "./serving_work.ts";
 * const passes = [{ entries: [{ query: 3, cached: 0 }], rows: 3, logitsRows: 0 }];
 * const sequences = [{ tokens: [5, 6, 7, 8], prompt: 3, steps: [{ pass: 0, entry: 0 }] }];
 * let why = "";
 * try { servingWork({ passes, sequences }, { flatten: true }); } catch (e) { why = String(e); }
 * if (!why.includes("0 logits rows")) throw new Error(why);
 * ```
 */
export function servingWork(
  work: { readonly passes: readonly PassShape[]; readonly sequences: readonly ServedSequence[] },
  o: {
    readonly flatten: boolean;
    readonly positions?: readonly (readonly number[])[] | undefined;
    readonly experts?: number;
    readonly moeLayers?: number;
    readonly topK?: number;
  },
): ServingWork {
  const { positions, ...layout } = o;
  const { blocks, rows } = servingRows(work.passes, work.sequences, layout);
  const byPass = _byPass(blocks);
  for (const [pass, group] of byPass) {
    const p = work.passes[pass]!;
    // Entries of the pass not computed here (other requests) may each sample one token or none.
    const others = p.entries.length - group.length;
    const emits = group.filter((b) => b.emits).length;
    if (emits > p.logitsRows || p.logitsRows > emits + others) {
      throw new RangeError(
        `Cannot replay: pass ${pass} records ${p.logitsRows} logits rows, ` +
          `its computed entries emit ${emits} token(s)` +
          (others === 0 ? "" : ` and its ${others} other entries at most ${others}`),
      );
    }
  }
  const fpRows = _fingerprintRows(work.sequences, blocks, positions);
  return { blocks, rows, byPass, fpRows };
}

/** Blocks grouped by pass; blocks of a pass are contiguous rows (laid out pass by pass). */
function _byPass(blocks: readonly RowBlock[]): Map<number, RowBlock[]> {
  const m = new Map<number, RowBlock[]>();
  for (const b of blocks) {
    const g = m.get(b.pass);
    if (g === undefined) m.set(b.pass, [b]);
    else g.push(b);
  }
  return m;
}

function _fingerprintRows(
  sequences: readonly ServedSequence[],
  blocks: readonly RowBlock[],
  wanted: readonly (readonly number[])[] | undefined,
): { positions: number[]; rows: number[] }[] {
  return sequences.map((s, i) => {
    const own = blocks.filter((b) => b.seq === i);
    const cover = _latestCover(own, s.tokens.length);
    const rowOf = (pos: number) => {
      const b = Number.isSafeInteger(pos) && pos >= 0 && pos < cover.length
        ? own[cover[pos]!]
        : undefined;
      if (b === undefined) {
        throw new RangeError(`Cannot replay: position ${pos} of sequence ${i} is not computed`);
      }
      return b.row0 + pos - b.pos0;
    };
    const last = own.reduce((m, b) => Math.max(m, b.pos0 + b.rows - 1), -1);
    const positions = [...(wanted?.[i] ?? (last < 0 ? [] : [last]))];
    return { positions, rows: positions.map(rowOf) };
  });
}

/**
 * For each position of a sequence, the index in `own` (its blocks in step order) of the last
 * block that computes it, or -1. A recomputation after preemption computes positions again, so
 * blocks may overlap: the row a later pass read is the one the latest block wrote. Painted from
 * the last block back, each position once (the next unpainted position by path halving): the
 * cost is the sequence's length plus its blocks, whatever their overlap, and this runs before
 * any limit on the record's cost.
 */
function _latestCover(own: readonly RowBlock[], length: number): Int32Array {
  const cover = new Int32Array(length).fill(-1);
  const next = Int32Array.from({ length: length + 1 }, (_, p) => p);
  const free = (p: number) => {
    while (next[p] !== p) {
      next[p] = next[next[p]!]!;
      p = next[p]!;
    }
    return p;
  };
  for (let k = own.length - 1; k >= 0; k--) {
    const b = own[k]!;
    const end = Math.min(b.pos0 + b.rows, length);
    for (let p = free(b.pos0); p < end; p = free(p + 1)) {
      cover[p] = k;
      next[p] = p + 1;
    }
  }
  return cover;
}
