import assert from "node:assert/strict";
import { findDatapath, parseGpuProfile, sfuEvidenceLevel } from "../../src/hardware/mod.ts";
import { parseStackProfile, tensorParallelLayout } from "../../src/kernels/mod.ts";
import {
  _attentionEvidence,
  _blockOperatorEvidence,
  _datapathEvidence,
  _layerEvidence,
  _loadCastEvidence,
  _unstatedInstructionConflict,
} from "../../src/verify/_record_evidence.ts";
import { _MAX_COMPONENT } from "../../src/verify/_stop.ts";
import { parseDecoderConfig, type SfuUse } from "../../src/model/mod.ts";

const ROOT = new URL("../../", import.meta.url);
const json = (path: string) => JSON.parse(Deno.readTextFileSync(new URL(path, ROOT)));
const stack = parseStackProfile(json("profiles/stack/cutlass-3.5-hf-flash-attn.json"));
const gpu = (id: string) => parseGpuProfile(json(`profiles/gpu/${id}.json`));
/** A prefill of one 250-token sequence from position 0, as the peer ran. */
const PREFILL = { oneSequence: true, fromStart: true, minRows: 250, maxRows: 250 };

/** Whether a layer or block entry names the one comparison with the peer (Qwen3-0.6B). */
const namesComparison = (e: { component: string }) => /Qwen3-0\.6B forward/.test(e.component);

Deno.test("the FA2 attention backend is checked against the GPU-validated peer on the A100 only, never called a measurement of this code", () => {
  const at = (id: string) =>
    _attentionEvidence(stack, { headDim: 128, profile: gpu(id), sfu: [], scope: PREFILL }).level;
  assert.equal(at("a100"), "checked-against-peer");
  assert.equal(gpu("a30").computeCapability, "8.0");
  assert.equal(at("a30"), "derived-from-source");
});

Deno.test("the peer ran one sequence per launch: a batch (varlen offsets) is derived from source", () => {
  const scope = { ...PREFILL, oneSequence: false };
  assert.equal(
    _attentionEvidence(stack, { headDim: 128, profile: gpu("a100"), sfu: [], scope }).level,
    "derived-from-source",
  );
});

Deno.test("the peer ran at most 250 positions: a longer prefill's attention is derived from source", () => {
  const level = (maxRows: number) =>
    _attentionEvidence(stack, {
      headDim: 128,
      profile: gpu("a100"),
      sfu: [],
      scope: { ...PREFILL, minRows: maxRows, maxRows },
    }).level;
  assert.equal(level(250), "checked-against-peer");
  assert.equal(level(251), "derived-from-source");
});

Deno.test("a launch that split the KV walk (MUFU.LG2 in its SFU uses) is not the measured standard kernel", () => {
  const lg2 = { fn: "lg2", model: "tesla-table", status: "model-only" } as unknown as SfuUse;
  assert.equal(
    _attentionEvidence(stack, { headDim: 128, profile: gpu("a100"), sfu: [lg2], scope: PREFILL })
      .level,
    "derived-from-source",
  );
});

Deno.test("the measurement is of the Dao wheel: PyTorch's bundled FA2 (no fast-math) is derived from source", () => {
  assert.equal(stack.operators?.attention, "fa2-dao-fastmath");
  const bundled = parseStackProfile({
    ...json("profiles/stack/cutlass-3.5-hf-flash-attn.json"),
    operators: { ...stack.operators!, attention: "fa2-pytorch-bundled" },
  });
  assert.equal(
    _attentionEvidence(bundled, { headDim: 128, profile: gpu("a100"), sfu: [], scope: PREFILL })
      .level,
    "derived-from-source",
  );
});

Deno.test("the peer's FA2 ran the GPU's SFU tables: the Dao kernel on a stack of correctly rounded SFU results is derived from source", () => {
  const ieee = parseStackProfile({
    ...json("profiles/stack/cutlass-3.5-hf-flash-attn.json"),
    sfu: { mode: "ieee", minimumStatus: "ieee-exact" },
  });
  assert.equal(ieee.operators?.attention, "fa2-dao-fastmath");
  assert.equal(
    _attentionEvidence(ieee, { headDim: 128, profile: gpu("a100"), sfu: [], scope: PREFILL })
      .level,
    "derived-from-source",
  );
});

Deno.test("a block record's PyTorch operators are derived from source for both kinds at every hidden size: their RMSNorm over the hidden size was never compared where the peer is GPU-validated", () => {
  // Review h107 F1/F2: an attention block (its input RMSNorm is over the hidden size) was labelled
  // checked-against-peer at any hidden size, and both kinds at 2560, where nothing was compared.
  const peerShape = { headDim: 128, ropeTheta: 1e6 };
  // The same input RMSNorm over hidden size 64, in an attention block and in an FFN block.
  const at64 = (kind: "ffn_block" | "attention_block") =>
    _blockOperatorEvidence(kind, stack, {
      profile: gpu("a100"),
      tokens: 16,
      hidden: 64,
      ...peerShape,
    }).level;
  assert.equal(at64("attention_block"), at64("ffn_block"));
  for (const kind of ["ffn_block", "attention_block"] as const) {
    for (const hidden of [64, 1024, 2560, 4096]) {
      const e = _blockOperatorEvidence(kind, stack, {
        profile: gpu("a100"),
        tokens: 16,
        hidden,
        ...peerShape,
      });
      assert.equal(e.level, "derived-from-source", `${kind} at ${hidden}`);
      assert.match(e.component, kind === "ffn_block" ? /RMSNorm, SiLU x mul/ : /QK-norm, RoPE/);
      // The block the comparison ran but for its width: the entry names the comparison.
      assert.match(
        e.component,
        hidden === 1024
          ? /RMSNorm at hidden 1024 derived: .*Qwen3-0\.6B forward, not bundled\) ran where the peer's norms are not the GPU's\)$/
          : new RegExp(
            `RMSNorm at hidden ${hidden} derived: .*Qwen3-0\\.6B forward, not bundled\\) ran at ` +
              "hidden 1024\\)$",
          ),
      );
    }
    // Whole, within what a result keeps of a component (a block's hidden size is at most 2^20).
    const widest = _blockOperatorEvidence(kind, stack, {
      profile: gpu("a100"),
      tokens: 16,
      hidden: 1 << 20,
      ...peerShape,
    });
    assert.ok(namesComparison(widest));
    assert.ok(widest.component.length <= _MAX_COMPONENT, widest.component);
    // Another GPU, an attention block at another head dimension or RoPE, a pass the peer never
    // ran, or a stack of correctly rounded SFU results: no comparison to name.
    const other = (
      o: { headDim?: number; ropeTheta?: number | null; tokens?: number; id?: string },
      s = stack,
    ) =>
      _blockOperatorEvidence(kind, s, {
        profile: gpu(o.id ?? "a100"),
        tokens: o.tokens ?? 16,
        hidden: 2560,
        ...peerShape,
        ...o,
      });
    const ieee = parseStackProfile(json("profiles/stack/cutlass-3.5-strict-ieee.json"));
    const cases = [
      other({ id: "h100-sxm" }),
      other({ tokens: 4 }),
      other({ tokens: 251 }),
      other({}, ieee),
    ];
    if (kind === "attention_block") {
      cases.push(other({ headDim: 64 }));
      for (const ropeTheta of [1e4, 5e5, null]) cases.push(other({ ropeTheta }));
    }
    for (const e of cases) {
      assert.equal(e.level, "derived-from-source", e.component);
      assert.doesNotMatch(e.component, /Qwen3-0\.6B/, e.component);
    }
  }
});

Deno.test("only an exhaustive GPU comparison makes an SFU function measured", () => {
  assert.equal(sfuEvidenceLevel("exhaustive-on-gpu"), "measured-on-gpu");
  // Statistics or a few outputs against the GPU are no bit-identity: derived, the status named.
  assert.equal(sfuEvidenceLevel("spot-checked"), "derived-from-source");
  assert.equal(sfuEvidenceLevel("histogram-matched"), "derived-from-source");
  assert.equal(sfuEvidenceLevel("model-only"), "derived-from-source");
  assert.equal(sfuEvidenceLevel("ieee-exact"), "derived-from-source");
});

Deno.test("the decoder layer is derived from source at every hidden size (its norms were never compared where the peer is GPU-validated), naming the comparison only where the layer is otherwise the one it ran", () => {
  // Review h107 F2: Qwen3-4B's layer (hidden 2560) was labelled checked-against-peer, although
  // the one comparison ran Qwen3-0.6B (hidden 1024) and nothing was compared at 2560.
  const qwen3 = json("profiles/models/qwen3-4b.config.json");
  const hf = parseStackProfile(json("profiles/stack/hf-qwen3-flash-attn-torch2.8.json"));
  const layer = (config: Record<string, unknown>) =>
    _layerEvidence(parseDecoderConfig(config), {
      stack: hf,
      parallel: undefined,
      allReduceStated: false,
      profile: gpu("a100"),
      scope: PREFILL,
    })[0]!;
  for (const config of [qwen3, json("profiles/models/qwen3-0.6b.config.json")]) {
    const e = layer(config);
    assert.equal(e.level, "derived-from-source", e.component);
    assert.ok(namesComparison(e), e.component);
    assert.match(e.component, new RegExp(`RMSNorm at hidden ${config.hidden_size} derived`));
    assert.ok(e.component.length <= _MAX_COMPONENT, e.component);
  }
  const biased = layer({ ...qwen3, attention_bias: true });
  const scaled = layer({ ...qwen3, rope_scaling: { rope_type: "linear", factor: 4.0 } });
  // Qwen3-MoE at the peer's head dimension and GPU: the peer has no MoE block.
  const moeConfig = json("profiles/models/qwen3-30b-a3b.config.json");
  assert.equal(moeConfig.head_dim, 128);
  for (const e of [biased, scaled, layer(moeConfig)]) {
    assert.equal(e.level, "derived-from-source");
    assert.ok(!namesComparison(e), e.component);
  }
});

Deno.test("queries placed after cached keys (decode steps, later chunks) are not the peer's prefill launches", () => {
  const at = (fromStart: boolean) =>
    _attentionEvidence(stack, {
      headDim: 128,
      profile: gpu("a100"),
      sfu: [],
      scope: { ...PREFILL, fromStart },
    }).level;
  assert.equal(at(true), "checked-against-peer");
  assert.equal(at(false), "derived-from-source");
});

Deno.test("the layer names the comparison only for passes the peer ran: one sequence from position 0, 16 to 250 rows", () => {
  const qwen3 = parseDecoderConfig(json("profiles/models/qwen3-4b.config.json"));
  const hf = parseStackProfile(json("profiles/stack/hf-qwen3-flash-attn-torch2.8.json"));
  const layer = (scope: typeof PREFILL) =>
    _layerEvidence(qwen3, {
      stack: hf,
      parallel: undefined,
      allReduceStated: false,
      profile: gpu("a100"),
      scope,
    })[0]!;
  for (const scope of [PREFILL, { ...PREFILL, minRows: 16 }]) {
    assert.equal(layer(scope).level, "derived-from-source");
    assert.ok(namesComparison(layer(scope)));
  }
  for (
    const scope of [
      // Past the peer's 250 positions: RoPE's tables there were never compared with the GPU's
      // (the peer read the GPU's own), nor the attention core's longer key walks.
      { ...PREFILL, maxRows: 251 },
      { ...PREFILL, maxRows: 4000 },
      // Below 16 rows the peer's QK-norm tree is not PyTorch's (spec gaps.md B.3).
      { ...PREFILL, minRows: 15 },
      { ...PREFILL, oneSequence: false },
      // Decode steps: the peer ran none.
      { ...PREFILL, fromStart: false },
    ]
  ) {
    assert.equal(layer(scope).level, "derived-from-source");
    assert.ok(!namesComparison(layer(scope)), JSON.stringify(scope));
  }
  // The layer at another RoPE theta, or on the strict-IEEE stack (review h90).
  const at = (config: typeof qwen3, s: typeof hf) =>
    _layerEvidence(config, {
      stack: s,
      parallel: undefined,
      allReduceStated: false,
      profile: gpu("a100"),
      scope: PREFILL,
    })[0]!;
  const theta = parseDecoderConfig({
    ...json("profiles/models/qwen3-4b.config.json"),
    rope_theta: 10000,
  });
  const ieee = parseStackProfile(json("profiles/stack/cutlass-3.5-strict-ieee.json"));
  for (const e of [at(theta, hf), at(qwen3, ieee)]) {
    assert.equal(e.level, "derived-from-source");
    assert.ok(!namesComparison(e), e.component);
  }
});

Deno.test("a measured case is one block: the block size beyond it is derived from source on every GPU, the A100's BF16 datapath included (no peer output is bundled to check it)", () => {
  const block = (id: string, input: "bf16" | "tf32") => {
    const g = gpu(id);
    const dp = findDatapath(g, { input, output: "fp32" })!;
    const [datapath, size] = _datapathEvidence(g, dp, { instructionStated: true });
    assert.equal(datapath!.level, "measured-on-gpu", `${id} ${input}`);
    assert.match(
      size!.component,
      new RegExp(`^block size of ${id} .* \\(${dp.blockSize} products`),
    );
    return size!.level;
  };
  // The whole-forward comparison with the seed paper's emulator is not bundled: no test here
  // fails if the A100 fused 16 products a block, so the block size is not labelled the peer's.
  assert.equal(block("a100", "bf16"), "derived-from-source");
  assert.equal(block("h100-sxm", "bf16"), "derived-from-source");
  assert.equal(block("h100-sxm", "tf32"), "derived-from-source");
  assert.equal(block("a100", "tf32"), "derived-from-source");
});

Deno.test("a kernel that does not state its instruction is known as its least known datapath of those formats", () => {
  const h100 = gpu("h100-sxm");
  const mma = findDatapath(h100, { input: "bf16", output: "fp32" })!;
  const [stated] = _datapathEvidence(h100, mma, { instructionStated: true });
  assert.deepEqual(stated, {
    component: "datapath h100-sxm mma-bf16-fp32",
    level: "measured-on-gpu",
  });
  // A cuBLAS kernel on Hopper may be a wgmma kernel, whose datapath is derived from source only.
  const [unstated] = _datapathEvidence(h100, mma, { instructionStated: false });
  assert.equal(unstated!.level, "derived-from-source");
  assert.match(unstated!.component, /mma-bf16-fp32 or wgmma-bf16-fp32/);
  assert.equal(
    _unstatedInstructionConflict(h100, mma, { instructionStated: false }),
    null,
    "the two round alike",
  );
  // An A100 has one instruction family: nothing else to name.
  const a100 = gpu("a100");
  const a100Mma = findDatapath(a100, { input: "bf16", output: "fp32" })!;
  assert.equal(
    _datapathEvidence(a100, a100Mma, { instructionStated: false })[0]!.level,
    "measured-on-gpu",
  );
  // Where the families round differently (FP8 on Hopper), the recomputation would be a guess.
  const e4m3 = findDatapath(h100, { input: "e4m3", output: "fp32" })!;
  assert.match(
    _unstatedInstructionConflict(h100, e4m3, { instructionStated: false }) ?? "",
    /round differently/,
  );
  assert.equal(_unstatedInstructionConflict(h100, e4m3, { instructionStated: true }), null);
});

Deno.test("under tensor parallelism the decoder layer is derived from source (the peer ran one GPU), and an all-reduce the record left out is named as the verifier's default, not as stated", () => {
  // Review h60 F4.
  const qwen3 = parseDecoderConfig(json("profiles/models/qwen3-4b.config.json"));
  const hf = parseStackProfile(json("profiles/stack/hf-qwen3-flash-attn-torch2.8.json"));
  const layout = tensorParallelLayout("hf-tp-plan");
  const tree = {
    kind: "nccl-tree",
    protocol: "simple",
    trees: [{ down: [[1], [2], [3], []] }],
  };
  const ring2 = { kind: "nccl-ring", protocol: "simple", chunkBytes: 1 << 21, rings: [[0, 1]] };
  const evidence = (parallel: Record<string, unknown> | undefined, allReduceStated: boolean) =>
    _layerEvidence(qwen3, {
      stack: hf,
      parallel: parallel as never,
      allReduceStated,
      profile: gpu("a100"),
      scope: PREFILL,
    });
  assert.ok(namesComparison(evidence(undefined, false)[0]!));
  const tp4 = evidence({ size: 4, layout, allReduce: tree }, true);
  assert.equal(tp4[0]!.level, "derived-from-source");
  assert.ok(!namesComparison(tp4[0]!), "the comparison ran one GPU");
  assert.deepEqual(tp4[1], {
    component: "tensor parallelism tp=4 (hf-tp-plan, nccl-tree)",
    level: "derived-from-source",
  });
  const unnamed = evidence({ size: 2, layout, allReduce: ring2 }, false);
  assert.equal(unnamed[0]!.level, "derived-from-source");
  assert.match(
    unnamed[1]!.component,
    /^tensor parallelism tp=2 \(hf-tp-plan, all-reduce not stated: the verifier ran nccl-ring, its default for two ranks/,
  );
  assert.equal(
    evidence({ size: 2, layout, allReduce: ring2 }, true)[1]!.component,
    "tensor parallelism tp=2 (hf-tp-plan, nccl-ring)",
  );
});

Deno.test("the cast of weights stored as F32 or F16 is labelled derived from source, and nothing is listed without one", () => {
  assert.deepEqual(_loadCastEvidence({}), []);
  const [e, ...rest] = _loadCastEvidence({
    "model.norm.weight": "F32",
    "model.layers.0.input_layernorm.weight": "F16",
    "model.embed_tokens.weight": "F32",
  });
  assert.equal(rest.length, 0);
  assert.equal(e!.level, "derived-from-source");
  assert.equal(
    e!.component,
    "checkpoint load: 2 F32 and 1 F16 tensor(s) cast to BF16 as PyTorch's loaders do " +
      "(nearest-even; first 'model.embed_tokens.weight')",
  );
});
