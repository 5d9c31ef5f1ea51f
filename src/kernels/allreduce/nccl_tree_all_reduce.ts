/**
 * NCCL tree all-reduce on BF16 (NCCL v2.27.3-1 `src/device/all_reduce.h` `runTreeUpDown` /
 * `runTreeSplit`; spec `parallel_and_vllm.md` §A2.3 [V]).
 *
 * @module
 */
import type { NcclTree, NcclTreePlan } from "./all_reduce_plan.ts";
import { ncclCoveringParts } from "./nccl_cbd.ts";
import { _addBf16, _checkPartials } from "./_fold.ts";

/**
 * The tree all-reduce. Each channel reduces its elements up its own tree and broadcasts the
 * root's value down: a leaf sends its value; an inner rank or the root folds
 * `acc = local; acc = __hadd2(acc, recv(down[0])); acc = __hadd2(acc, recv(down[1])) ...`
 * (`reduceCopyPacks`: source 0 is the local input, received peers follow in `tree.down[]` order,
 * `prims_simple.h` `waitPeer` stores peer i at `srcs[Src + i]`), a BF16 rounding after every add.
 * Chunking only pipelines: every element of a channel follows the same tree. Single-node trees
 * are chains [I], where child order cannot matter.
 *
 * Evidence: derived from source only (no multi-GPU measurement exists).
 *
 * @param partials per-rank BF16 partials (rank r at index r), one length
 * @param plan world size, protocol, cbd and one tree per channel
 * @returns the reduced BF16 tensor (identical on every rank)
 * @throws {TypeError} when a partial is not a `Uint16Array`
 * @throws {RangeError} when the partials do not match the world size or the cbd's element total
 * @example
 * ```ts
 * import { ncclTreeAllReduce } from "./nccl_tree_all_reduce.ts";
 * import { ncclSingleChannelCbd } from "./nccl_cbd.ts";
 * const x = [0x3f80, 0x3b80, 0x3b80, 0].map((v) => new Uint16Array([v]));
 * const cbd = ncclSingleChannelCbd(1, { chunkBytes: 512 * 1024, protocol: "simple" });
 * // The chain 3 -> 2 -> 1 -> 0 (root 0): ((0 + 2^-8) + 2^-8) + 1 = 1 + 2^-7.
 * const trees = [{ down: [[1], [2], [3], []] }];
 * const plan = { kind: "nccl-tree", worldSize: 4, protocol: "simple", cbd, trees } as const;
 * if (ncclTreeAllReduce(x, plan)[0] !== 0x3f81) throw new Error();
 * ```
 */
export function ncclTreeAllReduce(
  partials: readonly Uint16Array[],
  plan: NcclTreePlan,
): Uint16Array {
  const n = plan.worldSize;
  const count = _checkPartials(partials, n);
  const parts = ncclCoveringParts({ ...plan, nChannels: plan.trees.length }, count);
  const out = new Uint16Array(count);
  const acc = new Uint16Array(n);
  parts.forEach((part, k) => {
    const tree = plan.trees[k] as NcclTree;
    const { postOrder, root } = _postOrder(tree);
    for (let g = part.offset; g < part.offset + part.count; g++) {
      for (let r = 0; r < n; r++) acc[r] = (partials[r] as Uint16Array)[g] as number;
      for (const r of postOrder) {
        for (const c of tree.down[r] as readonly number[]) {
          acc[r] = _addBf16(acc[r] as number, acc[c] as number);
        }
      }
      out[g] = acc[root] as number;
    }
  });
  return out;
}

/** Ranks with every child before its parent, and the root. */
function _postOrder(tree: NcclTree): { postOrder: number[]; root: number } {
  const isChild = new Set(tree.down.flat());
  const root = tree.down.findIndex((_, r) => !isChild.has(r));
  const postOrder: number[] = [];
  const visit = (r: number): void => {
    for (const c of tree.down[r] as readonly number[]) visit(c);
    postOrder.push(r);
  };
  visit(root);
  return { postOrder, root };
}
