/**
 * Tensor-parallel layouts a software stack can name (`operators.tensorParallel`), as data: how
 * the stack splits a decoder layer over ranks and where it all-reduces. Every layout here is
 * derived from source only: no multi-GPU measurement exists yet.
 *
 * `hf-tp-plan`: HF Transformers 4.5x `from_pretrained(..., tp_plan="auto")` with the models'
 * `base_model_tp_plan` (Qwen3, Qwen3-MoE, Llama, Qwen2, Mistral configs: q/k/v, gate/up and each
 * expert's gate/up `colwise`; o_proj, down_proj and each expert's down_proj `rowwise`; no entry for
 * `embed_tokens`, so the embedding is replicated) and the `RowwiseParallel` hooks of
 * `integrations/tensor_parallel.py`: the row-parallel GEMM runs without its bias, its BF16 output
 * is all-reduced by `torch.distributed` (NCCL), then the bias is added as a BF16 tensor add. A
 * colwise weight is split into contiguous row blocks (heads stay whole only when the rank count
 * divides the head counts, which is required). Qwen3-MoE experts: each expert's down_proj output
 * is all-reduced on its own (message = the expert's routed rows), before the routing weight and
 * `index_add_`. Expert parallelism is not part of the 4.5x plans.
 *
 * `vllm-megatron`: vLLM 0.11's parallel linear layers (spec `parallel_and_vllm.md` §A1, §A3,
 * §A4): `QKVParallelLinear` and `MergedColumnParallelLinear` hold each rank's block of every
 * logical output (its q, k and v heads; its gate and up rows) in one GEMM; `RowParallelLinear`
 * adds the bias in rank 0's GEMM only, before the all-reduce of the BF16 partials; KV heads are
 * replicated when the ranks outnumber them; `VocabParallelEmbedding` gives each rank a vocabulary
 * block and all-reduces the masked lookups (one value plus exact zeros: a -0 entry becomes +0);
 * `ParallelLMHead` gathers the ranks' logits blocks; fused MoE all-reduces the combined experts
 * once; with `--enable-expert-parallel` (ep = tp) each rank holds whole experts instead
 * (`determine_expert_map`: contiguous blocks) and writes zeros for slots routed elsewhere
 * (`fused_moe.py:161-165, 377-381`), before the same all-reduce. All-reduce through vLLM's custom
 * kernel or NCCL.
 *
 * @module
 */
import type { ModelledAllReduceKind } from "./allreduce/mod.ts";

/** Layout ids a stack profile can name. */
export const TENSOR_PARALLEL_LAYOUT_IDS = ["hf-tp-plan", "vllm-megatron"] as const;
Object.freeze(TENSOR_PARALLEL_LAYOUT_IDS);

/** One of {@link TENSOR_PARALLEL_LAYOUT_IDS}. */
export type TensorParallelLayoutId = typeof TENSOR_PARALLEL_LAYOUT_IDS[number];

/** How a stack splits a decoder layer over tensor-parallel ranks. */
export interface TensorParallelLayout {
  /** The layout id. */
  readonly id: TensorParallelLayoutId;
  /**
   * The bias of a row-parallel projection: added as a BF16 add after the all-reduce (HF), or in
   * rank 0's GEMM epilogue before it.
   */
  readonly rowParallelBias: "after-all-reduce" | "rank0-epilogue";
  /** KV heads when the rank count exceeds them: the rank count must divide them, or replicate. */
  readonly kvHeads: "divide" | "replicate";
  /**
   * How a dimension is cut into the ranks' blocks. `divide`: vLLM's `divide()`, which asserts
   * that the ranks divide it (vLLM 0.11 `linear.py:452-457` gate/up, `:901-907` q/k/v heads; the
   * models assert the head counts at start-up, `qwen3.py:77-87`, and the engine refuses heads
   * the ranks do not divide, `config/model.py:1074-1078`), so a split of a head count, the dense
   * intermediate size or the padded vocabulary that does not divide never starts. `chunk`: HF's
   * `get_tensor_shard` (`integrations/tensor_parallel.py:355`, 4.57), blocks of ceil(size /
   * ranks) rows with the last ones shorter: an uneven MLP split runs (not modelled), but a q/k/v
   * block that cuts a head cannot be viewed as heads (`modeling_qwen3.py:200-202`
   * `view(*input_shape, -1, head_dim)`), and rank 0's block of ceil(heads x head_dim / ranks) rows
   * is whole heads only when the ranks divide the heads (for a head dimension of at least the
   * rank count).
   */
  readonly shards: "divide" | "chunk";
  /**
   * A vocabulary-parallel embedding splits the vocabulary padded to a multiple of this (vLLM's
   * `pad_vocab_size`, 64: `vocab_parallel_embedding.py:60-63`, cut by `divide` at `:263`); 1 where
   * the embedding is replicated.
   */
  readonly vocabPadding: number;
  /**
   * The token embedding: every rank holds the whole table, or a vocabulary block whose masked
   * lookups are all-reduced (exact, except that -0 becomes +0).
   */
  readonly embedding: "replicated" | "vocab-parallel";
  /**
   * MoE experts under TP: each expert's down_proj output all-reduced on its own (HF rowwise on
   * every expert), or the experts' combined output all-reduced once.
   */
  readonly moe: "per-expert-all-reduce" | "after-combine";
  /** All-reduce implementations the stack's collective library can run. */
  readonly allReduce: readonly ModelledAllReduceKind[];
  /**
   * Expert parallelism: null when modelled (with ep = tp, no data parallelism), else why not.
   */
  readonly expertParallel: string | null;
  /** How the layout is known. */
  readonly evidence: "derived-from-source";
  /** Where the facts come from. */
  readonly sources: readonly string[];
}

const _LAYOUTS: Readonly<Record<TensorParallelLayoutId, TensorParallelLayout>> = Object.freeze({
  "hf-tp-plan": Object.freeze({
    id: "hf-tp-plan",
    rowParallelBias: "after-all-reduce",
    kvHeads: "divide",
    shards: "chunk",
    vocabPadding: 1,
    embedding: "replicated",
    moe: "per-expert-all-reduce",
    allReduce: Object.freeze(["nccl-ring", "nccl-tree"] as const),
    expertParallel: "HF Transformers 4.5x tp_plan has no expert-parallel entries (experts are " +
      "split column/row-wise over the TP ranks); expert parallelism is not modelled",
    evidence: "derived-from-source",
    sources: Object.freeze([
      "transformers 4.5x configuration_{qwen3,qwen3_moe,llama,qwen2,mistral}.py base_model_tp_plan",
      "transformers integrations/tensor_parallel.py ColwiseParallel / RowwiseParallel " +
      "(_prepare_input_fn moves the bias aside, _prepare_output_fn all-reduces then adds it)",
      "transformers 4.57 integrations/tensor_parallel.py:355 get_tensor_shard (blocks of " +
      "ceil(size / ranks) rows) and modeling_qwen3.py:200-202 (q/k/v viewed as whole heads)",
      "torch.distributed all_reduce on ProcessGroupNCCL (spec parallel_and_vllm.md §A2.3)",
    ]),
  }),
  "vllm-megatron": Object.freeze({
    id: "vllm-megatron",
    rowParallelBias: "rank0-epilogue",
    kvHeads: "replicate",
    shards: "divide",
    vocabPadding: 64,
    embedding: "vocab-parallel",
    moe: "after-combine",
    allReduce: Object.freeze(
      ["vllm-custom-1stage", "vllm-custom-2stage", "nccl-ring", "nccl-tree"] as const,
    ),
    // --enable-expert-parallel without data parallelism (ep = tp, fused MoE's expert map and
    // zero rows, then the same all-reduce); ep = tp x dp with data parallelism (all-to-all
    // dispatch) is refused as not modelled where the topology is resolved, and any other ep is
    // no vLLM run (`vllmExpertParallelContradiction`).
    expertParallel: null,
    evidence: "derived-from-source",
    sources: Object.freeze([
      "vLLM 0.11 vllm/model_executor/layers/linear.py (QKVParallelLinear :899-915, " +
      "MergedColumnParallelLinear :453-457, RowParallelLinear :1340-1368: bias on tp_rank 0 only)",
      "vllm/model_executor/layers/vocab_parallel_embedding.py (masked lookup, all-reduce; " +
      "ParallelLMHead gathered by logits_processor.py:83-99)",
      "vllm/model_executor/layers/fused_moe/layer.py:1797-1806 (one all-reduce after the combine)",
      "vllm/model_executor/models/qwen3.py:77-87 and config/model.py:1074-1078 (heads the ranks " +
      "divide; KV heads they divide or, when fewer, that divide them), " +
      "vocab_parallel_embedding.py:60-63, :263 (the vocabulary padded to 64, then divided)",
    ]),
  }),
});

/**
 * The layout of an id.
 *
 * @param id a layout id
 * @returns the layout
 * @throws {RangeError} for an unknown id
 * @example
 * ```ts
 * import { tensorParallelLayout } from "./tensor_parallel_layout.ts";
 * if (tensorParallelLayout("hf-tp-plan").rowParallelBias !== "after-all-reduce") throw new Error();
 * ```
 */
export function tensorParallelLayout(id: string): TensorParallelLayout {
  const l = (_LAYOUTS as Readonly<Record<string, TensorParallelLayout>>)[id];
  if (l === undefined) throw new RangeError(`Cannot find tensor-parallel layout '${id}'`);
  return l;
}
