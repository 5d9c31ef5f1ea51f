import assert from "node:assert/strict";
import { createSfu } from "../../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2Build,
  fa2NumSplits,
  flashAttentionForward,
  type FlashAttentionOptions,
} from "../../../src/kernels/attention/mod.ts";
import { f32FromBits } from "../../../src/numerics/mod.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";
import {
  assertNear,
  D,
  diffCount,
  fa2Options,
  profile,
  qkv,
  referenceAttention,
  TESLA,
} from "./_fa2_fixture.ts";

const H100 = profile("h100-sxm");

const ieee = createSfu({ mode: "ieee" });
const BUILDS = [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED];

/** The split tests default to non-causal launches. */
const opts = (over: Partial<FlashAttentionOptions> = {}) => fa2Options({ causal: false, ...over });

Deno.test("flashAttentionForward() splits 129 equal-score keys into 128 + 1 and recombines them", () => {
  // K = 0: every score is 0. Split 0 averages 128 rows of 1.0 (LSE ln 128), split 1 is the
  // single row of 3.0 (LSE 0); the combine gives (128·1 + 3)/129 = 1.01550..., bf16 0x3f82.
  const v = new Uint16Array(129 * D).fill(0x3f80);
  v.fill(0x4040, 128 * D);
  const x = {
    q: synthBf16("hand", { label: "q", count: D, span: 3 }),
    k: new Uint16Array(129 * D),
    v,
  };
  for (const build of BUILDS) {
    for (const mufu of [TESLA, ieee]) {
      const r = flashAttentionForward(x, opts({ build, mufu, returnFp32: true, returnLse: true }));
      const tag = `${build.id} ${mufu.mode}`;
      assert.equal(r.splits, 2, tag);
      assert.ok(r.out.every((b) => b === 0x3f82), tag);
      assert.ok(Math.abs(f32FromBits(r.outF32![0]!) - 131 / 129) < 2 ** -20, tag);
      assert.ok(Math.abs(f32FromBits(r.lse![0]!) - Math.log(129)) < 2 ** -19, tag);
    }
  }
});

Deno.test("flashAttentionForward() gives split and standard kernels different bits on some input", () => {
  // mha_fwd splits S_k = 200 in two on 108 SMs; varlen with one sequence never splits.
  const x = qkv("path", { sq: 2, sk: 200, heads: 1, kvHeads: 1 });
  const want = referenceAttention(x, { heads: 1, kvHeads: 1, causal: false });
  for (const build of BUILDS) {
    const split = flashAttentionForward(x, opts({ build, returnFp32: true }));
    const std = flashAttentionForward(
      x,
      opts({ build, returnFp32: true, cuSeqlensQ: [0, 2], cuSeqlensK: [0, 200] }),
    );
    assert.equal(split.splits, 2);
    assert.equal(std.splits, 1);
    assert.ok(diffCount(split.outF32!, std.outF32!) > 0, build.id);
    assertNear(split.out, want.out, `${build.id} split`);
    assertNear(std.out, want.out, `${build.id} standard`);
    assert.equal(
      split.sfuFunctionsUsed.join(),
      build.id === "dao-fastmath" ? "ex2,lg2,rcp" : "ex2,lg2",
    );
  }
});

Deno.test("flashAttentionForward() equals the standard kernel where a causal row block has one split", () => {
  // S_q = S_k = 130, causal: 2 splits of one 128-key block; rows 0..63 have split 1 empty, so
  // the combine is the identity and the split kernel's single tile matches the standard walk.
  const x = qkv("causal", { sq: 130, sk: 130, heads: 1, kvHeads: 1 });
  for (const build of BUILDS) {
    const split = flashAttentionForward(x, opts({ build, causal: true }));
    const std = flashAttentionForward(
      x,
      opts({ build, causal: true, cuSeqlensQ: [0, 130], cuSeqlensK: [0, 130] }),
    );
    assert.equal(split.splits, 2);
    assert.deepEqual(split.out.subarray(0, 64 * D), std.out.subarray(0, 64 * D), build.id);
    assertNear(
      split.out,
      referenceAttention(x, { heads: 1, kvHeads: 1, causal: true }).out,
      build.id,
    );
  }
});

Deno.test("flashAttentionForward() decodes with the GQA swap at several S_k", () => {
  for (
    const [sk, build, mufu] of [
      [130, FA2_DAO_FASTMATH, TESLA],
      [300, FA2_PYTORCH_BUNDLED, ieee],
      [520, FA2_DAO_FASTMATH, ieee],
      [777, FA2_PYTORCH_BUNDLED, TESLA],
    ] as const
  ) {
    const x = qkv(`decode${sk}`, { sq: 1, sk: sk, heads: 4, kvHeads: 2 });
    const o = { heads: 4, kvHeads: 2, causal: true, build, mufu, profile: H100 };
    const r = flashAttentionForward(x, opts({ ...o, multiProcessorCount: 132, returnLse: true }));
    const shape = { batch: 1, heads: 4, kvHeads: 2, seqlenQ: 1, seqlenK: sk, headDim: D };
    assert.equal(r.splits, fa2NumSplits({ ...shape, multiProcessorCount: 132 }));
    assert.ok(r.splits > 1, `${sk}: ${r.splits}`);
    const want = referenceAttention(x, { heads: 4, kvHeads: 2, causal: false });
    assertNear(r.out, want.out, `S_k ${sk}`);
    r.lse!.forEach((l, i) => assert.ok(Math.abs(f32FromBits(l) - want.lse[i]!) < 1e-5, `${sk}`));
    // The varlen entry point takes the same swap and split count for one sequence.
    const v = flashAttentionForward(
      x,
      opts({ ...o, multiProcessorCount: 132, cuSeqlensQ: [0, 1], cuSeqlensK: [0, sk] }),
    );
    assert.equal(v.splits, r.splits);
    assert.deepEqual(v.out, r.out);
  }
});

Deno.test("flashAttentionForward() splits a varlen decode batch by its longest key length", () => {
  const a = qkv("va", { sq: 1, sk: 150, heads: 4, kvHeads: 1 }),
    b = qkv("vb", { sq: 1, sk: 400, heads: 4, kvHeads: 1 });
  const cat = (x: Uint16Array, y: Uint16Array) => Uint16Array.from([...x, ...y]);
  const r = flashAttentionForward(
    { q: cat(a.q, b.q), k: cat(a.k, b.k), v: cat(a.v, b.v) },
    opts({ heads: 4, kvHeads: 1, cuSeqlensQ: [0, 1, 2], cuSeqlensK: [0, 150, 550] }),
  );
  const shape = { batch: 2, heads: 4, kvHeads: 1, seqlenQ: 1, seqlenK: 400, headDim: D };
  assert.equal(r.splits, fa2NumSplits({ ...shape, multiProcessorCount: 108 }));
  assert.ok(r.splits > 1);
  assertNear(
    r.out.subarray(0, 4 * D),
    referenceAttention(a, { heads: 4, kvHeads: 1, causal: false }).out,
    "a",
  );
  assertNear(
    r.out.subarray(4 * D),
    referenceAttention(b, { heads: 4, kvHeads: 1, causal: false }).out,
    "b",
  );
});

Deno.test("flashAttentionForward() split results depend on MUFU.LG2 and the LSE FFMA choice", () => {
  const x = qkv("fields", { sq: 1, sk: 390, heads: 1, kvHeads: 1 });
  let lg2Diff = 0, lseDiff = 0;
  for (let h = 0; h < 6; h++) {
    const q = synthBf16(`fields${h}`, { label: "q", count: D, span: 3 });
    const run = (over: Partial<FlashAttentionOptions>, build: Fa2Build = FA2_DAO_FASTMATH) =>
      flashAttentionForward(
        { ...x, q },
        opts({ build, returnFp32: true, returnLse: true, ...over }),
      );
    const base = run({});
    assert.equal(base.splits, 4);
    const other = run({ lg2: ieee.lg2 });
    lg2Diff += diffCount(base.outF32!, other.outF32!) + diffCount(base.lse!, other.lse!);
    lseDiff += diffCount(base.lse!, run({}, { ...FA2_DAO_FASTMATH, lseFma: "log-ln2" }).lse!);
  }
  assert.ok(lg2Diff > 0 && lseDiff > 0, `${lg2Diff} ${lseDiff}`);
});

Deno.test("flashAttentionForward() refuses a split-KV launch without MUFU.LG2", () => {
  const x = qkv("nolg2", { sq: 1, sk: 200, heads: 1, kvHeads: 1 });
  const noLg2 = { ex2: TESLA.ex2, rcp: TESLA.rcp, rsqrt: TESLA.rsqrt };
  assert.throws(() => flashAttentionForward(x, opts({ mufu: noLg2 })), RangeError);
  assert.equal(flashAttentionForward(x, opts({ mufu: noLg2, lg2: TESLA.lg2 })).splits, 2);
  const varlen = { heads: 2, cuSeqlensQ: [0, 1], cuSeqlensK: [0, 200] };
  const x2 = qkv("nolg2", { sq: 1, sk: 200, heads: 2, kvHeads: 1 });
  assert.throws(
    () => flashAttentionForward(x2, opts({ ...varlen, multiProcessorCount: undefined as never })),
    RangeError,
  );
});
