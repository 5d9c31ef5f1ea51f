/**
 * Rows of A with tiny operands (non-zero, top exponent below the fast path's range, subnormals
 * included) among ordinary ones, as FA2's P rows have when a row's scores are far apart: the
 * kernel decodes them as zeros and keeps such rows on the fast path only where every tiny product
 * provably truncates to zero, else takes the exact path. Checked bit for bit against the plain
 * reference: tiny and ordinary values mixed within blocks, blocks of tiny values only, zero
 * accumulators of both signs and tiny ones, columns of huge values (where the bound fails), odd
 * row counts (pairs and single rows), for every bf16 -> fp32 datapath of every GPU profile.
 */
import assert from "node:assert/strict";
import { type Datapath, kWalkReference } from "../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  flashAttentionForward,
} from "../../src/kernels/mod.ts";
import { fa2Options, qkv } from "../kernels/attention/_fa2_fixture.ts";
import { loadEngine, pattern, rng, sixteenBitFp32Datapaths } from "./_engine_fixture.ts";

const engine = await loadEngine();
const datapaths = (await sixteenBitFp32Datapaths()).filter(([, dp]) => dp.input.name === "bf16");

/** A bf16 subnormal (exponent field 0, non-zero fraction) of either sign. */
function subnormal(next: () => number): number {
  return (next() & 0x8000) | (1 + (next() % 0x7f));
}

/**
 * Row i of A: kind i % 5 picks the mix: 0 ordinary with one tiny value a block, 1 mostly tiny with
 * one ordinary value a block, 2 tiny only (and zeros), 3 tiny values just below the range, 4
 * ordinary only.
 */
function makeA(next: () => number, m: number, k: number, L: number): Uint16Array {
  const a = new Uint16Array(m * k);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < k; j++) {
      const kind = i % 5, atBlock = j % L;
      const tiny = () => next() % 4 === 0 ? subnormal(next) : pattern(next, "bf16", 1, 59);
      let v: number;
      if (kind === 0) v = atBlock === 3 ? tiny() : pattern(next, "bf16", 100, 127);
      else if (kind === 1) v = atBlock === 5 ? pattern(next, "bf16", 110, 127) : tiny();
      else if (kind === 2) v = next() % 3 === 0 ? 0 : tiny();
      else if (kind === 3) {
        v = next() % 2 === 0 ? pattern(next, "bf16", 55, 59) : pattern(next, "bf16", 60, 70);
      } else v = pattern(next, "bf16", 110, 130);
      a[i * k + j] = v;
    }
  }
  return a;
}

function check(dp: Datapath, label: string, seed: number, m: number): void {
  const [n, k] = [13, 5 * dp.k];
  const next = rng(seed);
  const a = makeA(next, m, k, dp.k);
  // Columns: ordinary, large (the tiny bound still holds), huge (it fails: exact lanes), zeros.
  const ranges = [[118, 131], [150, 165], [175, 190], [118, 131]];
  const b = new Uint16Array(n * k).map((_, idx) => {
    const col = Math.floor(idx / k);
    if (col === 12) return next() % 2 === 0 ? 0 : 0x8000;
    const [lo, hi] = ranges[col % 4] as number[];
    return pattern(next, "bf16", lo as number, hi as number);
  });
  // Accumulators: +-0, tiny, subnormal-range and ordinary values.
  const init = new Uint32Array(m * n).map((_, idx) => {
    const u = (idx * 7 + seed) % 5;
    if (u === 0) return 0;
    if (u === 1) return 0x80000000;
    if (u === 2) return (next() & 0x80000000) | (next() & 0x007fffff); // subnormal
    if (u === 3) return (next() & 0x80000000) | ((1 + (next() % 40)) << 23) | (next() & 0x7fffff);
    return (next() & 0x80000000) | ((110 + (next() % 30)) << 23) | (next() & 0x7fffff);
  });
  for (const ops of [{ a, b, m, n, k }, { a, b, m, n, k, init }]) {
    const want = kWalkReference(dp, ops);
    const got = engine.kWalk(dp, ops);
    const i = want.findIndex((v, idx) => v !== got[idx]);
    assert.equal(
      i,
      -1,
      `${label}${"init" in ops ? " with init" : ""}: first diff at ${i} (row ${
        Math.floor(i / n)
      }, ` +
        `col ${i % n}): ${got[i]?.toString(16)}, want ${want[i]?.toString(16)}`,
    );
  }
}

for (const [label, dp] of datapaths) {
  Deno.test(`GemmEngine.kWalk() matches kWalkReference() on rows with tiny operands, ${label}`, () => {
    check(dp, `${label} 10 rows`, 11, 10);
    check(dp, `${label} 11 rows`, 12, 11);
    check(dp, `${label} 7 rows`, 13, 7);
  });
}

for (const [label, dp] of datapaths) {
  Deno.test(`GemmEngine.kWalk() keeps tiny products that reach the alignment grid, ${label}`, () => {
    // Each row: an ordinary 1.0 at k = 0 and a tiny value of the largest significand at k = 1;
    // column j: 1.0 at k = 0 and 2^(j - 27) (largest significand) at k = 1. Across the columns the
    // tiny product walks from far below the block's alignment grid 2^(E - F) to above it, so some
    // columns need its truncated term (exact path) and the others may drop it (fast path).
    const k = dp.k, n = 154;
    for (const tinyField of [1, 30, 59]) {
      for (const zeroC of [false, true]) {
        const m = 3;
        const a = new Uint16Array(m * k);
        for (let i = 0; i < m; i++) {
          a[i * k] = 0x3f80;
          a[i * k + 1] = (i === 1 ? 0x8000 : 0) | (tinyField << 7) | 0x7f;
        }
        const b = new Uint16Array(n * k);
        for (let j = 0; j < n; j++) {
          b[j * k] = 0x3f80;
          b[j * k + 1] = ((100 + j) << 7) | 0x7f;
        }
        const init = new Uint32Array(m * n).fill(zeroC ? 0 : 0x3f800000);
        const ops = { a, b, m, n, k, init };
        const want = kWalkReference(dp, ops);
        const got = engine.kWalk(dp, ops);
        const i = want.findIndex((v, idx) => v !== got[idx]);
        assert.equal(
          i,
          -1,
          `${label} tiny field ${tinyField}${zeroC ? " c = 0" : ""}: first diff at column ${i % n}`,
        );
        // The sweep does reach the grid: some column's result differs from the tiny-free one.
        const plain = kWalkReference(dp, { ...ops, a: a.map((v, idx) => idx % k === 1 ? 0 : v) });
        assert.ok(want.some((v, idx) => v !== plain[idx]), "a tiny product changed a result");
      }
    }
  });
}

Deno.test("FA2 with the engine's K-walk equals the reference walk when one key dominates every row (P rows of tiny values)", () => {
  // Key 0 lines up with every query (q = 5.0, k_0 = 1.0): its score is about 57 above the others,
  // so every other key's probability is near 2^-82, below the fast path's range, for every row.
  const [sq, heads, d] = [150, 2, 128];
  const x = qkv("tiny-p", { sq, sk: sq, heads, kvHeads: 1, d });
  const q = new Uint16Array(x.q.length).fill(0x40a0);
  const k = x.k.map((v) => (v & 0x807f) | (120 << 7)); // ordinary keys: |k| < 2^-6
  k.fill(0x3f80, 0, d);
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    const o = fa2Options({ heads, kvHeads: 1, headDim: d, build });
    const want = flashAttentionForward({ q, k, v: x.v }, { ...o, kWalk: kWalkReference });
    const got = flashAttentionForward({ q, k, v: x.v }, { ...o, kWalk: engine.kWalkAuto });
    assert.deepEqual(got.out, want.out, build.id);
  }
});
