/**
 * Launch decisions of the FA2 forward entry points: shapes, cu_seqlens, and how many KV splits
 * run (spec `stack_pytorch_hf.md` §4.1-§4.2).
 *
 * @module
 */
import type { AttentionInputs, FlashAttentionOptions } from "./fa2_options.ts";
import { fa2NumSplits } from "./fa2_num_splits.ts";
import { FA2_HEAD_DIMS, isFa2HeadDim } from "./fa2_tiles.ts";

/** One sequence of a (varlen) batch: token offsets and lengths. */
export interface Fa2Sequence {
  /** Offset of the sequence's first query token in the batch. */
  readonly q0: number;
  /** Offset of the sequence's first key token in the batch. */
  readonly k0: number;
  /** Query tokens. */
  readonly sq: number;
  /** Key tokens. */
  readonly sk: number;
}

/**
 * Validates shapes and cu_seqlens and lists the sequences (`mha_fwd`: one; `mha_varlen_fwd`: one per
 * offset pair).
 *
 * @param inputs Q, K, V
 * @param o the forward options
 * @returns the sequences
 * @throws {RangeError} on inconsistent heads, head dim, lengths or offsets
 */
export function _sequences(inputs: AttentionInputs, o: FlashAttentionOptions): Fa2Sequence[] {
  const { heads, kvHeads, headDim: d } = o;
  if (!Number.isInteger(heads) || !Number.isInteger(kvHeads) || kvHeads < 1 || heads % kvHeads) {
    throw new RangeError(`Cannot run FA2: heads ${heads} is not a multiple of kvHeads ${kvHeads}`);
  }
  if (!isFa2HeadDim(d)) {
    throw new RangeError(
      `Cannot run FA2: head dimension ${d} is not modelled (expected ` +
        `${FA2_HEAD_DIMS.slice(0, -1).join(", ")} or ${FA2_HEAD_DIMS.at(-1)})`,
    );
  }
  const tq = inputs.q.length / (heads * d);
  const tk = inputs.k.length / (kvHeads * d);
  if (!Number.isInteger(tq) || !Number.isInteger(tk) || inputs.v.length !== inputs.k.length) {
    throw new RangeError(`Cannot run FA2: Q, K, V lengths do not match [tokens, heads, ${d}]`);
  }
  const cq = o.cuSeqlensQ;
  const ck = o.cuSeqlensK;
  if (cq === undefined && ck === undefined) return [{ q0: 0, k0: 0, sq: tq, sk: tk }];
  if (cq === undefined || ck === undefined || cq.length !== ck.length || cq.length < 2) {
    throw new RangeError(
      "Cannot run FA2: cuSeqlensQ and cuSeqlensK must both be given, batch + 1 long",
    );
  }
  const seq: Fa2Sequence[] = [];
  for (let b = 0; b + 1 < cq.length; b++) {
    const q0 = cq[b] as number, k0 = ck[b] as number;
    const sq = (cq[b + 1] as number) - q0, sk = (ck[b + 1] as number) - k0;
    if (!(sq >= 0 && sk >= 0) || (b === 0 && (q0 !== 0 || k0 !== 0))) {
      throw new RangeError(
        `Cannot run FA2: cu_seqlens must start at 0 and not decrease (batch ${b})`,
      );
    }
    seq.push({ q0, k0, sq, sk });
  }
  if (cq[cq.length - 1] !== tq || ck[ck.length - 1] !== tk) {
    throw new RangeError(
      `Cannot run FA2: cu_seqlens end at ${cq[cq.length - 1]}/${
        ck[ck.length - 1]
      }, tensors hold ${tq}/${tk}`,
    );
  }
  return seq;
}

/**
 * How many KV splits run: `mha_fwd` always asks the heuristic (batch 1 here); `mha_varlen_fwd`
 * only in the S_q = 1 GQA swap (every query length at most 1 and heads > kvHeads), with the batch
 * and the longest key length.
 *
 * The varlen launch passes `max_seqlen_k`, the longest key length, to the heuristic
 * (`set_params_splitkv`) and as `params.seqlen_k` (`set_params_fprop`): Dao-AILab v2.8.3
 * `csrc/flash_attn/flash_api.cpp` :102, :672, :700-705, and vllm-flash-attn ee4d25b :101, :676,
 * :704-709; derived from source only. Which length fixes each split's block range differs between
 * the two (`fa2BlocksPerSplit`).
 *
 * @param o the forward options
 * @param shape the launch's batch and longest lengths (`_launchShape`)
 * @returns the split count
 * @throws {RangeError} when the heuristic must run and the SM count is missing
 */
export function _splitCount(
  o: FlashAttentionOptions,
  shape: { readonly batch: number; readonly maxQ: number; readonly maxK: number },
): number {
  const { batch, maxQ, maxK } = shape;
  const forced = o.numSplits;
  if (forced !== undefined) {
    if (!Number.isSafeInteger(forced) || forced < 1 || forced > 128) {
      throw new RangeError(`Cannot run FA2: numSplits ${forced} is not in 1..128`);
    }
    return forced;
  }
  const varlen = o.cuSeqlensQ !== undefined;
  if (varlen && !(maxQ <= 1 && o.heads > o.kvHeads)) return 1;
  const sms = o.multiProcessorCount;
  if (sms === undefined) {
    throw new RangeError(
      `Cannot run FA2: ${varlen ? "the varlen GQA swap" : "mha_fwd"} needs ` +
        "'multiProcessorCount' for the split heuristic",
    );
  }
  return fa2NumSplits({
    batch,
    heads: o.heads,
    kvHeads: o.kvHeads,
    seqlenQ: varlen ? 1 : Math.max(maxQ, 1),
    seqlenK: Math.max(maxK, 1),
    headDim: o.headDim,
    multiProcessorCount: sms,
  });
}

/**
 * The launch's batch and longest lengths: the sequences given, or the declared launch of which
 * they are a part (each computed sequence must fit inside it).
 *
 * @param o the forward options (`launch`)
 * @param seq the computed sequences
 * @returns batch size, longest query and key lengths
 * @throws {RangeError} when the declared launch cannot contain the computed sequences
 */
export function _launchShape(
  o: FlashAttentionOptions,
  seq: readonly Fa2Sequence[],
): { batch: number; maxQ: number; maxK: number } {
  const maxQ = Math.max(...seq.map((s) => s.sq));
  const maxK = Math.max(...seq.map((s) => s.sk));
  const l = o.launch;
  if (l === undefined) return { batch: seq.length, maxQ, maxK };
  const ok = (v: number, min: number) => Number.isSafeInteger(v) && v >= min;
  if (!ok(l.batch, seq.length) || !ok(l.maxSeqlenQ, Math.max(maxQ, 1)) || !ok(l.maxSeqlenK, maxK)) {
    throw new RangeError(
      `Cannot run FA2: the launch (batch ${l.batch}, max lengths ${l.maxSeqlenQ}/${l.maxSeqlenK}) ` +
        `cannot hold the ${seq.length} computed sequence(s) (max lengths ${maxQ}/${maxK})`,
    );
  }
  return { batch: l.batch, maxQ: l.maxSeqlenQ, maxK: l.maxSeqlenK };
}
