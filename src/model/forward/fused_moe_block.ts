/**
 * The sparse MoE block of a Qwen3-MoE decoder layer as vLLM 0.11 runs it on the fused-MoE path
 * (`Qwen3MoeSparseMoeBlock` with `FusedMoE`, the Triton `fused_moe_kernel`; spec
 * `parallel_and_vllm.md` §B7, vLLM commit c31246800c98272ab28b7d454d6b72f38e396972):
 * ```
 * h       = fused_add_rms_norm(x; post_attention_layernorm)        [M, H]  (its launch's tokens)
 * logits  = bf16(h Wr^T)                                           [M, E]  (ReplicatedLinear: cuBLAS)
 * w, idx  = topk_softmax(float(logits), k)                         FP32, vLLM's CUDA kernel
 * w       = w / w.sum(-1)          if norm_topk_prob: reduce-kernel sum, IEEE division (FP32)
 * per (token, slot), on each rank's block of every expert's width:
 *   g|u   = bf16(h[token] W13_e^T)         Triton: acc = dot(a, b, acc) over K, one rounding
 *   a     = silu_and_mul(g|u)              vLLM's CUDA op
 *   o     = bf16(fp32(a W2_e^T) * w[token, slot])   the routing weight in FP32, then one rounding
 * y[token] = moe_sum(o[token, 0..k-1])     BF16 adds in slot order (top-k 2 to 4), else
 *                                         PyTorch's strided FP32 sum (top-k 5 to 15)
 * y       = all-reduce over the ranks of their y (one message of the launch's rows)
 *           (expert parallelism: each rank holds whole experts, a contiguous block of them, and
 *           its slots routed to other ranks' experts are zeros in its combine)
 * x'      = bf16(x + y)
 * ```
 * Each (token, slot) output is one row's K-walk: Triton folds `accumulator += tl.dot(a, b)` into
 * `dot(a, b, accumulator)` (its Combine pass), so the MMA chain runs over K in order from zero,
 * which is the `single_walk` recipe on the datapath, with no split-K; the tile configuration
 * (BLOCK_SIZE_M/N/K chosen from M, E and the device name) and `moe_align_block_size`'s
 * atomic ordering only place rows in tiles and change no value [inferred; a GPU run settles
 * it]. So the expert GEMMs' row counts do not matter and rows of different tokens never mix.
 * Modelled for the `mma.sync` lowering (sm_8x); Triton's Hopper lowering (wgmma) is not.
 *
 * @module
 */
import { isHostResourceError } from "../../errors.ts";
import { type Datapath, divF32, F32_RN } from "../../hardware/mod.ts";
import {
  addBf16,
  type ReduceStack,
  reduceSumRows,
  runGemmRecipe,
  vllmMoeSum,
  vllmSiluAndMul,
  vllmTopkSoftmax,
} from "../../kernels/mod.ts";
import { fp32ToBf16 } from "../../numerics/mod.ts";
import type { MoeConfig } from "../checkpoint/mod.ts";
import {
  type BlockRuntime,
  columnBlock,
  concatRows,
  ForwardUnsupported,
  groupRows,
  type LaunchRows,
  linearRows,
  type NormKernel,
  normRows,
  rankBlock,
  reduceRows,
  rowBlock,
  type TensorParallel,
} from "../decoder/mod.ts";
import type { ExpertWeights } from "./moe_block.ts";

/** What the fused MoE block needs besides its input. */
export interface FusedMoeBlockOptions {
  /** Hidden size. */
  readonly hidden: number;
  /** The MoE part of the configuration. */
  readonly moe: MoeConfig;
  /** Where GEMMs run (its profile's architecture must be sm_8x). */
  readonly runtime: BlockRuntime;
  /** Tensor-core datapath of the GEMMs. */
  readonly datapath: Datapath;
  /** Reduction settings of PyTorch's sum (the renormalisation). */
  readonly reduceStack: ReduceStack;
  /** The post-attention norm's kernel (vLLM: `fused_add_rms_norm`). */
  readonly normKernel: NormKernel;
  /** RMSNorm epsilon. */
  readonly eps: number;
  /** `post_attention_layernorm.weight` [H]. */
  readonly norm: Uint16Array;
  /** `mlp.gate.weight` [E, H]. */
  readonly router: Uint16Array;
  /** Loads expert e's weights (HF layouts). */
  readonly expert: (e: number) => Promise<ExpertWeights>;
  /** Each row's launch size (norm, router GEMM, renormalisation and all-reduce launches). */
  readonly launchRows: LaunchRows;
  /** Each row's place in its launch (the all-reduce order); default: one launch, in order. */
  readonly launchRow?: Int32Array | undefined;
  /** The tensor-parallel split (each rank holds a block of every expert's width); absent: one GPU. */
  readonly parallel?: TensorParallel | undefined;
}

/**
 * Runs the fused MoE block on [rows, hidden].
 *
 * @param x block input, BF16 patterns
 * @param o sizes, runtime, weights, launches
 * @returns the block output, the routing and the (token, slot) pairs each expert received
 * @throws {ForwardUnsupported} on an architecture whose Triton lowering is not modelled, a top-k
 *   whose combine is not modelled, or an uncovered router GEMM
 * @example
 * ```ts ignore
 * const r = await runFusedMoeBlock(x, { hidden, moe, runtime, datapath, ... });
 * ```
 */
export async function runFusedMoeBlock(
  x: Uint16Array,
  o: FusedMoeBlockOptions,
): Promise<{
  out: Uint16Array;
  routing: { experts: Int32Array; weights: Uint32Array };
  expertRows: Map<number, number>;
}> {
  const { hidden: h, moe, runtime } = o;
  const arch = runtime.profile.architecture;
  if (!/^sm_8\d$/.test(arch)) {
    throw new ForwardUnsupported(
      `vLLM's Triton fused_moe on ${arch}: Triton's lowering of tl.dot there (wgmma on sm_90) ` +
        "is not modelled (sm_8x's mma.sync is)",
    );
  }
  const k = moe.topK;
  if (k < 2 || k > 15) {
    throw new ForwardUnsupported(
      `vLLM's moe_sum with top-${k} is not modelled (top-k 2 to 4 run its kernel, 5 to 15 ` +
        "PyTorch's one-thread-per-output sum_out)",
    );
  }
  const m = x.length / h;
  const normed = normRows(x, {
    width: h,
    perRow: 1,
    weight: o.norm,
    runtime,
    stack: o.reduceStack,
    eps: o.eps,
    launchRows: o.launchRows,
    kernel: o.normKernel,
  });
  const logits = await linearRows(normed, {
    runtime,
    datapath: o.datapath,
    name: "router",
    n: moe.experts,
    k: h,
    weight: o.router,
    launchRows: o.launchRows,
  });
  let route: ReturnType<typeof vllmTopkSoftmax>;
  try {
    route = vllmTopkSoftmax(logits, { rows: m, experts: moe.experts, topK: k, mufu: runtime.sfu });
  } catch (e) {
    // A NaN probability (NaN router logits) is not modelled in the block kernels' ArgMax.
    if (e instanceof RangeError && !isHostResourceError(e)) {
      throw new ForwardUnsupported(`vLLM's topk_softmax: ${e.message}`);
    }
    throw e;
  }
  const weights = route.weights.slice();
  if (moe.normTopkProb) {
    // `topk_weights / topk_weights.sum(dim=-1, keepdim=True)`: [launch, k] FP32 tensors.
    for (const rows of groupRows(m, (i) => o.launchRows[i]!)) {
      const top = new Uint32Array(rows.length * k);
      rows.forEach((t, i) => top.set(weights.subarray(t * k, (t + 1) * k), i * k));
      const sums = reduceSumRows(top, {
        rows: rows.length,
        length: k,
        stack: o.reduceStack,
        launchRows: o.launchRows[rows[0]!]!,
      });
      rows.forEach((t, i) => {
        for (let s = 0; s < k; s++) weights[t * k + s] = divF32(weights[t * k + s]!, sums[i]!);
      });
    }
  }
  const tp = o.parallel;
  // Expert parallelism: whole experts per rank (contiguous blocks), else a width block of each.
  const ep = tp?.expertParallel === true;
  const local = ep ? rankBlock(moe.experts, tp, "expert count") : moe.experts;
  const fr = tp === undefined || ep
    ? moe.intermediate
    : rankBlock(moe.intermediate, tp, "MoE intermediate size");
  const pairs = new Map<number, [number, number][]>(); // expert -> (token, slot)
  for (let t = 0; t < m; t++) {
    for (let s = 0; s < k; s++) {
      const e = route.ids[t * k + s]!;
      let list = pairs.get(e);
      if (list === undefined) pairs.set(e, list = []);
      list.push([t, s]);
    }
  }
  const partials: Uint16Array[] = [];
  for (let r = 0; r < (tp?.size ?? 1); r++) {
    const cache3 = new Uint16Array(m * k * h);
    // Slots routed to another rank's experts stay zero (`write_zeros_to_output`: +0).
    const mine = (e: number) => !ep || Math.floor(e / local) === r;
    for (const e of [...pairs.keys()].filter(mine).sort((a, b) => a - b)) {
      const list = pairs.get(e)!;
      const w = await o.expert(e);
      const block = { first: r * fr, count: fr, width: h };
      const whole = tp === undefined || ep;
      const w13 = whole
        ? concatRows([w.gate, w.up])
        : concatRows([rowBlock(w.gate, block), rowBlock(w.up, block)]);
      const w2 = whole
        ? w.down
        : columnBlock(w.down, { first: r * fr, count: fr, width: moe.intermediate });
      const a = new Uint16Array(list.length * h);
      list.forEach(([t], i) => a.set(normed.subarray(t * h, (t + 1) * h), i * h));
      const walk = { family: "single_walk" } as const;
      const problem = { dp: o.datapath, walker: runtime.walker };
      const g = await runGemmRecipe(walk, {
        ...problem,
        a,
        b: w13,
        m: list.length,
        n: 2 * fr,
        k: h,
      });
      const act = vllmSiluAndMul(g.out, { d: fr, mufu: runtime.sfu });
      const d = await runGemmRecipe(walk, {
        ...problem,
        a: act,
        b: w2,
        m: list.length,
        n: h,
        k: fr,
      });
      list.forEach(([t, s], i) => {
        const weight = weights[t * k + s]!;
        const at = (t * k + s) * h;
        for (let j = 0; j < h; j++) {
          cache3[at + j] = fp32ToBf16(F32_RN.mul(d.acc[i * h + j]!, weight));
        }
      });
    }
    partials.push(vllmMoeSum(cache3, { k, hidden: h, vt0: o.reduceStack.vt0 }));
  }
  const y = tp === undefined
    ? partials[0]!
    : reduceRows(partials, { tp, width: h, launchRows: o.launchRows, launchRow: o.launchRow });
  return {
    out: addBf16(x, y),
    routing: { experts: route.ids, weights },
    expertRows: new Map([...pairs].map(([e, l]) => [e, l.length])),
  };
}
