/**
 * Mutations of a model record's workload for the recompute-path fuzzer (issue 25, item 1): the
 * token batch of a model-forward record (ids at and past the vocabulary, sequences added and
 * dropped, the pad token), a sequence record's prompt and generated tokens, positions, layer
 * chains, batch size, SM count, parallelism, decoding and the fingerprint's shape.
 */
import fc from "fast-check";
import type {
  ClaimPredicate,
  ModelForwardWorkload,
  SequenceWorkload,
} from "../../src/claims/mod.ts";
import { NUM, type Num, num } from "./_mutate_history.ts";

/** One edit of a token batch, positions, chain or record field of a model record. */
export interface WorkloadEdit {
  readonly op:
    | "token"
    | "dropToken"
    | "addToken"
    | "addSequence"
    | "dropSequence"
    | "pad"
    | "dropPad"
    | "positions"
    | "dropChain"
    | "cutChain"
    | "batch"
    | "sms"
    | "tp"
    | "sampled"
    | "fingerprintShape";
  readonly at: number;
  readonly id: number;
  readonly n: Num;
}

/** Token ids that matter: the first, the last of the tiny vocabulary, one past it, the claim limit. */
const IDS = fc.oneof(fc.constantFrom(0, 511, 512, 1 << 24), fc.nat({ max: 511 }));

/** A few edits of a model record's workload. */
export const WORKLOAD_EDITS: fc.Arbitrary<WorkloadEdit[]> = fc.array(
  fc.record({
    op: fc.constantFrom(
      "token",
      "dropToken",
      "addToken",
      "addSequence",
      "dropSequence",
      "pad",
      "dropPad",
      "positions",
      "dropChain",
      "cutChain",
      "batch",
      "sms",
      "tp",
      "sampled",
      "fingerprintShape",
    ),
    at: fc.nat({ max: 1000 }),
    id: IDS,
    n: NUM,
  }),
  { minLength: 1, maxLength: 3 },
);

/** A mutable predicate (the parts the edits touch). */
type _Predicate = {
  -readonly [K in keyof ClaimPredicate]: ClaimPredicate[K];
};

/**
 * Applies workload edits to a model-forward record.
 *
 * @param p the honest predicate
 * @param edits the edits
 * @returns the edited predicate (possibly refused by the claim parser)
 */
export function editForward(p: ClaimPredicate, edits: readonly WorkloadEdit[]): ClaimPredicate {
  const w = structuredClone(p.workload) as
    & {
      -readonly [K in keyof ModelForwardWorkload]: ModelForwardWorkload[K];
    }
    & { tokens: { sequences: number[][]; padTokenId?: number } };
  const q: _Predicate = { ...structuredClone(p), workload: w };
  const seqs = w.tokens.sequences;
  for (const e of edits) {
    const s = seqs[e.at % seqs.length]!;
    switch (e.op) {
      case "token":
        s[e.at % s.length] = e.id;
        break;
      case "dropToken":
        if (s.length > 1) s.pop();
        break;
      case "addToken":
        s.push(e.id);
        break;
      case "addSequence":
        seqs.push(s.slice(0, 1 + (e.at % s.length)));
        q.batch = { size: seqs.length };
        break;
      case "dropSequence":
        if (seqs.length > 1) seqs.splice(e.at % seqs.length, 1);
        break;
      case "pad":
        w.tokens.padTokenId = e.id;
        break;
      case "dropPad":
        delete w.tokens.padTokenId;
        break;
      case "positions": {
        const seq = e.at % seqs.length;
        w.positions = [[seq, num(seqs[seq]!.length - 1, e.n)]];
        break;
      }
      case "dropChain":
        delete w.layerChain;
        break;
      case "cutChain":
        if (w.layerChain !== undefined) w.layerChain = w.layerChain.slice(0, 1);
        break;
      case "batch":
        q.batch = { size: Math.max(1, num(q.batch.size, e.n)) };
        break;
      case "sms":
        w.attention = { multiProcessorCount: Math.max(1, num(108, e.n)) };
        break;
      case "tp":
        _topology(q, e);
        break;
      case "sampled": // no sampler in a forward: name a recipe instead of the catalog
        w.kernel = { recipe: { family: e.id % 2 === 0 ? "single_walk" : "no-such-family" } };
        break;
      case "fingerprintShape":
        q.fingerprint = { ...q.fingerprint, shape: [w.positions.length, q.fingerprint.shape[1]!] };
        break;
    }
  }
  return q;
}

/**
 * Applies workload edits to a sequence record's tokens, positions and fields.
 *
 * @param p the honest predicate
 * @param edits the edits
 * @returns the edited predicate (possibly refused by the claim parser)
 */
export function editSequence(p: ClaimPredicate, edits: readonly WorkloadEdit[]): ClaimPredicate {
  const w = structuredClone(p.workload) as
    & {
      -readonly [K in keyof SequenceWorkload]: SequenceWorkload[K];
    }
    & { tokens: { prompt: number[]; generated: number[] }; sampler?: string };
  const q: _Predicate = { ...structuredClone(p), workload: w };
  for (const e of edits) {
    const list = e.at % 2 === 0 || w.tokens.generated.length === 0
      ? w.tokens.prompt
      : w.tokens.generated;
    switch (e.op) {
      case "token":
        list[e.at % list.length] = e.id;
        break;
      case "dropToken":
        if (list.length > 1 || list === w.tokens.generated) list.pop();
        break;
      case "addToken":
      case "addSequence":
        list.push(e.id);
        break;
      case "positions":
      case "pad":
      case "dropPad":
      case "dropSequence": {
        const computed = w.tokens.generated.length === 0
          ? w.tokens.prompt.length
          : w.tokens.prompt.length + w.tokens.generated.length - 1;
        w.positions = [Math.max(0, Math.min(computed - 1, num(computed - 1, e.n)))];
        q.fingerprint = { ...q.fingerprint, shape: [1, q.fingerprint.shape[1]!] };
        break;
      }
      case "dropChain":
        delete w.layerChain;
        break;
      case "cutChain":
        if (w.layerChain !== undefined) w.layerChain = w.layerChain.slice(0, 1);
        break;
      case "batch":
        q.batch = { size: Math.max(1, num(q.batch.size, e.n)) };
        break;
      case "sms":
        w.attention = { multiProcessorCount: Math.max(1, num(108, e.n)) };
        break;
      case "tp":
        _topology(q, e);
        break;
      case "sampled":
        w.decoding = "sampled";
        w.sampler = "top-p 0.9";
        break;
      case "fingerprintShape":
        q.fingerprint = { ...q.fingerprint, shape: [w.positions.length, 128] };
        break;
    }
  }
  return q;
}

/** All-reduces a record may name: valid, malformed, unmodelled, unknown, for up to 8 ranks. */
const ALL_REDUCES: readonly ((tp: number) => unknown)[] = [
  () => undefined,
  () => ({ kind: "vllm-custom-1stage" }),
  () => ({ kind: "torch-symm-mem-two-shot" }),
  (tp) => ({
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [Array.from({ length: tp }, (_, r) => r)],
  }),
  (tp) => ({
    kind: "nccl-ring",
    protocol: "ll",
    chunkBytes: 1,
    rings: [[0, ...Array(tp).fill(1)]],
  }),
  (tp) => ({
    kind: "nccl-tree",
    protocol: "simple",
    trees: [{ down: Array.from({ length: tp }, (_, r) => (r + 1 < tp ? [r + 1] : [])) }],
  }),
  (tp) => ({ kind: "nccl-tree", protocol: "simple", trees: [{ down: Array(tp).fill([0]) }] }),
  () => ({ kind: "nccl-nvls" }),
  () => ({ kind: "no-such-reduce" }),
  (tp) => ({
    kind: "nccl-ring",
    protocol: "simple",
    chunkBytes: 2097152,
    rings: [[0], [0]],
    x: tp,
  }),
];

/** A topology edit: tp, pp, ep and the GPU count from the edit's numbers, an all-reduce or none. */
function _topology(q: _Predicate, e: WorkloadEdit): void {
  const tp = [1, 2, 3, 4, 8, 4096][e.at % 6]!;
  const allReduce = ALL_REDUCES[e.id % ALL_REDUCES.length]!(tp);
  q.parallelism = {
    tp,
    pp: 1 + (e.at >> 3) % 3,
    ep: 1 + (e.at >> 5) % 2,
    dp: 1,
    ...(allReduce === undefined ? {} : { allReduce: allReduce as { kind: string } }),
  };
  q.hardware = { ...q.hardware, count: [1, 2, 4, 8, 16][Math.abs(num(2, e.n)) % 5]! };
}
