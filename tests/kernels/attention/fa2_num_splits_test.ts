import assert from "node:assert/strict";
import { INSTRUCTION_CATALOG } from "../../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_HDIM128_TILES,
  FA2_PYTORCH_BUNDLED,
  FA2_SPLIT_TILES,
  fa2Build,
  fa2NumSplits,
  fa2Tiles,
} from "../../../src/kernels/attention/mod.ts";

// Qwen3-4B: 32 query heads, 8 KV heads, head dim 128, batch 1 (spec stack_pytorch_hf.md §4.1).
const qwen = { batch: 1, heads: 32, kvHeads: 8, headDim: 128 };
const A100 = 108, H100 = 132;
const prefill = (s: number, sms: number) =>
  fa2NumSplits({ ...qwen, seqlenQ: s, seqlenK: s, multiProcessorCount: sms });
const decode = (s: number, sms: number) =>
  fa2NumSplits({ ...qwen, seqlenQ: 1, seqlenK: s, multiProcessorCount: sms });

Deno.test("fa2NumSplits() reproduces the spec's Qwen3-4B prefill table", () => {
  for (const s of [1, 64, 128, 193, 256, 321, 500, 1199]) {
    assert.equal(prefill(s, A100), 1, `A100 ${s}`);
  }
  for (const s of [129, 150, 192]) assert.equal(prefill(s, A100), 2, `A100 ${s}`);
  for (const s of [128, 321, 500, 4000]) assert.equal(prefill(s, H100), 1, `H100 ${s}`);
  for (const s of [129, 192, 193, 256]) assert.equal(prefill(s, H100), 2, `H100 ${s}`);
  for (const s of [257, 300, 320]) assert.equal(prefill(s, H100), 3, `H100 ${s}`);
});

Deno.test("fa2NumSplits() reproduces the spec's decode split counts (GQA swap)", () => {
  const table: [number, number, number][] = [
    [100, 1, 1],
    [500, 4, 4],
    [1000, 8, 8],
    [1500, 12, 12],
    [2000, 16, 16],
    [2944, 23, 23],
    [3000, 24, 24],
    [4000, 16, 32],
    [8000, 21, 32],
    [16000, 25, 32],
    [32000, 23, 28],
  ];
  for (const [s, a, h] of table) {
    assert.equal(decode(s, A100), a, `A100 ${s}`);
    assert.equal(decode(s, H100), h, `H100 ${s}`);
  }
});

Deno.test("fa2NumSplits() refuses non-positive dimensions", () => {
  assert.throws(() => prefill(0, A100), RangeError);
  assert.throws(() => prefill(10, 0), RangeError);
});

Deno.test("fa2Tiles() gives 128x64 on sm_80/sm_90 and the sm8x branch otherwise", () => {
  for (const causal of [true, false]) {
    for (const arch of ["sm_80", "sm_90"] as const) {
      assert.deepEqual({ ...fa2Tiles(arch, { headDim: 128, causal }) }, {
        blockM: 128,
        blockN: 64,
      });
    }
  }
  assert.deepEqual({ ...fa2Tiles("sm_86", { headDim: 128, causal: true }) }, {
    blockM: 64,
    blockN: 64,
  });
  assert.deepEqual({ ...fa2Tiles("sm_89", { headDim: 128, causal: false }) }, {
    blockM: 128,
    blockN: 32,
  });
  assert.deepEqual({ ...FA2_SPLIT_TILES }, { blockM: 64, blockN: 128 });
  assert.throws(() => fa2Tiles("sm_80", { headDim: 32, causal: true }), RangeError);
  assert.throws(() => fa2Tiles("sm_100", { headDim: 128, causal: true }), RangeError);
});

Deno.test("fa2Build() names the two builds and refuses others", () => {
  assert.equal(fa2Build("dao-fastmath"), FA2_DAO_FASTMATH);
  assert.equal(fa2Build("pytorch-bundled"), FA2_PYTORCH_BUNDLED);
  assert.equal(FA2_DAO_FASTMATH.ftz && !FA2_PYTORCH_BUNDLED.ftz, true);
  assert.throws(() => fa2Build("cudnn"), RangeError);
});

Deno.test("FA2_HDIM128_TILES holds frozen tiles of catalog architectures, blockN in whole quads", () => {
  const archs = Object.keys(INSTRUCTION_CATALOG);
  for (const [arch, choice] of Object.entries(FA2_HDIM128_TILES)) {
    assert.ok(archs.includes(arch), arch);
    assert.ok(Object.isFrozen(choice) && Object.isFrozen(choice!.causal), arch);
    for (const t of [choice!.causal, choice!.nonCausal]) {
      assert.ok(Object.isFrozen(t) && t.blockN % 4 === 0 && t.blockM % 16 === 0, arch);
    }
  }
  assert.throws(
    () => fa2Tiles("sm_120", { headDim: 128, causal: false }),
    /sm_80, sm_86, sm_89 or sm_90/,
  );
});
