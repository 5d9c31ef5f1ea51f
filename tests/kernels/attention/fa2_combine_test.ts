import assert from "node:assert/strict";
import { addF32, createSfu, fmaF32 } from "../../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  type Fa2Build,
  fa2CombineRow,
  type Fa2Mufu,
  type Fa2SplitPartials,
} from "../../../src/kernels/attention/mod.ts";
import { cudaExpf, cudaLogf, fastExpf, fastLogf } from "../../../src/kernels/math/mod.ts";
import { bitsFromF32, f32FromBits, fp32ToBf16 } from "../../../src/numerics/mod.ts";
import { teslaSfu } from "../../hardware/sfu/_tesla_sfu.ts";

const table = teslaSfu();
const SFUS = [table, createSfu({ mode: "ieee" })];
const BUILDS = [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED];
const NEG_INF = 0xff800000;

/** Deterministic pseudo-random FP32 patterns (xorshift), values in about [-4, 4]. */
function rand(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return bitsFromF32((s / 2 ** 32 - 0.5) * 8);
  };
}

function partials(n: number, d: number, seed: number, emptyEvery = 0): Fa2SplitPartials {
  const r = rand(seed);
  const o = Array.from(
    { length: n },
    (_, s) =>
      emptyEvery && s % emptyEvery === 1 ? new Uint32Array(d) : Uint32Array.from({ length: d }, r),
  );
  const lse = Uint32Array.from(
    { length: n },
    (_, s) => (emptyEvery && s % emptyEvery === 1 ? NEG_INF : r()),
  );
  return { o, lse };
}

/**
 * `combine_attn_seqk_parallel` re-derived thread by thread from its CUDA structure (spec §4.4):
 * 128 threads, kBlockM = M rows (4 for hdim 128 and 256, 8 for hdim 64, 16 for hdim 96; only
 * row 0 holds data), the LSEs staged through a shared `sLSE[split][row]` array and transposed,
 * shuffles simulated as reads of `tidx ^ offset`. Uses the math primitives directly, not the
 * kernel's instruction table.
 */
function threadCombine(p: Fa2SplitPartials, build: Fa2Build, mufu: Fa2Mufu, M = 4) {
  const n = p.o.length, ftz = build.ftz, T = 128;
  const add = (a: number, b: number) => addF32(a, b, { ftz });
  const fast = build.combineMath === "fast";
  const exp = (x: number) => (fast ? fastExpf(x, { mufu, ftz }) : cudaExpf(x, mufu));
  const log = (x: number) => (fast ? fastLogf(x, { lg2: mufu.lg2!, ftz }) : cudaLogf(x));
  let kMax = 2;
  while (kMax < n) kMax *= 2;
  const perThread = Math.ceil((kMax * M) / T);
  const R = Math.min(T / M, kMax);
  const sLSE = Array.from({ length: kMax }, () => new Array<number>(M).fill(NEG_INF));
  for (let tid = 0; tid < T; tid++) {
    for (let l = 0; l < perThread; l++) {
      const row = l * (T / M) + Math.floor(tid / M), col = tid % M;
      if (row < kMax) sLSE[row]![col] = row < n && col < 1 ? p.lse[row]! : NEG_INF;
    }
  }
  const acc = Array.from({ length: T }, (_, tid) =>
    Array.from({ length: perThread }, (_, l) => {
      const row = l * R + (tid % R), col = Math.floor(tid / R);
      return row < kMax && col < M ? sLSE[row]![col]! : NEG_INF;
    }));
  const gt = (a: number, b: number) => f32FromBits(a) > f32FromBits(b);
  let mx = acc.map((a) => a.reduce((m, x) => (gt(m, x) ? m : x)));
  for (let off = R / 2; off >= 1; off /= 2) {
    mx = mx.map((v, tid) => (gt(v, mx[tid ^ off]!) ? v : mx[tid ^ off]!));
  }
  mx = mx.map((v) => (v === NEG_INF ? 0 : v));
  const neg = (x: number) => (x ^ 0x80000000) >>> 0;
  let sum = acc.map((a, tid) =>
    a.slice(1).reduce((s, x) => add(s, exp(add(x, neg(mx[tid]!)))), exp(add(a[0]!, neg(mx[tid]!))))
  );
  for (let off = R / 2; off >= 1; off /= 2) sum = sum.map((v, tid) => add(v, sum[tid ^ off]!));
  const logsum = sum.map((s, tid) =>
    (s & 0x7fffffff) === 0 || (s & 0x7fffffff) > 0x7f800000 ? 0x7f800000 : add(log(s), mx[tid]!)
  );
  const scales: number[] = [];
  for (let tid = 0; tid < T; tid++) {
    for (let l = 0; l < perThread; l++) {
      const row = l * R + (tid % R), col = Math.floor(tid / R);
      if (row < n && col === 0) scales[row] = exp(add(acc[tid]![l]!, neg(logsum[tid]!)));
    }
  }
  const d = p.o[0]!.length;
  const o = new Uint32Array(d);
  for (let s = 0; s < n; s++) {
    for (let j = 0; j < d; j++) o[j] = fmaF32([scales[s]!, p.o[s]![j]!, o[j]!], { ftz });
  }
  return { outF32: o, out: Uint16Array.from(o, fp32ToBf16), lse: logsum[0]! };
}

Deno.test("fa2CombineRow() equals a thread-by-thread re-derivation bit for bit", () => {
  for (const n of [2, 3, 4, 5, 8, 17, 32, 33, 64, 100, 128]) {
    for (const build of BUILDS) {
      for (const mufu of SFUS) {
        const p = partials(n, 8, 1000 + n, n > 4 ? 5 : 0);
        const got = fa2CombineRow(p, { build, mufu });
        const want = threadCombine(p, build, mufu);
        const tag = `${n} splits, ${build.id}, ${mufu.mode}`;
        assert.deepEqual(got.outF32, want.outF32, tag);
        assert.deepEqual(got.out, want.out, tag);
        assert.equal(got.lse, want.lse, tag);
      }
    }
  }
});

Deno.test("fa2CombineRow() equals the thread-by-thread re-derivation at head dims 64, 96 and 256 (kBlockM 8, 16, 4)", () => {
  for (const [headDim, M] of [[64, 8], [96, 16], [256, 4]] as const) {
    for (const n of [2, 3, 5, 8, 9, 16, 17, 32, 33, 64, 100, 128]) {
      for (const build of BUILDS) {
        for (const mufu of SFUS) {
          const p = partials(n, 8, 2000 + n + headDim, n > 4 ? 5 : 0);
          const got = fa2CombineRow(p, { build, mufu, headDim });
          const want = threadCombine(p, build, mufu, M);
          const tag = `hdim ${headDim}, ${n} splits, ${build.id}, ${mufu.mode}`;
          assert.deepEqual(got.outF32, want.outF32, tag);
          assert.deepEqual(got.out, want.out, tag);
          assert.equal(got.lse, want.lse, tag);
        }
      }
    }
  }
});

Deno.test("fa2CombineRow() equals the re-derivation on extreme partials (subnormal, infinite and NaN O_s; -inf, huge and tiny LSEs)", () => {
  const O_EDGE = [0, 0x80000000, 1, 0x807fffff, 0x00800000, 0x7f800000, 0xff800000, 0x7fffffff];
  const LSE_EDGE = [NEG_INF, NEG_INF, 0x7f800000, 0x7f7fffff, 0xff7fffff, 0x42c80000, 0xc2c80000];
  const r = rand(4242);
  const pick = (edge: number[], x: number) => (x & 3) === 0 ? edge[(x >>> 2) % edge.length]! : x;
  for (const n of [2, 3, 5, 17, 128]) {
    for (let seed = 0; seed < 4; seed++) {
      // Subnormal O_s values (x >>> 9 keeps a pattern's fraction bits) exercise FTZ.
      const o = Array.from({ length: n }, () =>
        Uint32Array.from({ length: 16 }, (_, j) => {
          const x = r();
          return j % 5 === 0 ? pick(O_EDGE, x) : j % 5 === 1 ? (x >>> 9) | (x & 0x80000000) : x;
        }));
      // Tiny LSEs, -inf (an empty split), and huge partial maxima far from the others.
      const lse = Array.from({ length: n }, (_, s) => s === seed ? NEG_INF : pick(LSE_EDGE, r()));
      for (const build of BUILDS) {
        for (const mufu of SFUS) {
          const got = fa2CombineRow({ o, lse }, { build, mufu });
          const want = threadCombine({ o, lse }, build, mufu);
          const tag = `${n} splits, seed ${seed}, ${build.id}, ${mufu.mode}`;
          assert.deepEqual(got.outF32, want.outF32, tag);
          assert.deepEqual(got.out, want.out, tag);
          assert.equal(got.lse, want.lse, tag);
        }
      }
    }
  }
});

Deno.test("fa2CombineRow() sums the LSEs in a head-dim dependent order (kBlockM fixes the lanes)", () => {
  // 64 to 128 splits: lanes of 32 (hdim 128), 16 (hdim 64) or 8 (hdim 96) slots' lanes, each
  // adding its slots in order before the butterfly: different FADD trees, so some LSEs differ in
  // their last bits. (Two slots per lane add like the butterfly's first step: 32 splits give
  // hdim 64 the bits of hdim 128.)
  // LSE_0 = 0 and the others near -10: sum = 1 + small terms, log(sum) small, so the LSE shows
  // the sum's last bits.
  let diff64 = 0, diff96 = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const q = partials(seed % 2 ? 64 : 128, 4, 300 + seed);
    const lse = Array.from(q.lse, (x, s) => (s === 0 ? 0 : bitsFromF32(f32FromBits(x) / 4 - 10)));
    const p = { o: q.o, lse };
    const run = (headDim: number) =>
      fa2CombineRow(p, { build: FA2_PYTORCH_BUNDLED, mufu: table, headDim });
    const a = run(128);
    assert.deepEqual(run(256), a); // kBlockM 4 for both
    diff64 += a.lse !== run(64).lse ? 1 : 0;
    diff96 += a.lse !== run(96).lse ? 1 : 0;
  }
  assert.ok(diff64 > 0 && diff96 > 0, `${diff64} ${diff96}`);
});

Deno.test("fa2CombineRow() is the identity for one split or one non-empty split", () => {
  for (const build of BUILDS) {
    for (const mufu of SFUS) {
      const one = partials(1, 16, 7);
      const r = fa2CombineRow(one, { build, mufu });
      assert.deepEqual(r.outF32, one.o[0], `${build.id} ${mufu.mode}`);
      assert.equal(r.lse, one.lse[0]);
      // A second split that saw no keys (O = 0, LSE = -inf) changes nothing.
      const two = { o: [one.o[0]!, new Uint32Array(16)], lse: [one.lse[0]!, NEG_INF] };
      assert.deepEqual(fa2CombineRow(two, { build, mufu }).outF32, one.o[0]);
    }
  }
});

Deno.test("fa2CombineRow() weighs splits by exp(LSE_s - LSE)", () => {
  // LSE_0 = ln 3, LSE_1 = 0: weights 3/4 and 1/4, total LSE ln 4.
  const p = {
    o: [new Uint32Array([bitsFromF32(1)]), new Uint32Array([bitsFromF32(5)])],
    lse: [bitsFromF32(Math.log(3)), 0],
  };
  for (const build of BUILDS) {
    for (const mufu of SFUS) {
      const r = fa2CombineRow(p, { build, mufu });
      assert.ok(Math.abs(f32FromBits(r.outF32[0]!) - 2) < 1e-5, `${build.id} ${mufu.mode}`);
      assert.ok(Math.abs(f32FromBits(r.lse) - Math.log(4)) < 1e-6);
    }
  }
  // Every split empty: the sum of weights is 0, LSE +inf, O = 0.
  const empty = { o: [new Uint32Array(2), new Uint32Array(2)], lse: [NEG_INF, NEG_INF] };
  const r = fa2CombineRow(empty, { build: FA2_DAO_FASTMATH, mufu: table });
  assert.equal(r.lse, 0x7f800000);
  assert.deepEqual(Array.from(r.out), [0, 0]);
});

Deno.test("fa2CombineRow() depends on the exp/log flavour and the LSE add contraction", () => {
  let math = 0, add = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const p = partials(6, 32, seed);
    const a = fa2CombineRow(p, { build: FA2_DAO_FASTMATH, mufu: table });
    const run = (over: Partial<Fa2Build>) =>
      fa2CombineRow(p, { build: { ...FA2_DAO_FASTMATH, ...over }, mufu: table });
    const b = run({ combineMath: "libdevice" });
    math += a.outF32.filter((x, i) => x !== b.outF32[i]).length + (a.lse !== b.lse ? 1 : 0);
    add += a.lse !== run({ combineLseAdd: "ffma" }).lse ? 1 : 0;
  }
  assert.ok(math > 0 && add > 0, `${math} ${add}`);
  assert.throws(
    () =>
      fa2CombineRow(partials(2, 1, 1), {
        build: { ...FA2_PYTORCH_BUNDLED, combineLseAdd: "ffma" },
        mufu: table,
      }),
    RangeError,
  );
});

Deno.test("fa2CombineRow() refuses bad split counts and ragged outputs", () => {
  const o = (n: number) => Array.from({ length: n }, () => new Uint32Array(2));
  const opts = { build: FA2_DAO_FASTMATH, mufu: table };
  assert.throws(() => fa2CombineRow({ o: [], lse: [] }, opts), RangeError);
  assert.throws(() => fa2CombineRow({ o: o(129), lse: new Uint32Array(129) }, opts), RangeError);
  assert.throws(() => fa2CombineRow({ o: o(2), lse: [0] }, opts), RangeError);
  assert.throws(
    () => fa2CombineRow({ o: [new Uint32Array(2), new Uint32Array(3)], lse: [0, 0] }, opts),
    RangeError,
  );
  // The fast combine needs MUFU.LG2; the libdevice one does not.
  const noLg2 = { ex2: table.ex2, rcp: table.rcp, rsqrt: table.rsqrt };
  assert.throws(
    () => fa2CombineRow({ o: o(2), lse: [0, 0] }, { ...opts, mufu: noLg2 }),
    RangeError,
  );
  const pt = fa2CombineRow({ o: o(2), lse: [0, 0] }, { build: FA2_PYTORCH_BUNDLED, mufu: noLg2 });
  assert.equal(pt.lse, bitsFromF32(Math.fround(Math.log(2))));
});
