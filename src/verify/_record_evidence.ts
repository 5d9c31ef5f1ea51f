/**
 * How each component a recomputation rested on is known (`ComponentEvidence`), as the result
 * lists it: the tensor-core datapath (its profile's `validation`), the GEMM kernels (derived from
 * source; a catalog's `verified` entries name the seed study that identified the recipe on the
 * GPU), the SFU functions (their validation status: only an exhaustive GPU comparison is a
 * measurement), the attention backend at the head dimension (the Dao build's standard
 * FlashAttention-2 kernel at head dim 128 on the A100, one sequence from its first position, is
 * checked against the seed paper's GPU-validated emulator; split and LSE launches, batches,
 * decode steps and vLLM's paged launches are derived from source), the decoder family's layer and
 * a block's operators (derived from source: their norms over the hidden size were never compared
 * where the peer is GPU-validated, see {@link PEER_COMPARISON}; a tensor-parallel layer, MoE
 * routing and experts, the other families and every vLLM layer kernel and CUDA-graph padding are
 * derived from source too), tensor parallelism and pipeline stages (derived from source), and the
 * load of weights stored as F32 or F16 (PyTorch's cast to BF16, derived from source). No component
 * above the tensor-core block is GPU-measured in this repository: the seed study measured its
 * emulator, not this one, and the one comparison with that emulator (a whole Qwen3-0.6B forward) is
 * not bundled, so no test re-checks it after a code change.
 *
 * The peer ran (spec gaps.md B.5, B.6): causal prefills of one sequence from position 0 (batch 1,
 * no varlen, no padding, no KV cache), of 32 and 250 tokens. Below 16 rows a pass's QK-norm
 * reduction tree differs between it and PyTorch (B.3; this code follows PyTorch), so such passes
 * were not checked either; nor were positions from 250 on: the peer read RoPE's cos/sin from
 * tables the GPU computed (sfu_and_math.md §6), so this code's own tables (and the attention
 * core's longer key walks) were compared with the GPU's for the first 250 positions only.
 *
 * @module
 */
import type {
  ComponentEvidence,
  Datapath,
  EvidenceLevel,
  GpuProfile,
  ProfileDatapath,
} from "../hardware/mod.ts";
import { datapathEvidenceLevel, EVIDENCE_LEVELS, sfuEvidenceLevel } from "../hardware/mod.ts";
import type { StackProfile } from "../kernels/mod.ts";
import { PEER_COMPARISON } from "./peer_comparison.ts";
import type {
  BlockRuntime,
  DecoderConfig,
  GemmDispatch,
  LoadCastDtype,
  SfuUse,
  TensorParallel,
} from "../model/mod.ts";

const SOURCE: EvidenceLevel = "derived-from-source";

/** What a record's passes were, as far as the peer's coverage goes. */
export interface PassScope {
  /** Every pass (attention launch) holds one sequence: no batch, varlen or padding. */
  readonly oneSequence: boolean;
  /** Every sequence's queries start at its first position: no cached keys (decode, chunks). */
  readonly fromStart: boolean;
  /** Rows of the smallest pass (its tokens). */
  readonly minRows: number;
  /** Rows of the largest pass: from the first position, its last position plus one. */
  readonly maxRows: number;
}

const PEER = PEER_COMPARISON;

/** Whether passes of this scope are ones the peer emulator ran (see the module doc). */
function _peerRan(scope: PassScope): boolean {
  return scope.oneSequence && scope.fromStart && scope.minRows >= PEER.minRows &&
    scope.maxRows <= PEER.maxRows;
}

/**
 * The datapath's evidence. A kernel that states its instruction (a K-walk recipe, checked against
 * the instruction catalog) ran on `dp`; a library kernel (a dispatch catalog's entry, a recipe of
 * another family) does not say whether its tensor-core instruction is `dp`'s family or another
 * family of the same formats on that GPU (Hopper's cuBLAS kernels are wgmma kernels, its older
 * ones mma): the entry then names every such datapath at the weakest of their levels. The
 * recomputation is the same for all of them only where they round alike
 * ({@link _unstatedInstructionConflict}).
 *
 * A second entry is the block size: a measured case is one block (its products and C), so it
 * shows how a block rounds but not how many products the GPU fuses beyond the case's width (a
 * model fusing more would give the same bits on every case). The block size comes from the
 * published models (Khattak & Mikaitis, MMA-Sim) and the seed study, whose whole-GEMM validations
 * on the GPU ran its emulator (spec tensor_core.md §6: 2x8 blocks on the A100). It is derived from
 * source on every GPU, the A100's BF16 datapath included: this code once gave the bits of that
 * emulator over a whole Qwen3 forward, but neither that emulator's outputs nor the seed study's
 * GEMM outputs are bundled, so no check here can tell 8 products a block from 16 (the A100's
 * bundled cases hold 8 products each, one block).
 *
 * @param profile the GPU profile
 * @param dp the datapath the GEMMs ran on
 * @param o `instructionStated`: whether the kernel names its instruction
 * @returns the datapath's entry and its block size's
 */
export function _datapathEvidence(
  profile: GpuProfile,
  dp: ProfileDatapath,
  o: { readonly instructionStated: boolean },
): ComponentEvidence[] {
  const all = o.instructionStated ? [dp] : [dp, ..._siblings(profile, dp)];
  const levels = all.map((d) => datapathEvidenceLevel(d.validation));
  const level = EVIDENCE_LEVELS.find((l) => levels.includes(l))!;
  const ids = all.map((d) => d.id).join(" or ");
  return [{
    component: `datapath ${profile.id} ${ids}` +
      (all.length > 1 ? " (the kernel does not state its instruction)" : ""),
    level,
  }, {
    component: `block size of ${profile.id} ${ids} (${
      [...new Set(all.map((d) => d.blockSize))].join(" or ")
    } products fused a block)`,
    level: SOURCE,
  }];
}

/**
 * Why a kernel's GEMMs cannot be recomputed on `dp` alone: it does not state its instruction (a
 * library kernel) and another instruction family of the same formats on that GPU rounds otherwise.
 *
 * @param profile the GPU profile
 * @param dp the datapath the GEMMs would run on
 * @param o `instructionStated`: whether the kernel names its instruction (a K-walk recipe)
 * @returns the reason, or null when the instruction is stated or every such datapath rounds as
 *   `dp` does
 */
export function _unstatedInstructionConflict(
  profile: GpuProfile,
  dp: ProfileDatapath,
  o: { readonly instructionStated: boolean },
): string | null {
  if (o.instructionStated) return null;
  const other = _siblings(profile, dp).find((d) => !_roundsAlike(d, dp));
  return other === undefined ? null : `the kernel does not state its instruction, and ` +
    `${profile.id}'s ${dp.id} and ${other.id} datapaths round differently`;
}

/** The profile's other datapaths of `dp`'s input and output formats (other families). */
function _siblings(profile: GpuProfile, dp: ProfileDatapath): ProfileDatapath[] {
  return profile.tensorCore.datapaths.filter((d) =>
    d !== dp && d.input === dp.input && d.output === dp.output
  );
}

/** Whether two datapaths give the same bits for every GEMM (the fields the block FMA reads). */
function _roundsAlike(a: Datapath, b: Datapath): boolean {
  return a.k === b.k && a.blockSize === b.blockSize && a.fracBits === b.fracBits &&
    a.resultFormat === b.resultFormat && a.rounding === b.rounding &&
    a.alignFloor === b.alignFloor && a.accumulator === b.accumulator &&
    JSON.stringify(a.chain) === JSON.stringify(b.chain);
}

/**
 * Wraps a runtime's dispatch to note whether every kernel it handed out is a recipe the seed study
 * identified on the GPU (derived from source either way: see the GEMM record's kernel evidence).
 *
 * @param runtime the runtime
 * @param kernel what the record names (`catalog <id>` or `recipe <family>`)
 * @returns the wrapped runtime and the kernels' evidence so far
 */
export function _trackedDispatch(
  runtime: BlockRuntime,
  kernel: string,
): { runtime: BlockRuntime; evidence: () => ComponentEvidence } {
  let all = true;
  const gemm: GemmDispatch = (call) => {
    const hit = runtime.gemm(call);
    if (hit.covered && hit.measured !== true) all = false;
    return hit;
  };
  return {
    runtime: { ...runtime, gemm },
    // As for a GEMM record: the seed study's GPU identification of a recipe is not a comparison
    // of this emulator's recipe code with the GPU.
    evidence: () => ({
      component: `GEMM kernels (${kernel}${
        all ? "; every recipe identified on the GPU by the seed study" : ""
      })`,
      level: SOURCE,
    }),
  };
}

/**
 * The SFU functions' evidence.
 *
 * @param uses the functions a result depended on
 * @returns one entry per function
 */
export function _sfuEvidence(uses: readonly SfuUse[]): ComponentEvidence[] {
  return uses.map((u) => ({
    component: `SFU ${u.fn} (${u.model}, ${u.status})`,
    level: sfuEvidenceLevel(u.status),
  }));
}

/**
 * The checkpoint load's evidence, where the forward read tensors stored as F32 or F16: their cast
 * to BF16 is PyTorch's `float -> bfloat16` as both loaders apply it (`castToBf16`), read from
 * PyTorch's, HF Transformers' and vLLM's source, never compared with a loaded model's parameters.
 *
 * @param cast the checkpoint's cast tensors (name -> stored dtype)
 * @returns one entry naming how many tensors of each dtype and the first, or none when every
 *   tensor is BF16
 */
export function _loadCastEvidence(
  cast: Readonly<Record<string, LoadCastDtype>>,
): ComponentEvidence[] {
  const names = Object.keys(cast).sort();
  if (names.length === 0) return [];
  const counts = (["F32", "F16"] as const)
    .map((d) => [d, names.filter((n) => cast[n] === d).length] as const)
    .filter(([, n]) => n > 0)
    .map(([d, n]) => `${n} ${d}`);
  return [{
    component: `checkpoint load: ${counts.join(" and ")} tensor(s) cast to BF16 as PyTorch's ` +
      `loaders do (nearest-even; first '${names[0]}')`,
    level: SOURCE,
  }];
}

/**
 * The attention backend's evidence at a head dimension. The peer's label rests on the one
 * recorded comparison ({@link PEER_COMPARISON}: a whole Qwen3-0.6B forward, not bundled), which
 * ran this kernel as the peer's GPU validation did (head dimension 128, one sequence from its
 * first position, the GPU's SFU tables, on the A100).
 *
 * @param stack the stack (its attention backend and SFU mode)
 * @param o head dimension, GPU profile, the SFU functions the record's launches used (which
 *   tell a split or LSE launch from the standard kernel), and the record's passes (`scope`)
 * @returns the entry
 */
export function _attentionEvidence(
  stack: StackProfile,
  o: {
    readonly headDim: number;
    readonly profile: GpuProfile;
    readonly sfu: readonly SfuUse[];
    readonly scope: PassScope;
  },
): ComponentEvidence {
  const id = stack.operators?.attention ?? "none";
  // The seed study measured its emulator's FA2 on the GPU (FA 2.8.3, the Dao wheel, causal,
  // `ops.md` §4.3), and this code matched that emulator on a whole Qwen3-0.6B forward at the same
  // head dimension: a peer check, for that build's standard kernel only: not PyTorch's bundled
  // build (the same tile table, its own compile), nor vLLM's paged launches (always the split
  // kernel). On an A100 (profile `a100`): another sm_80 part (A30) has other SM counts and no
  // capture. With the GPU's SFU tables, as the peer ran: correctly rounded ex2/rcp give other bits.
  // The standard kernel (one split): a launch that split the KV walk or wrote the log-sum-exp
  // (both take MUFU.LG2, which the standard kernel never does) ran kernels neither ever ran.
  // And one sequence from its first position: a batch (varlen offsets) or queries placed after
  // cached keys (decode steps, later chunks of a prefill) take offsets and key blocks the peer
  // never exercised.
  // And at most the peer's 250 positions: longer key walks were never compared.
  const standard = !o.sfu.some((u) => u.fn === "lg2");
  const peer = id === PEER.attention && o.headDim === PEER.headDim &&
    o.profile.id === PEER.profile && _peerSfu(stack) && standard && o.scope.oneSequence &&
    o.scope.fromStart && o.scope.maxRows <= PEER.maxRows;
  return {
    component: `attention ${id}, head dim ${o.headDim}, sm ${o.profile.computeCapability}`,
    level: peer ? "checked-against-peer" : SOURCE,
  };
}

/**
 * The decoder layer's evidence: the family's wiring, the stack's layer kernels and CUDA-graph
 * padding (when not HF's eager PyTorch), MoE routing and experts, tensor parallelism, and pipeline
 * stages (taken to move activations by copies, which change no bit: a reading of the frameworks'
 * source, never compared with a pipelined run). The layer is derived from source everywhere: its
 * norms over the hidden size were never compared where the peer is GPU-validated
 * ({@link PEER_COMPARISON}); where the layer is otherwise one the comparison ran, its entry names
 * the comparison. The peer emulator ran one GPU's layer: a tensor-parallel layer (per-rank shapes,
 * BF16 partials, the all-reduce) is no such layer.
 *
 * @param c the model description
 * @param o the stack (its layer kernels and CUDA graphs), the tensor-parallel split, if any, and
 *   whether the record named its all-reduce (`allReduceStated`: at two ranks it may leave it out,
 *   and the split then holds the verifier's default), the pipeline stages (`pp`, default 1), the
 *   GPU profile and the record's passes (`scope`)
 * @returns the entries
 */
export function _layerEvidence(
  c: DecoderConfig,
  o: {
    readonly stack: StackProfile;
    readonly parallel: TensorParallel | undefined;
    readonly allReduceStated: boolean;
    readonly pp?: number;
    readonly profile: GpuProfile;
    readonly scope: PassScope;
  },
): ComponentEvidence[] {
  const { parallel } = o;
  const ops = o.stack.operators;
  const kernels = ops?.layerKernels ?? "torch";
  // The layer the comparison ran, but for its hidden size: Qwen3, dense (the peer has no MoE
  // block), no linear biases, the default RoPE at theta 1e6, head dim 128, HF's eager PyTorch
  // kernels with the GPU's SFU tables, on the A100, in the peer's passes, on one GPU (the peer
  // never ran a rank's shapes, its BF16 partials or an all-reduce).
  const biased = c.bias.qkv || c.bias.o || c.bias.mlp;
  const compared = c.modelType === "qwen3" && c.moe === undefined && kernels === "torch" &&
    _peerSfu(o.stack) && c.headDim === PEER.headDim && c.ropeTheta === PEER.ropeTheta &&
    o.profile.id === PEER.profile && !biased && c.ropeScaling === undefined &&
    _peerRan(o.scope) && parallel === undefined;
  const out: ComponentEvidence[] = [{
    component: `decoder layer (${c.modelType}, head dim ${c.headDim}, ${o.profile.id}` +
      (compared ? `; ${_normsNote(c.hidden)}` : "") + ")",
    level: SOURCE,
  }];
  if (kernels !== "torch") {
    out.push({ component: `layer kernels ${kernels} (norms, RoPE, activation)`, level: SOURCE });
  }
  if (ops?.cudaGraphs !== undefined) {
    out.push({ component: `CUDA graphs ${ops.cudaGraphs.mode} (padded launches)`, level: SOURCE });
  }
  if (c.moe !== undefined) out.push({ component: "MoE routing and experts", level: SOURCE });
  if (parallel !== undefined) {
    // An all-reduce the record left out (two ranks) is not one it stated: the split holds the
    // verifier's default, which gives the same bits as any other there.
    const allReduce = o.allReduceStated
      ? parallel.allReduce.kind
      : `all-reduce not stated: the verifier ran ${parallel.allReduce.kind}, its default for ` +
        "two ranks, where every implementation adds once and rounds once";
    out.push({
      component: `tensor parallelism tp=${parallel.size} (${parallel.layout.id}, ${allReduce})`,
      level: SOURCE,
    });
  }
  if ((o.pp ?? 1) > 1) {
    out.push({ component: `pipeline parallelism pp=${o.pp} (stage copies)`, level: SOURCE });
  }
  return out;
}

/**
 * A decoder record's evidence beyond its runtime's GEMM entries, as both decoder branches (a
 * model forward and a served sequence) list it: the checkpoint load's cast
 * ({@link _loadCastEvidence}), the SFU functions ({@link _sfuEvidence}), the attention backend
 * ({@link _attentionEvidence}) and the layer ({@link _layerEvidence}).
 *
 * @param c the model description
 * @param o the record's stack and GPU profile, the checkpoint's cast tensors, the SFU functions
 *   the forward used, the tensor-parallel split (if any), whether the record named its all-reduce,
 *   its pipeline stages and passes (`scope`)
 * @returns the entries, in that order
 */
export function _decoderEvidence(
  c: DecoderConfig,
  o: {
    readonly stack: StackProfile;
    readonly profile: GpuProfile;
    readonly cast: Readonly<Record<string, LoadCastDtype>>;
    readonly sfu: readonly SfuUse[];
    readonly parallel: TensorParallel | undefined;
    readonly allReduceStated: boolean;
    readonly pp: number;
    readonly scope: PassScope;
  },
): ComponentEvidence[] {
  return [
    ..._loadCastEvidence(o.cast),
    ..._sfuEvidence(o.sfu),
    _attentionEvidence(o.stack, { ...o, headDim: c.headDim }),
    ..._layerEvidence(c, o),
  ];
}

/**
 * The PyTorch operators a transformer block record runs around its GEMMs, SFU functions and
 * attention (RMSNorm, SiLU x mul for an FFN block; RMSNorm, QK-norm and RoPE for an attention
 * block). Both kinds start with the RMSNorm over the hidden size, never compared where the peer
 * is GPU-validated ({@link PEER_COMPARISON}): derived from source, the entry naming the comparison
 * where the block is otherwise one it ran.
 *
 * @param kind the block's workload kind
 * @param stack the stack (its layer kernels and SFU mode)
 * @param o the GPU profile, the block's tokens and hidden size; for an attention block its head
 *   dimension and RoPE (`theta`, or null for recorded frequencies)
 * @returns the entry
 */
export function _blockOperatorEvidence(
  kind: "ffn_block" | "attention_block",
  stack: StackProfile,
  o: {
    readonly profile: GpuProfile;
    readonly tokens: number;
    readonly hidden: number;
    readonly headDim?: number;
    readonly ropeTheta?: number | null;
  },
): ComponentEvidence {
  const kernels = stack.operators?.layerKernels ?? "torch";
  const ops = kind === "ffn_block" ? "RMSNorm, SiLU x mul" : "RMSNorm, QK-norm, RoPE";
  // As the decoder layer: the block the comparison ran, but for its hidden size: on the A100 with
  // the GPU's SFU tables, over the peer's passes of 16 to 250 rows (its QK-norm tree is
  // PyTorch's from 16 rows on; RoPE's tables beyond 250 positions were never compared), attention
  // at head dim 128 with the default RoPE at theta 1e6.
  const rows = o.tokens >= PEER.minRows && o.tokens <= PEER.maxRows;
  const compared = kernels === "torch" && _peerSfu(stack) && o.profile.id === PEER.profile &&
    rows &&
    (kind === "ffn_block" ||
      o.headDim === PEER.headDim && o.ropeTheta === Number(PEER.ropeTheta));
  return {
    component: `block operators ${ops} (${kernels} kernels, ${o.profile.id}` +
      (compared ? `; ${_normsNote(o.hidden)}` : "") + ")",
    level: SOURCE,
  };
}

/**
 * What the entry of a layer or block the peer comparison ran, but for its norms, says of them (in
 * a component's 200 characters: the hidden size of a block record is at most 2^20).
 *
 * @param hidden the record's hidden size
 * @returns the note
 */
function _normsNote(hidden: number): string {
  const { compared } = PEER;
  return hidden === compared.hidden
    ? `RMSNorm at hidden ${hidden} derived: the one peer comparison (a ${compared.model} ` +
      "forward, not bundled) ran where the peer's norms are not the GPU's"
    : `RMSNorm at hidden ${hidden} derived: the one comparison with the GPU-validated peer ` +
      `(a ${compared.model} forward, not bundled) ran at hidden ${compared.hidden}`;
}

/**
 * Whether a stack computes the SFU functions as the peer did (the GPU's tables): a stack of
 * correctly rounded SFU results (`ieee`) gives other bits on the same operators.
 */
function _peerSfu(stack: StackProfile): boolean {
  return (stack.sfu?.mode ?? "tesla-table") === "tesla-table";
}
