/**
 * Spec `parallel_and_vllm.md` §A2.3: "For TP >= 3, the order and the per-add precision matter."
 * Which implementations give the same bits for TP = 4 and 8, and concrete inputs where the
 * others differ.
 *
 * Agreement, as found below (every other pair differs on some input):
 * - PyTorch symm-mem two-shot and an NCCL tree that is the chain 0 -> 1 -> ... -> n-1 (root n-1)
 *   agree everywhere: both are the BF16 left fold over ranks 0..n-1.
 * - vLLM custom one-stage and two-stage agree on the elements of partition 0 (rank 0 starts the
 *   FP32 fold there too), and only there.
 * - Symm-mem two-shot and an NCCL ring in rank order agree on the elements of chunk n-1 (the
 *   fold starts at ring position 0), and only there.
 * - FP32-accumulate-once (custom) and BF16-per-hop (symm-mem, NCCL) differ even in the same
 *   order: 1 + 2^-8 + 2^-8 is 1 + 2^-7 once rounded, 1 rounded per add.
 */
import assert from "node:assert/strict";
import {
  allReduce,
  type AllReducePlan,
  ncclSingleChannelCbd,
  vllmTwoStageOwner,
} from "../../../src/kernels/allreduce/mod.ts";
import { chain, heapTree, orderSensitivePartials, splitCbd } from "./_plans.ts";

function plans(ws: number, count: number): Record<string, AllReducePlan> {
  const identity = Array.from({ length: ws }, (_, i) => i);
  const cbd = ncclSingleChannelCbd(count, { chunkBytes: 2 * 1024 * 1024, protocol: "simple" });
  return {
    custom1: { kind: "vllm-custom-1stage", worldSize: ws },
    custom2: { kind: "vllm-custom-2stage", worldSize: ws },
    twoShot: { kind: "torch-symm-mem-two-shot", worldSize: ws },
    ringRankOrder: { kind: "nccl-ring", worldSize: ws, protocol: "simple", cbd, rings: [identity] },
    ringReversed: {
      kind: "nccl-ring",
      worldSize: ws,
      protocol: "simple",
      cbd,
      rings: [[0, ...identity.slice(1).reverse()]],
    },
    ringThreeChannels: {
      kind: "nccl-ring",
      worldSize: ws,
      protocol: "ll",
      cbd: splitCbd(count, 3, [1, 2, 3]),
      rings: [identity, identity, identity],
    },
    treeChainToLast: {
      kind: "nccl-tree",
      worldSize: ws,
      protocol: "simple",
      cbd,
      trees: [chain(identity)],
    },
    treeChainToFirst: {
      kind: "nccl-tree",
      worldSize: ws,
      protocol: "simple",
      cbd,
      trees: [chain([...identity].reverse())],
    },
    treeBinary: {
      kind: "nccl-tree",
      worldSize: ws,
      protocol: "simple",
      cbd,
      trees: [heapTree(ws)],
    },
  };
}

/** Partials with `values` on ranks 0.. and zeros elsewhere, `count` copies per rank. */
function fill(ws: number, count: number, values: readonly number[]): Uint16Array[] {
  return Array.from({ length: ws }, (_, r) => new Uint16Array(count).fill(values[r] ?? 0));
}

for (const ws of [4, 8]) {
  Deno.test(`\`allReduce()\` with TP = ${ws}: FP32-once gives 1 + 2^-7 where BF16 per hop in rank order gives 1`, () => {
    const count = 8 * ws * 4;
    const x = fill(ws, count, [0x3f80, 0x3b80, 0x3b80]); // 1, 2^-8, 2^-8, 0...
    const p = plans(ws, count);
    assert.equal(allReduce(x, p.custom1!)[0], 0x3f81);
    assert.equal(allReduce(x, p.custom2!).every((v) => v === 0x3f81), true); // FP32 in any order
    assert.equal(allReduce(x, p.twoShot!)[0], 0x3f80);
    assert.equal(allReduce(x, p.treeChainToLast!)[0], 0x3f80);
    // The ring in rank order: chunk 0 folds ranks 1, 2, ..., 0 (2^-8 + 2^-8 first, exact), the
    // last chunk folds 0, 1, ... like the two-shot.
    const ring = allReduce(x, p.ringRankOrder!);
    assert.equal(ring[0], 0x3f81);
    assert.equal(ring[count - 1], 0x3f80);
  });

  Deno.test(`\`allReduce()\` with TP = ${ws}: the start rank changes 2^24 + 1 + 1 - 2^24 (FP32: 0 or 2; BF16 per hop: 0 or 1)`, () => {
    const count = 8 * ws;
    const x = fill(ws, count, [0x4b80, 0x3f80, 0x3f80, 0xcb80]);
    const p = plans(ws, count);
    assert.equal(allReduce(x, p.custom1!)[0], 0x0000); // ((2^24 + 1) + 1): ties to even twice
    const two = allReduce(x, p.custom2!);
    assert.equal(vllmTwoStageOwner(8, { count, worldSize: ws }), 1);
    assert.equal(two[0], 0x0000); // partition 0: ranks 0, 1, 2, ...
    assert.equal(two[8], 0x4000); // partition 1: 1 + 1 first, then -2^24 + 2 exact, + 2^24 = 2
    // BF16 per hop depends on the order as well: the two-shot loses both 1s next to 2^24, the
    // rank-order ring's chunk 1 (elements 8..15) folds 1 + -2^24 = -2^24, + 2^24 = 0, + 1 = 1.
    assert.equal(allReduce(x, p.twoShot!).every((v) => v === 0), true);
    assert.equal(allReduce(x, p.ringRankOrder!)[8], 0x3f80);
  });

  Deno.test(`\`allReduce()\` with TP = ${ws}: only the documented pairs agree, on the documented elements`, () => {
    const count = 8 * ws * 96 + 8; // ragged against ranks, packs and chunks
    const x = orderSensitivePartials(ws, count, 4000 + ws);
    const p = plans(ws, count);
    const out = Object.fromEntries(Object.entries(p).map(([k, plan]) => [k, allReduce(x, plan)]));
    const names = Object.keys(out);
    const agreeing: string[] = [];
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const a = out[names[i]!]!;
        const b = out[names[j]!]!;
        if (a.every((v, e) => v === b[e])) agreeing.push(`${names[i]}=${names[j]}`);
      }
    }
    assert.deepEqual(agreeing, ["twoShot=treeChainToLast"]);

    const chunk = Math.ceil(Math.ceil(count / ws) / 8) * 8; // the tail chunk of the one-channel ring
    let partition0 = 0;
    let lastChunk = 0;
    for (let e = 0; e < count; e++) {
      const inPartition0 = vllmTwoStageOwner(e, { count, worldSize: ws }) === 0;
      const sameCustom = out.custom1![e] === out.custom2![e];
      if (inPartition0) {
        partition0++;
        assert.equal(sameCustom, true, `custom stages differ at ${e} in partition 0`);
      }
      if (Math.floor(e / chunk) === ws - 1) {
        lastChunk++;
        assert.equal(out.twoShot![e], out.ringRankOrder![e], `ring chunk n-1 differs at ${e}`);
      }
    }
    assert.ok(partition0 > 0 && lastChunk > 0);
    // Outside those subsets the same pairs do differ somewhere.
    assert.ok(
      out.custom1!.some((v, e) =>
        v !== out.custom2![e] && vllmTwoStageOwner(e, { count, worldSize: ws }) !== 0
      ),
    );
    assert.ok(
      out.twoShot!.some((v, e) => v !== out.ringRankOrder![e] && Math.floor(e / chunk) !== ws - 1),
    );
  });
}
