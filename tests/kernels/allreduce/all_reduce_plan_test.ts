/**
 * Plans are data: `parseAllReducePlan()` and `allReduce()` refuse malformed plans, unmodelled
 * implementations (with the reason of `allReduceUnsupported()`), and partials that do not fit.
 */
import assert from "node:assert/strict";
import {
  allReduce,
  type AllReducePlan,
  allReduceUnsupported,
  MODELLED_ALL_REDUCE_KINDS,
  ncclChannelParts,
  ncclSingleChannelCbd,
  parseAllReducePlan,
  UNMODELLED_ALL_REDUCE_KINDS,
} from "../../../src/kernels/allreduce/mod.ts";

const cbd8 = ncclSingleChannelCbd(8, { chunkBytes: 512, protocol: "simple" });
const ring4 = {
  kind: "nccl-ring",
  worldSize: 4,
  protocol: "simple",
  cbd: cbd8,
  rings: [[0, 1, 2, 3]],
};
const tree4 = {
  kind: "nccl-tree",
  worldSize: 4,
  protocol: "simple",
  cbd: cbd8,
  trees: [{ down: [[1], [2], [3], []] }],
};

function refuses(
  value: unknown,
  error: typeof RangeError | typeof TypeError,
  pattern: RegExp,
): void {
  assert.throws(
    () => parseAllReducePlan(value),
    (e: unknown) => e instanceof error && pattern.test((e as Error).message),
  );
}

Deno.test("`allReduceUnsupported()` names a reason for every unmodelled kind and none for modelled ones", () => {
  for (const kind of MODELLED_ALL_REDUCE_KINDS) assert.equal(allReduceUnsupported(kind), null);
  for (const kind of UNMODELLED_ALL_REDUCE_KINDS) {
    assert.ok((allReduceUnsupported(kind) ?? "").length > 40, kind);
  }
});

Deno.test("`parseAllReducePlan()` refuses unmodelled kinds with their reason, and unknown kinds", () => {
  for (const kind of UNMODELLED_ALL_REDUCE_KINDS) {
    const reason = allReduceUnsupported(kind)!;
    assert.throws(
      () => parseAllReducePlan({ kind, worldSize: 4 }),
      (e: unknown) => e instanceof RangeError && e.message.includes(reason),
    );
  }
  refuses({ kind: "nccl-pat", worldSize: 4 }, RangeError, /unknown kind 'nccl-pat'/);
  refuses({ worldSize: 4 }, TypeError, /'kind' is not a string/);
  refuses(null, TypeError, /is not an object/);
});

Deno.test("`parseAllReducePlan()` refuses bad world sizes, fields, rings, trees and cbds", () => {
  refuses({ kind: "vllm-custom-1stage", worldSize: 3 }, RangeError, /2, 4, 6, 8/);
  refuses({ kind: "torch-symm-mem-two-shot", worldSize: 1 }, RangeError, /worldSize/);
  refuses({ kind: "torch-symm-mem-two-shot", worldSize: "4" }, TypeError, /worldSize/);
  refuses(
    { kind: "vllm-custom-1stage", worldSize: 4, stages: 2 },
    RangeError,
    /unknown field 'stages'/,
  );
  refuses({ ...ring4, protocol: "ll64" }, RangeError, /protocol/);
  refuses({ ...ring4, rings: [[1, 0, 2, 3]] }, RangeError, /start at rank 0/);
  refuses({ ...ring4, rings: [[0, 1, 1, 3]] }, RangeError, /permutation/);
  refuses({ ...ring4, rings: [[0, 1, 2]] }, RangeError, /3 ranks, expected 4/);
  refuses({ ...ring4, rings: [] }, RangeError, /0 channels/);
  refuses({ ...ring4, cbd: { ...cbd8, countHi: 4 } }, RangeError, /one channel/);
  refuses({ ...ring4, cbd: { ...cbd8, chunkGrainsLo: 0 } }, RangeError, /zero chunk/);
  refuses({ ...ring4, cbd: { ...cbd8, chunkGrainsLo: 2 ** 21 } }, RangeError, /21 bits/);
  refuses({ ...ring4, cbd: { ...cbd8, countLo: -1 } }, RangeError, /cbd.countLo/);
  refuses({ ...tree4, trees: [{ down: [[1], [], [3], []] }] }, RangeError, /2 roots/);
  refuses({ ...tree4, trees: [{ down: [[1], [2], [1], []] }] }, RangeError, /bad child 1/);
  refuses({ ...tree4, trees: [{ down: [[], [2], [3], [1]] }] }, RangeError, /cycle/);
  refuses({ ...tree4, trees: [{ down: [[1, 2, 3, 3], [], [], []] }] }, RangeError, /<= 3 ranks/);
  refuses({ ...tree4, trees: [{ down: [[1], [2], [3]] }] }, RangeError, /children for 4 ranks/);
  assert.ok(Object.isFrozen((parseAllReducePlan(ring4) as { rings: readonly unknown[] }).rings[0]));
});

Deno.test("`allReduce()` refuses partials that do not fit the plan", () => {
  const x = (n: number, len: number) => Array.from({ length: n }, () => new Uint16Array(len));
  assert.throws(
    () => allReduce(x(3, 8), { kind: "vllm-custom-1stage", worldSize: 4 }),
    /3 partials/,
  );
  assert.throws(
    () => allReduce(x(4, 12), { kind: "vllm-custom-2stage", worldSize: 4 }),
    /multiple of 8/,
  );
  assert.throws(
    () =>
      allReduce([...x(3, 8), new Uint16Array(9)], {
        kind: "torch-symm-mem-two-shot",
        worldSize: 4,
      }),
    /9 elements/,
  );
  assert.throws(
    () =>
      allReduce([...x(3, 8), new Float32Array(8) as unknown as Uint16Array], {
        kind: "torch-symm-mem-two-shot",
        worldSize: 4,
      }),
    TypeError,
  );
  assert.throws(() => allReduce(x(4, 9), ring4 as AllReducePlan), /covers 8 elements, not 9/);
  assert.throws(() => allReduce(x(4, 9), tree4 as AllReducePlan), /covers 8 elements, not 9/);
  assert.throws(
    () => allReduce(x(4, 8), { kind: "nccl-nvls", worldSize: 4 } as unknown as AllReducePlan),
    /NVSwitch/,
  );
});

Deno.test("`ncclChannelParts()` reads countLo/countMid/countHi as ncclCollCbdPart does", () => {
  const cbd = {
    countLo: 5,
    countMid: 7,
    countHi: 3,
    chunkGrainsLo: 1,
    chunkGrainsMid: 2,
    chunkGrainsHi: 3,
  };
  assert.deepEqual(ncclChannelParts(cbd, { nChannels: 4, protocol: "ll128" }), [
    { offset: 0, count: 5, chunkCount: 960 },
    { offset: 5, count: 7, chunkCount: 1920 },
    { offset: 12, count: 7, chunkCount: 1920 },
    { offset: 19, count: 3, chunkCount: 2880 },
  ]);
  assert.deepEqual(ncclChannelParts(cbd, { nChannels: 1, protocol: "ll" }), [{
    offset: 0,
    count: 5,
    chunkCount: 8,
  }]);
  assert.throws(() => ncclChannelParts(cbd, { nChannels: 0, protocol: "ll" }), RangeError);
  assert.throws(() => ncclSingleChannelCbd(8, { chunkBytes: 100, protocol: "simple" }), RangeError);
});
