import assert from "node:assert/strict";
import { findDatapath, kWalkReference } from "../../../src/hardware/mod.ts";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  flashAttentionForward,
  type FlashAttentionOptions,
  type SyncKWalk,
} from "../../../src/kernels/mod.ts";
import { _fa2Arith } from "../../../src/kernels/attention/_fa2_arith.ts";
import { _fa2RowWalk } from "../../../src/kernels/attention/_fa2_row_walk.ts";
import { _fa2TileWalk } from "../../../src/kernels/attention/_fa2_tile_walk_many.ts";
import { synthBf16 } from "../../../src/prover/mod.ts";
import { D, ENGINE as engine, fa2Options, profile, TESLA as sfu } from "./_fa2_fixture.ts";

/** Runs the tile walk and asserts that every row equals the per-row reference walk. */
function assertTileEqualsRows(
  common: Omit<Parameters<typeof _fa2RowWalk>[0], "q" | "visible">,
  o: { kWalk: SyncKWalk; q: Uint16Array; visible: number[]; label: string },
): void {
  const tile = _fa2TileWalk({ ...common, kWalk: o.kWalk, q: o.q, d: D, visible: o.visible });
  o.visible.forEach((vis, r) => {
    const row = _fa2RowWalk({ ...common, q: o.q.subarray(r * D, (r + 1) * D), visible: vis });
    const label = `${o.label} row ${r}`;
    assert.deepEqual(tile[r]!.o, row.o, label);
    assert.equal(tile[r]!.rowMax, row.rowMax, label);
    assert.deepEqual(tile[r]!.laneSums, row.laneSums, label);
  });
}

Deno.test("`_fa2TileWalk()` equals the per-row reference walk on every row, with the reference and the wasm K-walk", () => {
  for (const gpu of ["a100", "h100-sxm"]) {
    const dp = findDatapath(profile(gpu), { family: "mma", input: "bf16", output: "fp32" })!;
    for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
      for (const blockN of [64, 128]) {
        const sk = 2 * blockN + 37; // a partial top block
        const rows = 9;
        const seed = `tile-${gpu}-${build.id}-${blockN}`;
        const q = synthBf16(seed, { label: "q", count: rows * D, span: 3 });
        const k = synthBf16(seed, { label: "k", count: sk * D, span: 3 });
        const v = synthBf16(seed, { label: "v", count: sk * D, span: 4 });
        const key = (j: number) => k.subarray(j * D, (j + 1) * D);
        const value = (j: number) => v.subarray(j * D, (j + 1) * D);
        // Causal limits inside the top block, on a block edge, and past the sequence's end.
        const visible = [1, 5, blockN - 1, blockN, blockN + 1, 2 * blockN, sk - 3, sk, sk];
        const blocks = [2, 1, 0];
        const common = {
          dp,
          arith: _fa2Arith(build, sfu),
          key,
          value,
          blockN,
          blocks,
          scaleLog2: 0x3e3c1f05, // fl32(128^-0.5 * log2 e)
          sk,
          maskingSteps: 2,
        };
        for (const kWalk of [kWalkReference, engine.kWalkAuto]) {
          assertTileEqualsRows(common, { kWalk, q, visible, label: seed });
        }
      }
    }
  }
});

Deno.test("`_fa2TileWalk()` equals the per-row reference walk when keys hold NaN, infinities, huge values and ties", () => {
  const dp = findDatapath(profile("a100"), { family: "mma", input: "bf16", output: "fp32" })!;
  const blockN = 64, sk = 150, rows = 12;
  const q = synthBf16("special", { label: "q", count: rows * D, span: 3 });
  const k = synthBf16("special", { label: "k", count: sk * D, span: 3 });
  const v = synthBf16("special", { label: "v", count: sk * D, span: 4 });
  // Key rows whose scores are NaN, +/-inf or huge, and two equal key rows (tied maxima).
  k.fill(0x7fc0, 3 * D, 3 * D + 1); // NaN, mid-lane
  k.fill(0x7fc0, 63 * D, 63 * D + 1); // NaN in the last column of lane 3: it wins the lane max
  k.fill(0x7f80, 70 * D, 70 * D + 1); // +inf
  k.fill(0xff80, 71 * D, 71 * D + 1); // -inf
  k.fill(0x7f00, 130 * D, 131 * D); // 2^127 everywhere: scores overflow or huge
  k.copyWithin(140 * D, 10 * D, 11 * D); // key 140 = key 10
  q.fill(0, 2 * D, 3 * D); // a zero query row: every score 0 (or NaN against NaN/inf keys)
  const key = (j: number) => k.subarray(j * D, (j + 1) * D);
  const value = (j: number) => v.subarray(j * D, (j + 1) * D);
  const visible = [1, 4, 63, 64, 65, 71, 72, 100, 131, 141, 150, 2];
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    const common = {
      dp,
      arith: _fa2Arith(build, sfu),
      key,
      value,
      blockN,
      blocks: [2, 1, 0],
      scaleLog2: 0x3e3c1f05,
      sk,
      maskingSteps: 2,
    };
    assertTileEqualsRows(common, { kWalk: engine.kWalkAuto, q, visible, label: build.id });
  }
});

Deno.test("`_fa2TileWalk()` equals the per-row reference walk on rows whose max stays -inf, within and past the masking iterations", () => {
  // Rows 0..3: q = -inf in column 0 against keys of 1 there, so every score is -inf; rows 4, 5
  // ordinary. With 3 masking iterations of 3 blocks the -inf rows end as zeros; with fewer, the
  // rescale of a later block computes (-inf) - (-inf) and their O and lane sums are NaN.
  const dp = findDatapath(profile("a100"), { family: "mma", input: "bf16", output: "fp32" })!;
  const blockN = 64, sk = 2 * blockN + 37, rows = 6;
  const q = synthBf16("neg-inf", { label: "q", count: rows * D, span: 3 });
  const k = synthBf16("neg-inf", { label: "k", count: sk * D, span: 3 });
  const v = synthBf16("neg-inf", { label: "v", count: sk * D, span: 4 });
  for (let r = 0; r < 4; r++) q[r * D] = 0xff80;
  for (let j = 0; j < sk; j++) k[j * D] = 0x3f80;
  const key = (j: number) => k.subarray(j * D, (j + 1) * D);
  const value = (j: number) => v.subarray(j * D, (j + 1) * D);
  const visible = [1, blockN + 1, sk, sk, sk, 70];
  for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
    for (const maskingSteps of [1, 2, 3]) {
      const common = {
        dp,
        arith: _fa2Arith(build, sfu),
        key,
        value,
        blockN,
        blocks: [2, 1, 0],
        scaleLog2: 0x3e3c1f05,
        sk,
        maskingSteps,
      };
      const label = `${build.id} maskingSteps ${maskingSteps}`;
      for (const kWalk of [kWalkReference, engine.kWalkAuto]) {
        assertTileEqualsRows(common, { kWalk, q, visible, label });
      }
      const tile = _fa2TileWalk({ ...common, kWalk: engine.kWalkAuto, q, d: D, visible });
      tile.forEach((st, r) => {
        const nan = r < 4 && maskingSteps < 3;
        assert.equal(st.rowMax, r < 4 ? 0xff800000 : st.rowMax, label);
        assert.equal([...st.laneSums].every((x) => x === 0x7fffffff), nan, `${label} row ${r}`);
        assert.equal(
          [...st.o].every((x) => x === (nan ? 0x7fffffff : 0)),
          r < 4,
          `${label} row ${r}`,
        );
      });
    }
  }
});

Deno.test("`flashAttentionForward()` gives the same bits with the wasm K-walk as with the reference", () => {
  const cases: [string, Partial<FlashAttentionOptions>, number, number, number][] = [
    ["standard, GQA, rows past one m-block", { heads: 4, kvHeads: 2 }, 150, 150, 1],
    [
      "split-KV launch on 132 SMs",
      { profile: profile("h100-sxm"), multiProcessorCount: 132 },
      130,
      130,
      2,
    ],
    [
      "decode (GQA swap)",
      { heads: 4, kvHeads: 1, profile: profile("h100-sxm"), multiProcessorCount: 132 },
      1,
      300,
      2,
    ],
  ];
  for (const [label, over, sq, sk, minSplits] of cases) {
    const heads = over.heads ?? 1, kvHeads = over.kvHeads ?? 1;
    const x = {
      q: synthBf16(label, { label: "q", count: sq * heads * D, span: 3 }),
      k: synthBf16(label, { label: "k", count: sk * kvHeads * D, span: 3 }),
      v: synthBf16(label, { label: "v", count: sk * kvHeads * D, span: 4 }),
    };
    const o = fa2Options({ returnLse: true, ...over });
    const ref = flashAttentionForward(x, o);
    const fast = flashAttentionForward(x, { ...o, kWalk: engine.kWalkAuto });
    assert.ok(ref.splits >= minSplits, `${label}: ${ref.splits} splits`);
    assert.deepEqual(fast.out, ref.out, label);
    assert.deepEqual(fast.lse, ref.lse, label);
  }
});
