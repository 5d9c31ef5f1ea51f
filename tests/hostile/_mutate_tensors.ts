/**
 * Mutations of block and GEMM records for the recompute-path fuzzer (issue 25, item 1): layer
 * sizes, token counts, eps, RoPE, SM count, GEMM shapes, formats and recipes. Every tensor of the
 * edited shape is made (synthetic 16-bit patterns) and committed, so the record's tensors are
 * present, of the sizes it names, and the mutation reaches the recomputation.
 */
import fc from "fast-check";
import type { BlockWorkload, ClaimPredicate, GemmWorkload } from "../../src/claims/mod.ts";
import { synthWeight } from "../../src/model/mod.ts";
import { type Blobs, commit } from "./_recompute_fixture.ts";

/** A mutable predicate (the parts the edits touch). */
type _Predicate = {
  -readonly [K in keyof ClaimPredicate]: ClaimPredicate[K];
};

/** One edit of a block record. */
export interface BlockEdit {
  readonly op:
    | "hidden"
    | "intermediate"
    | "heads"
    | "kvHeads"
    | "headDim"
    | "tokens"
    | "eps"
    | "theta"
    | "invFreq"
    | "sms"
    | "batch";
  readonly pick: number;
}

/** Values of block fields (the layer sizes, tokens, eps and RoPE texts). */
const BLOCK_VALUES = {
  hidden: [1, 2, 64, 127, 128, 256],
  intermediate: [1, 3, 64, 768],
  heads: [1, 2, 3, 4],
  kvHeads: [1, 2, 3],
  headDim: [2, 16, 64, 96, 127, 128],
  tokens: [1, 3, 4, 129, 300],
  eps: ["1e-6", "0.5", "1e-300", "1000"],
  theta: ["1.5", "10000", "1e30"],
  invFreq: [0, 32, 64, 65],
  sms: [1, 2, 108, 4096],
};

/** A few block edits. */
export const BLOCK_EDITS: fc.Arbitrary<BlockEdit[]> = fc.array(
  fc.record({
    op: fc.constantFrom(
      "hidden",
      "intermediate",
      "heads",
      "kvHeads",
      "headDim",
      "tokens",
      "eps",
      "theta",
      "invFreq",
      "sms",
      "batch",
    ),
    pick: fc.nat({ max: 100 }),
  }),
  { minLength: 1, maxLength: 3 },
);

/**
 * Applies block edits and commits an input and weights of the edited shape (synthetic BF16), so
 * the record's tensors are all present and of the sizes it names.
 *
 * @param p the honest block predicate
 * @param o the edits and the blobs to commit into
 * @returns the edited predicate
 */
export function editBlock(
  p: ClaimPredicate,
  o: { readonly edits: readonly BlockEdit[]; readonly blobs: Blobs },
): ClaimPredicate {
  const w = structuredClone(p.workload) as {
    -readonly [K in keyof BlockWorkload]: BlockWorkload[K];
  };
  const shape = { ...w.shape };
  let batch = p.batch.size;
  const pick = <T>(xs: readonly T[], i: number) => xs[i % xs.length]!;
  for (const e of o.edits) {
    switch (e.op) {
      case "hidden":
      case "intermediate":
      case "heads":
      case "kvHeads":
      case "headDim":
        shape[e.op] = pick(BLOCK_VALUES[e.op], e.pick);
        break;
      case "tokens":
        w.tokens = pick(BLOCK_VALUES.tokens, e.pick);
        break;
      case "eps":
        w.rmsNormEps = pick(BLOCK_VALUES.eps, e.pick);
        break;
      case "theta":
        if (w.attention !== undefined) {
          w.attention = { ...w.attention, rope: { theta: pick(BLOCK_VALUES.theta, e.pick) } };
        }
        break;
      case "invFreq":
        if (w.attention !== undefined) {
          const n = pick(BLOCK_VALUES.invFreq, e.pick);
          const bits = new Uint32Array(n).fill(0x3f800000);
          const invFreqSha256 = commit(o.blobs, new Uint8Array(bits.buffer));
          w.attention = { ...w.attention, rope: { invFreqSha256 } };
        }
        break;
      case "sms":
        if (w.attention !== undefined) {
          w.attention = { ...w.attention, multiProcessorCount: pick(BLOCK_VALUES.sms, e.pick) };
        }
        break;
      case "batch":
        batch = 2;
        break;
    }
  }
  w.shape = shape;
  const { hidden: h, intermediate: f, heads, kvHeads, headDim: d } = shape;
  const counts: Record<string, number> = w.kind === "ffn_block"
    ? { norm: h, gate: f * h, up: f * h, down: h * f }
    : {
      norm: h,
      q: heads * d * h,
      k: kvHeads * d * h,
      v: kvHeads * d * h,
      o: h * heads * d,
      qNorm: d,
      kNorm: d,
    };
  const tensor = (name: string, count: number) => {
    const t = synthWeight("fuzz-block", { name, count });
    return commit(o.blobs, new Uint8Array(t.buffer));
  };
  w.weights = Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, tensor(k, n)]));
  w.input = { sha256: tensor("input", w.tokens * h), shape: [w.tokens, h] };
  return {
    ...p,
    batch: { size: batch },
    workload: w,
    fingerprint: { ...p.fingerprint, shape: [w.tokens, h] },
  };
}

/** One edit of a GEMM record. */
export interface GemmEdit {
  readonly op: "m" | "n" | "k" | "dtype" | "out" | "recipe" | "batch";
  readonly pick: number;
}

/** Values of GEMM fields: sizes around tile and split edges, both 16-bit formats. */
const GEMM_SIZES = [1, 2, 3, 17, 63, 64, 65, 128, 256, 1000];

/** A few GEMM edits. */
export const GEMM_EDITS: fc.Arbitrary<GemmEdit[]> = fc.array(
  fc.record({
    op: fc.constantFrom("m", "n", "k", "dtype", "out", "recipe", "batch"),
    pick: fc.nat({ max: 100 }),
  }),
  { minLength: 1, maxLength: 3 },
);

/**
 * Applies GEMM edits and commits input and weights of the edited shape (synthetic 16-bit
 * patterns), so the record's tensors are present and of the sizes it names; its fingerprint
 * describes the edited output.
 *
 * @param p the honest GEMM predicate
 * @param o the edits, the recipes a `recipe` edit names (on `recipeStack`) and the blobs
 * @returns the edited predicate
 */
export function editGemm(
  p: ClaimPredicate,
  o: {
    readonly edits: readonly GemmEdit[];
    readonly recipes: readonly Record<string, unknown>[];
    readonly recipeStack: string;
    readonly blobs: Blobs;
  },
): ClaimPredicate {
  const w = structuredClone(p.workload) as {
    -readonly [K in keyof GemmWorkload]: GemmWorkload[K];
  };
  const q: _Predicate = structuredClone(p);
  let batch: number | null = null;
  for (const e of o.edits) {
    const size = GEMM_SIZES[e.pick % GEMM_SIZES.length]!;
    switch (e.op) {
      case "m":
      case "n":
      case "k":
        w[e.op] = size;
        break;
      case "dtype":
      case "out":
        w[e.op] = e.pick % 2 === 0 ? "bf16" : "fp16";
        break;
      case "recipe":
        w.kernel = { recipe: o.recipes[e.pick % o.recipes.length]! };
        q.software = { ...q.software, stack: o.recipeStack };
        break;
      case "batch":
        batch = size;
        break;
    }
  }
  const tensor = (name: string, count: number) => {
    const t = synthWeight("fuzz-gemm", { name, count });
    return commit(o.blobs, new Uint8Array(t.buffer));
  };
  w.input = { sha256: tensor("input", w.m * w.k), shape: [w.m, w.k] };
  w.weights = { sha256: tensor("weights", w.n * w.k), shape: [w.n, w.k] };
  q.batch = { size: batch ?? w.m };
  q.workload = w;
  q.fingerprint = { ...q.fingerprint, dtype: w.out, shape: [w.m, w.n] };
  return q;
}
