/**
 * Tensor parallelism of the one decoder layer: which heads, columns and rows each rank holds, and
 * the all-reduce of the ranks' BF16 partials in the recorded implementation's order (spec
 * `parallel_and_vllm.md` §A1-§A3; the stack's layout from `tensorParallelLayout`).
 *
 * A column-parallel projection gives each rank a contiguous block of the weight's rows (its N);
 * a row-parallel one a contiguous block of its columns (its K), and each rank's GEMM writes its
 * partial rounded to BF16 before the all-reduce. Every rank's GEMM is dispatched by its own
 * shape. Attention runs per rank on the rank's heads (the FA2 split heuristic sees per-rank head
 * counts). Everything here is derived from source only.
 *
 * @module
 */
import {
  allReduce,
  type ClaimedAllReduce,
  messageAllReducePlan,
  type TensorParallelLayout,
} from "../../kernels/mod.ts";
import { type DecoderConfig, isMoeLayer } from "../checkpoint/mod.ts";
import { ForwardUnsupported } from "./forward_support.ts";

/** How a pass is split over tensor-parallel ranks. */
export interface TensorParallel {
  /** Ranks (at least 2; a pass on one GPU has no `TensorParallel`). */
  readonly size: number;
  /** The stack's layout. */
  readonly layout: TensorParallelLayout;
  /** The recorded all-reduce (a modelled implementation, or `vllm-dispatch`). */
  readonly allReduce: ClaimedAllReduce;
  /**
   * For a recorded `vllm-dispatch`: the implementation a message of `count` BF16 elements takes
   * (vLLM's dispatch for its size). It throws `ForwardUnsupported` for a path that is not
   * modelled.
   */
  readonly messageAllReduce?: (count: number) => ClaimedAllReduce;
  /**
   * MoE experts split over the ranks instead of their width (vLLM's `--enable-expert-parallel`
   * without data parallelism: ep = tp): rank r holds whole experts r·E/tp .. (r+1)·E/tp - 1, and
   * a slot routed elsewhere contributes zeros to the rank's combine. Default false.
   */
  readonly expertParallel?: boolean;
}

/** One rank's attention heads: query heads `q0 .. q0 + qn - 1`, KV heads `kv0 .. kv0 + kvn - 1`. */
export interface RankHeads {
  /** First query head. */
  readonly q0: number;
  /** Query heads. */
  readonly qn: number;
  /** First KV head. */
  readonly kv0: number;
  /** KV heads. */
  readonly kvn: number;
}

/**
 * Each rank's heads (one entry covering every head without tensor parallelism).
 *
 * @param c the model description
 * @param tp the split, if any
 * @returns one entry per rank
 * @throws {ForwardUnsupported} when the layout cannot split the heads over the ranks
 * @example
 * ```ts ignore
 * const ranks = rankHeads(config, tp);
 * ```
 */
export function rankHeads(
  c: Pick<DecoderConfig, "heads" | "kvHeads">,
  tp: TensorParallel | undefined,
): readonly RankHeads[] {
  if (tp === undefined) return [{ q0: 0, qn: c.heads, kv0: 0, kvn: c.kvHeads }];
  const n = tp.size;
  if (c.heads % n !== 0) {
    throw new ForwardUnsupported(`${c.heads} attention heads do not split over ${n} ranks`);
  }
  const qn = c.heads / n;
  if (c.kvHeads % n !== 0 && tp.layout.kvHeads === "divide") {
    throw new ForwardUnsupported(
      `${c.kvHeads} KV heads do not split over ${n} ranks under layout '${tp.layout.id}'`,
    );
  }
  if (c.kvHeads % n !== 0 && n % c.kvHeads !== 0) {
    throw new ForwardUnsupported(`${c.kvHeads} KV heads cannot be replicated over ${n} ranks`);
  }
  return Array.from({ length: n }, (_, r) => {
    const kvn = c.kvHeads >= n ? c.kvHeads / n : 1;
    const kv0 = c.kvHeads >= n ? r * kvn : Math.floor(r * c.kvHeads / n);
    return { q0: r * qn, qn, kv0, kvn };
  });
}

/**
 * Why a split can never run on its layout (the engine refuses it at start-up, or cannot view a
 * rank's q/k/v block as heads), or null when it can: a record of such a split describes a run
 * that cannot happen, which contradicts its checkpoint. A split that can run but that this
 * emulator does not model (HF's uneven MLP blocks, a vocabulary the ranks divide only once
 * padded) is not one: the forward says why it is not modelled (`rankHeads`, `rankBlock`).
 *
 * - `divide` layouts (vLLM): the ranks must divide the heads; the KV heads, or be divided by
 *   them where they are fewer (replicated KV heads); the intermediate size, where some layer
 *   has a dense MLP; and a vocabulary-parallel embedding's padded vocabulary. Where some layer
 *   is a MoE block, they must be at most the experts (vLLM 0.11 `qwen3_moe.py`
 *   `Qwen3MoeSparseMoeBlock` raises otherwise). vLLM's fused MoE spreads over the data-parallel
 *   ranks too (`FusedMoEParallelConfig.make` flattens tp across dp): without expert parallelism
 *   dp x tp must divide each expert's intermediate size (`FusedMoE` asserts it). (That vLLM's
 *   expert-parallel size is 1 or dp x tp holds for every model, MoE or not, and is the stack's
 *   rule, not the checkpoint's: `vllmExpertParallelContradiction` in the kernels.)
 * - `chunk` layouts (HF's tp_plan): the ranks must divide the heads and the KV heads whenever the
 *   head dimension is at least the rank count (rank 0's block is then not whole heads).
 *
 * @param c the model description
 * @param tp the rank count and layout, and the record's expert-parallel and data-parallel
 *   degrees (`ep`, `dp`; default 1)
 * @returns the reason (one line), or null
 * @example
 * ```ts
 * import { splitContradiction } from "./tensor_parallel.ts";
 * import { tensorParallelLayout } from "../../kernels/mod.ts";
 * const c = { heads: 8, kvHeads: 4, headDim: 64, intermediate: 512, vocab: 512, layers: 2 };
 * const layout = tensorParallelLayout("vllm-megatron");
 * if (!/8 attention heads/.test(splitContradiction(c, { size: 3, layout }) ?? "")) throw new Error();
 * if (splitContradiction(c, { size: 8, layout }) !== null) throw new Error(); // KV replicated
 * ```
 */
export function splitContradiction(
  c: Pick<
    DecoderConfig,
    "heads" | "kvHeads" | "headDim" | "intermediate" | "vocab" | "layers" | "moe"
  >,
  tp: Pick<TensorParallel, "size" | "layout"> & { readonly ep?: number; readonly dp?: number },
): string | null {
  const n = tp.size, l = tp.layout;
  const cannot = `layout '${l.id}' cannot split`;
  if (l.shards === "chunk") {
    // A block of ceil(h * d / n) rows is whole heads only if n divides h (when d >= n).
    if (c.headDim < n) return null;
    for (const [count, what] of [[c.heads, "attention heads"], [c.kvHeads, "KV heads"]] as const) {
      if (count % n !== 0) {
        return `${cannot} ${count} ${what} over ${n} ranks: rank 0's block of ` +
          `${Math.ceil(count * c.headDim / n)} rows is not whole heads of ${c.headDim}`;
      }
    }
    return null;
  }
  const asserts = "its start-up asserts that the ranks divide";
  if (c.heads % n !== 0) {
    return `${cannot} ${c.heads} attention heads over ${n} ranks: ${asserts} them`;
  }
  if (c.kvHeads >= n ? c.kvHeads % n !== 0 : n % c.kvHeads !== 0) {
    return `${cannot} ${c.kvHeads} KV heads over ${n} ranks: ${asserts} them, or (fewer KV ` +
      "heads than ranks, replicated) that they divide the ranks";
  }
  const layers = Array.from({ length: c.layers }, (_, i) => i);
  if (layers.some((i) => !isMoeLayer(c, i)) && c.intermediate % n !== 0) {
    return `${cannot} the intermediate size ${c.intermediate} over ${n} ranks: ${asserts} it`;
  }
  const moe = c.moe;
  if (moe !== undefined && layers.some((i) => isMoeLayer(c, i))) {
    if (n > moe.experts) {
      return `${cannot} ${moe.experts} experts over ${n} ranks: its MoE block refuses a ` +
        "tensor-parallel size above the expert count";
    }
    const ep = tp.ep ?? 1, dp = tp.dp ?? 1, ranks = n * dp;
    const over = `${ranks} ranks (tp ${n} x dp ${dp})`;
    // Without expert parallelism every MoE rank holds a block of each expert's width. (An ep
    // other than 1 or tp x dp is no vLLM run, for any model: `vllmExpertParallelContradiction`.)
    if (ep === 1 && moe.intermediate % ranks !== 0) {
      return `${cannot} the MoE intermediate size ${moe.intermediate} over its ${over}: ` +
        `${asserts} it (experts not split over the ranks)`;
    }
  }
  const padded = Math.ceil(c.vocab / l.vocabPadding) * l.vocabPadding;
  if (l.embedding === "vocab-parallel" && padded % n !== 0) {
    return `${cannot} the vocabulary ${c.vocab} (padded to ${padded}) over ${n} ranks: ` +
      `${asserts} the padded vocabulary`;
  }
  return null;
}

/**
 * The split of a column-parallel dimension (an intermediate size, a vocabulary): equal blocks.
 *
 * @param total the dimension
 * @param tp the split, if any
 * @param what the dimension's name, for the reason
 * @returns each rank's block size
 * @throws {ForwardUnsupported} when the ranks do not divide it
 * @example
 * ```ts
 * import { rankBlock } from "./tensor_parallel.ts";
 * if (rankBlock(768, undefined, "intermediate") !== 768) throw new Error();
 * ```
 */
export function rankBlock(total: number, tp: TensorParallel | undefined, what: string): number {
  if (tp === undefined) return total;
  if (total % tp.size !== 0) {
    throw new ForwardUnsupported(`${what} ${total} does not split over ${tp.size} ranks`);
  }
  return total / tp.size;
}

/**
 * Rows `first .. first + count - 1` of a row-major matrix (a column-parallel weight's block, or
 * a bias block), without a copy.
 *
 * @param w [rows, width]
 * @param o first row, row count, width
 * @returns the view
 * @example
 * ```ts
 * import { rowBlock } from "./tensor_parallel.ts";
 * if (rowBlock(new Uint16Array([1, 2, 3, 4]), { first: 1, count: 1, width: 2 }).join() !== "3,4") throw new Error();
 * ```
 */
export function rowBlock(
  w: Uint16Array,
  o: { readonly first: number; readonly count: number; readonly width: number },
): Uint16Array {
  return w.subarray(o.first * o.width, (o.first + o.count) * o.width);
}

/**
 * Columns `first .. first + count - 1` of a row-major matrix, copied (a row-parallel weight's
 * block, or one rank's heads of an activation).
 *
 * @param w [rows, width]
 * @param o first column, column count, width
 * @returns [rows, count]
 * @example
 * ```ts
 * import { columnBlock } from "./tensor_parallel.ts";
 * if (columnBlock(new Uint16Array([1, 2, 3, 4]), { first: 1, count: 1, width: 2 }).join() !== "2,4") throw new Error();
 * ```
 */
export function columnBlock(
  w: Uint16Array,
  o: { readonly first: number; readonly count: number; readonly width: number },
): Uint16Array {
  const rows = w.length / o.width;
  const out = new Uint16Array(rows * o.count);
  for (let r = 0; r < rows; r++) {
    out.set(w.subarray(r * o.width + o.first, r * o.width + o.first + o.count), r * o.count);
  }
  return out;
}

/**
 * Writes a block of columns into a row-major matrix (the inverse of {@link columnBlock}).
 *
 * @param dst [rows, width]
 * @param src [rows, count]
 * @param o first column, column count, width
 * @example
 * ```ts
 * import { putColumnBlock } from "./tensor_parallel.ts";
 * const m = new Uint16Array(4);
 * putColumnBlock(m, new Uint16Array([7, 8]), { first: 1, count: 1, width: 2 });
 * if (m.join() !== "0,7,0,8") throw new Error();
 * ```
 */
export function putColumnBlock(
  dst: Uint16Array,
  src: Uint16Array,
  o: { readonly first: number; readonly count: number; readonly width: number },
): void {
  const rows = src.length / o.count;
  for (let r = 0; r < rows; r++) {
    dst.set(src.subarray(r * o.count, (r + 1) * o.count), r * o.width + o.first);
  }
}

/**
 * Whether the all-reduce's order of additions depends on an element's place in its message:
 * NCCL ring chunks and vLLM two-stage partitions, above two ranks (two ranks add once, in any
 * order the same).
 *
 * @param tp the split
 * @returns true when the place matters
 * @example
 * ```ts ignore
 * if (orderByPlace(tp)) ...
 * ```
 */
export function orderByPlace(tp: TensorParallel): boolean {
  const k = tp.allReduce.kind;
  // A dispatch may send a message to either: rows are placed in their messages.
  return tp.size > 2 &&
    (k === "nccl-ring" || k === "vllm-custom-2stage" || tp.messageAllReduce !== undefined);
}

/** The implementation a message of `count` elements ran (the dispatch's, where one decides). */
function _messageKind(tp: TensorParallel, count: number): ClaimedAllReduce {
  return tp.messageAllReduce === undefined ? tp.allReduce : tp.messageAllReduce(count);
}

/**
 * All-reduces the ranks' partials of computed rows as the recorded implementation does. Where
 * the order depends on an element's place in the message (NCCL ring chunks, vLLM two-stage
 * partitions), every row is placed where it sits in its launch's message (`launchRow`, a message
 * of `launchRows` rows; other rows of the launch are zeros, their sums discarded); elsewhere the
 * computed rows are reduced as they are.
 *
 * @param partials per rank [rows, width], BF16
 * @param o the split, the row width, each row's launch size and its row in that launch (default:
 *   the rows are the whole launch, in order)
 * @returns the reduced [rows, width]
 * @throws {RangeError} as `allReduce`
 * @example
 * ```ts ignore
 * const out = reduceRows(partials, { tp, width: hidden, launchRows });
 * ```
 */
export function reduceRows(
  partials: readonly Uint16Array[],
  o: {
    readonly tp: TensorParallel;
    readonly width: number;
    readonly launchRows: Int32Array;
    readonly launchRow?: Int32Array | undefined;
  },
): Uint16Array {
  const { tp, width } = o;
  const rows = o.launchRows.length;
  const placed = orderByPlace(tp);
  const whole = o.launchRow === undefined && o.launchRows.every((m) => m === rows);
  if (!placed || whole) {
    const count = partials[0]!.length;
    const plan = messageAllReducePlan(_messageKind(tp, count), { worldSize: tp.size, count });
    return allReduce(partials, plan);
  }
  const at = o.launchRow ?? Int32Array.from({ length: rows }, (_, i) => i);
  // Rows of one message: same launch size, distinct places.
  const messages: { size: number; rows: Map<number, number> }[] = [];
  for (let i = 0; i < rows; i++) {
    const size = o.launchRows[i]!, p = at[i]!;
    let m = messages.find((x) => x.size === size && !x.rows.has(p));
    if (m === undefined) messages.push(m = { size, rows: new Map() });
    m.rows.set(p, i);
  }
  const out = new Uint16Array(rows * width);
  for (const m of messages) {
    const parts = partials.map((part) => {
      const msg = new Uint16Array(m.size * width);
      for (const [p, i] of m.rows) msg.set(part.subarray(i * width, (i + 1) * width), p * width);
      return msg;
    });
    const count = m.size * width;
    const plan = messageAllReducePlan(_messageKind(tp, count), { worldSize: tp.size, count });
    const r = allReduce(parts, plan);
    for (const [p, i] of m.rows) out.set(r.subarray(p * width, (p + 1) * width), i * width);
  }
  return out;
}

/**
 * What one rank of a split sees of a model: its heads and KV heads, its block of the
 * intermediate sizes and of the vocabulary (the LM head), the rest unchanged. The launches a
 * rank makes (GEMM shapes, QK-norm rows, the FA2 split heuristic) are those of this view, so
 * the decode batch classes of a rank are the classes of its view.
 *
 * @param c the model description
 * @param tp the split (undefined: the model itself)
 * @returns the view
 * @throws {ForwardUnsupported} when the layout cannot split the model over the ranks
 * @example
 * ```ts ignore
 * const r = rankView(config, tp);
 * ```
 */
export function rankView(c: DecoderConfig, tp: TensorParallel | undefined): DecoderConfig {
  if (tp === undefined) return c;
  const heads = rankHeads(c, tp)[0]!;
  return {
    ...c,
    heads: heads.qn,
    kvHeads: heads.kvn,
    intermediate: rankBlock(c.intermediate, tp, "intermediate size"),
    vocab: rankBlock(c.vocab, tp, "vocabulary"),
    ...(c.moe === undefined ? {} : {
      moe: { ...c.moe, intermediate: rankBlock(c.moe.intermediate, tp, "MoE intermediate size") },
    }),
  };
}

/**
 * Embedding rows as a stack's tensor-parallel embedding gives them: unchanged when the table is
 * replicated (or on one GPU); under a vocabulary-parallel embedding each row is the all-reduce of
 * one rank's lookup and the other ranks' exact zeros, which leaves every value but -0 alone and
 * turns -0 into +0 (`-0 + +0 = +0` under round-to-nearest, in any order and precision).
 *
 * @param rows BF16 embedding rows
 * @param tp the tensor-parallel split, if any
 * @returns the rows the first layer reads (the same array when nothing changes)
 * @example
 * ```ts
 * import { vocabParallelRows } from "./tensor_parallel.ts";
 * const rows = new Uint16Array([0x8000, 0x3f80]);
 * if (vocabParallelRows(rows, undefined) !== rows) throw new Error();
 * ```
 */
export function vocabParallelRows(
  rows: Uint16Array,
  tp: TensorParallel | undefined,
): Uint16Array {
  if (tp === undefined || tp.layout.embedding !== "vocab-parallel") return rows;
  const out = rows.slice();
  for (let i = 0; i < out.length; i++) if (out[i] === 0x8000) out[i] = 0;
  return out;
}
