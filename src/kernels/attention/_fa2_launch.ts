/**
 * Launch checks of the FA2 forward entry points: shapes, cu_seqlens, and the split-KV decision
 * (spec `stack_pytorch_hf.md` §4.1-§4.2).
 *
 * @module
 */
import type { AttentionInputs, FlashAttentionOptions } from "./flash_attention_forward.ts";
import { fa2NumSplits } from "./fa2_num_splits.ts";

/** One sequence of a (varlen) batch: token offsets and lengths. */
export interface _Seq {
  readonly q0: number;
  readonly k0: number;
  readonly sq: number;
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
export function _sequences(inputs: AttentionInputs, o: FlashAttentionOptions): _Seq[] {
  const { heads, kvHeads, headDim: d } = o;
  if (!Number.isInteger(heads) || !Number.isInteger(kvHeads) || kvHeads < 1 || heads % kvHeads) {
    throw new RangeError(`Cannot run FA2: heads ${heads} is not a multiple of kvHeads ${kvHeads}`);
  }
  if (d !== 128) {
    throw new RangeError(`Cannot run FA2: head dimension ${d} is not modelled (expected 128)`);
  }
  const tq = inputs.q.length / (heads * d);
  const tk = inputs.k.length / (kvHeads * d);
  if (!Number.isInteger(tq) || !Number.isInteger(tk) || inputs.v.length !== inputs.k.length) {
    throw new RangeError("Cannot run FA2: Q, K, V lengths do not match [tokens, heads, 128]");
  }
  const cq = o.cuSeqlensQ;
  const ck = o.cuSeqlensK;
  if (cq === undefined && ck === undefined) return [{ q0: 0, k0: 0, sq: tq, sk: tk }];
  if (cq === undefined || ck === undefined || cq.length !== ck.length || cq.length < 2) {
    throw new RangeError(
      "Cannot run FA2: cuSeqlensQ and cuSeqlensK must both be given, batch + 1 long",
    );
  }
  const seq: _Seq[] = [];
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
 * Refuses launches that would run the split-KV kernel: `mha_fwd` whenever the heuristic picks more
 * than one split, `mha_varlen_fwd` in the S_q = 1 GQA swap.
 *
 * @param o the forward options
 * @param seq the sequences
 * @param maxQ longest query length
 * @throws {RangeError} when split-KV would run or the SM count is missing
 */
export function _checkNoSplit(o: FlashAttentionOptions, seq: _Seq[], maxQ: number): void {
  if (o.cuSeqlensQ !== undefined) {
    if (maxQ === 1 && o.heads > o.kvHeads) {
      throw new RangeError(
        "Cannot run FA2: the varlen S_q = 1 GQA swap (split-KV) is not modelled",
      );
    }
    return;
  }
  const sms = o.multiProcessorCount;
  if (sms === undefined) {
    throw new RangeError(
      "Cannot run FA2: mha_fwd needs 'multiProcessorCount' for the split heuristic",
    );
  }
  const s = seq[0] as _Seq;
  const splits = fa2NumSplits({
    batch: 1,
    heads: o.heads,
    kvHeads: o.kvHeads,
    seqlenQ: Math.max(s.sq, 1),
    seqlenK: Math.max(s.sk, 1),
    headDim: o.headDim,
    multiProcessorCount: sms,
  });
  if (splits > 1) {
    throw new RangeError(
      `Cannot run FA2: the split heuristic chose ${splits} KV splits; split-KV is not modelled`,
    );
  }
}
