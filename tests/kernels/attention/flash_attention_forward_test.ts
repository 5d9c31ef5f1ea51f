import assert from "node:assert/strict";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2Build,
  flashAttentionForward,
  type FlashAttentionOptions,
} from "../../../src/kernels/attention/mod.ts";
import { f32FromBits } from "../../../src/numerics/mod.ts";
import { bf, D, fa2Options, profile, qkv, referenceAttention, TESLA } from "./_fa2_fixture.ts";

const A100 = profile("a100");
const H100 = profile("h100-sxm");

const diffCount = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((n, x, i) => n + (x !== b[i] ? 1 : 0), 0);

Deno.test("flashAttentionForward() returns the V row when there is one key", () => {
  const v = Uint16Array.from({ length: D }, (_, c) => 0x3f80 + c);
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    const { out } = flashAttentionForward({
      q: qkv("one", { sq: 1, sk: 1, heads: 1, kvHeads: 1 }).q,
      k: qkv("one", { sq: 1, sk: 1, heads: 1, kvHeads: 1 }).k,
      v,
    }, fa2Options({ build }));
    assert.deepEqual(out, v);
  }
});

Deno.test("flashAttentionForward() averages two keys with equal scores", () => {
  const q = new Uint16Array(D).fill(0x3f80);
  const k = new Uint16Array(2 * D).fill(0x3c00); // both keys identical
  const v = new Uint16Array(2 * D);
  v.fill(0x3f80, 0, D); // 1.0
  v.fill(0x4040, D); // 3.0
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    const { out } = flashAttentionForward({ q, k, v }, fa2Options({ build, causal: false }));
    assert.ok(out.every((x) => x === 0x4000), `${build.id}: expected 2.0`); // (1 + 3) / 2
  }
});

Deno.test("flashAttentionForward() lets the first query see only the first key when causal", () => {
  const x = qkv("causal", { sq: 5, sk: 5, heads: 1, kvHeads: 1 });
  const { out } = flashAttentionForward(x, fa2Options());
  assert.deepEqual(out.subarray(0, D), x.v.subarray(0, D));
  const nc = flashAttentionForward(x, fa2Options({ causal: false })).out;
  assert.notDeepEqual(nc.subarray(0, D), x.v.subarray(0, D));
});

Deno.test("flashAttentionForward() is within a few bf16 ulps of float64 attention", () => {
  const x = qkv("ref", { sq: 70, sk: 70, heads: 2, kvHeads: 1 });
  for (const causal of [true, false]) {
    const want = referenceAttention(x, { heads: 2, kvHeads: 1, causal }).out;
    for (const [build, prof] of [[FA2_DAO_FASTMATH, A100], [FA2_PYTORCH_BUNDLED, H100]] as const) {
      const { out } = flashAttentionForward(
        x,
        fa2Options({ build, profile: prof, causal, heads: 2, multiProcessorCount: 132 }),
      );
      out.forEach((b, i) => {
        const err = Math.abs(bf(b) - want[i]!);
        assert.ok(
          err <= 2 ** -7 * (Math.abs(want[i]!) + 2 ** -2),
          `${build.id} ${causal} ${i}: ${bf(b)} vs ${want[i]}`,
        );
      });
    }
  }
});

Deno.test("flashAttentionForward() differs between the fast-math and bundled builds on some input", () => {
  // BF16 flips from a 1-ulp FP32 difference are rare (spec: 3 in 2,048,000 from RCP alone), so
  // the witness is the FP32 output before rounding: reciprocal, exp2 argument and FTZ all differ.
  const x = qkv("builds", { sq: 40, sk: 40, heads: 1, kvHeads: 1 });
  const run = (build: Fa2Build) =>
    flashAttentionForward(x, fa2Options({ build, returnFp32: true })).outF32!;
  const dao = run(FA2_DAO_FASTMATH);
  assert.ok(diffCount(dao, run(FA2_PYTORCH_BUNDLED)) > 0);
  for (const change of [{ reciprocal: "ieee-div" }, { exp2Argument: "fmul-fadd" }] as const) {
    assert.ok(diffCount(dao, run({ ...FA2_DAO_FASTMATH, ...change })) > 0, JSON.stringify(change));
  }
});

Deno.test("flashAttentionForward() depends on the KV walk direction and the row-sum FFMA", () => {
  const x = qkv("walk", { sq: 72, sk: 72, heads: 1, kvHeads: 1 });
  const varlen = { causal: false, cuSeqlensQ: [0, 72], cuSeqlensK: [0, 72], returnFp32: true };
  const base = flashAttentionForward(x, fa2Options(varlen)).outF32!;
  const variants: Fa2Build[] = [
    { ...FA2_DAO_FASTMATH, kvWalk: "ascending" },
    { ...FA2_DAO_FASTMATH, rowSumRescale: "fmul-fadd" },
  ];
  for (const build of variants) {
    const other = flashAttentionForward(x, fa2Options({ ...varlen, build })).outF32!;
    assert.ok(diffCount(base, other) > 0, JSON.stringify(build));
  }
});

Deno.test("flashAttentionForward() maps query heads to KV heads in groups (GQA)", () => {
  const x = qkv("gqa", { sq: 6, sk: 6, heads: 4, kvHeads: 2 });
  const { out } = flashAttentionForward(x, fa2Options({ heads: 4, kvHeads: 2 }));
  for (let h = 0; h < 4; h++) {
    const kh = h >> 1;
    const pick = (a: Uint16Array, nh: number, hh: number) =>
      Uint16Array.from(
        { length: 6 * D },
        (_, i) => a[(Math.floor(i / D) * nh + hh) * D + (i % D)]!,
      );
    const one = flashAttentionForward(
      { q: pick(x.q, 4, h), k: pick(x.k, 2, kh), v: pick(x.v, 2, kh) },
      fa2Options(),
    ).out;
    assert.deepEqual(pick(out, 4, h), one);
  }
});

Deno.test("flashAttentionForward() keeps varlen sequences apart at their boundaries", () => {
  const a = qkv("va", { sq: 3, sk: 5, heads: 1, kvHeads: 1 }),
    b = qkv("vb", { sq: 4, sk: 4, heads: 1, kvHeads: 1 });
  const cat = (x: Uint16Array, y: Uint16Array) => Uint16Array.from([...x, ...y]);
  const packed = { q: cat(a.q, b.q), k: cat(a.k, b.k), v: cat(a.v, b.v) };
  const { out } = flashAttentionForward(
    packed,
    fa2Options({ cuSeqlensQ: [0, 3, 7], cuSeqlensK: [0, 5, 9] }),
  );
  const oa = flashAttentionForward(a, fa2Options({ cuSeqlensQ: [0, 3], cuSeqlensK: [0, 5] })).out;
  const ob = flashAttentionForward(b, fa2Options({ cuSeqlensQ: [0, 4], cuSeqlensK: [0, 4] })).out;
  assert.deepEqual(out, cat(oa, ob));
  // Bottom-right causal: the last query of sequence a sees all 5 of its keys, the first sees 3.
  const nc =
    flashAttentionForward(a, fa2Options({ causal: false, cuSeqlensQ: [0, 3], cuSeqlensK: [0, 5] }))
      .out;
  assert.deepEqual(oa.subarray(2 * D), nc.subarray(2 * D));
});

Deno.test("flashAttentionForward() refuses unmodelled head dims, missing SM counts and bad offsets", () => {
  const x = qkv("bad", { sq: 2, sk: 2, heads: 1, kvHeads: 1 });
  assert.throws(() => flashAttentionForward(x, fa2Options({ headDim: 32 })), RangeError);
  assert.throws(
    () =>
      flashAttentionForward(x, fa2Options({ multiProcessorCount: undefined as unknown as number })),
    RangeError,
  );
  assert.throws(
    () => flashAttentionForward(x, fa2Options({ cuSeqlensQ: [0, 1], cuSeqlensK: [0, 2] })),
    RangeError,
  );
  assert.throws(() => flashAttentionForward(x, fa2Options({ heads: 3, kvHeads: 2 })), RangeError);
  // An LSE needs MUFU.LG2.
  const noLg2 = { ex2: TESLA.ex2, rcp: TESLA.rcp, rsqrt: TESLA.rsqrt };
  assert.throws(
    () => flashAttentionForward(x, fa2Options({ mufu: noLg2, returnLse: true })),
    RangeError,
  );
});

Deno.test("flashAttentionForward() reports the MUFU functions of the standard kernel", () => {
  const x = qkv("sfu", { sq: 3, sk: 3, heads: 1, kvHeads: 1 });
  const fns = (o: Partial<FlashAttentionOptions>) =>
    flashAttentionForward(x, fa2Options(o)).sfuFunctionsUsed.join();
  assert.equal(fns({}), "ex2,rcp");
  assert.equal(fns({ build: FA2_PYTORCH_BUNDLED }), "ex2");
  assert.equal(fns({ returnLse: true }), "ex2,lg2,rcp");
  assert.equal(flashAttentionForward(x, fa2Options()).splits, 1);
});

Deno.test("flashAttentionForward() returns the LSE when given an LG2 model", () => {
  const x = qkv("lse", { sq: 3, sk: 3, heads: 1, kvHeads: 1 });
  const lg2 = (b: number) =>
    new Uint32Array(new Float32Array([Math.log2(f32FromBits(b))]).buffer)[0]!;
  const { lse } = flashAttentionForward(x, fa2Options({ lg2, causal: false }));
  const ref = referenceAttention(x, { heads: 1, kvHeads: 1, causal: false }).out;
  assert.ok(lse !== undefined && lse.length === 3 && ref.length === 3 * D);
  for (let i = 0; i < 3; i++) {
    const s = [0, 1, 2].map((j) => {
      let acc = 0;
      for (let c = 0; c < D; c++) acc += bf(x.q[i * D + c]!) * bf(x.k[j * D + c]!);
      return acc / Math.sqrt(D);
    });
    const want = Math.log(s.reduce((a, v) => a + Math.exp(v), 0));
    assert.ok(Math.abs(f32FromBits(lse[i]!) - want) < 1e-4 * (1 + Math.abs(want)));
  }
});
