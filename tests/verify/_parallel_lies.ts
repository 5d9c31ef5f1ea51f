/**
 * Parallelism a record states that cannot be its run, for the tests that hold every kind of
 * record (GEMM and block records, which model no sharding, among them) to the same parallelism
 * contradictions before anything is refused.
 */
import type { ClaimPredicate } from "../../src/claims/mod.ts";

/** A stack with a tensor-parallel layout (HF's tp_plan: NCCL ring or tree all-reduces). */
export const TP_LAYOUT_STACK = "hf-qwen3-flash-attn-torch2.8";

/**
 * A lie: what it states, the stack that contradicts it (null: any stack), the parallelism, and
 * the reason its FAIL gives.
 */
export type ParallelLie = [
  string,
  string | null,
  Pick<ClaimPredicate["parallelism"], "tp" | "allReduce">,
  RegExp,
];

/**
 * An all-reduce that cannot be valid (a ring repeating a rank), tp=4 naming no all-reduce on a
 * stack whose layout runs more than one, and an all-reduce the stack's layout does not run.
 */
export const PARALLEL_LIES: readonly ParallelLie[] = [
  [
    "a ring repeating a rank",
    null,
    {
      tp: 4,
      allReduce: {
        kind: "nccl-ring",
        protocol: "simple",
        chunkBytes: 2097152,
        rings: [[0, 1, 1, 3]],
      },
    } as ParallelLie[2],
    /^record's all-reduce is invalid: .*'rings\[0\]' is not a permutation of 0\.\.3$/,
  ],
  [
    "tp=4 naming no all-reduce",
    TP_LAYOUT_STACK,
    { tp: 4 },
    /^record contradicts its stack: tp=4 without an all-reduce/,
  ],
  [
    "vLLM's custom all-reduce on HF",
    TP_LAYOUT_STACK,
    { tp: 2, allReduce: { kind: "vllm-custom-1stage" } } as ParallelLie[2],
    /^record contradicts its stack: .*\(layout 'hf-tp-plan'\) all-reduces with nccl-ring or nccl-tree, not 'vllm-custom-1stage'$/,
  ],
];

/**
 * The predicate with the parallelism stated, on as many GPUs as its ranks.
 *
 * @param p the record's predicate
 * @param par the tensor-parallel size and the all-reduce, if any
 */
export function withParallelism(p: ClaimPredicate, par: ParallelLie[2]): ClaimPredicate {
  return {
    ...p,
    hardware: { ...p.hardware, count: par.tp },
    parallelism: { ...p.parallelism, ...par },
  };
}
