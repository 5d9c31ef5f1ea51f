/**
 * Query heads of a KV head stacked in one tile (`fa2KvGroup`) give every head the bits it gets
 * alone (`fa2Head`): rows never mix in FA2.
 */
import assert from "node:assert/strict";
import {
  FA2_DAO_FASTMATH,
  FA2_PYTORCH_BUNDLED,
  fa2Head,
  fa2KvGroup,
  fa2Runner,
  fa2Sinks,
  planFa2,
} from "../../../src/kernels/mod.ts";
import { ENGINE, fa2Options, profile, qkv, TESLA } from "./_fa2_fixture.ts";

/** The first index where two arrays differ (or differ in length: the shorter length), else -1. */
function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

Deno.test("fa2KvGroup() equals fa2Head() for every query head: prefill, varlen, decode with splits, GQA 1/2/4", () => {
  const cases = [
    { sq: 150, sk: 150, heads: 4, kvHeads: 1, causal: true, gpu: "a100" },
    { sq: 70, sk: 70, heads: 4, kvHeads: 2, causal: false, gpu: "h100-sxm" },
    { sq: 1, sk: 900, heads: 8, kvHeads: 2, causal: true, gpu: "a100" }, // decode: split-KV
    { sq: 3, sk: 300, heads: 2, kvHeads: 2, causal: true, gpu: "h100-sxm" },
    { sq: 100, sk: 100, heads: 4, kvHeads: 2, causal: true, gpu: "a100", cu: [0, 40, 100] },
  ];
  let splitSeen = false;
  for (const c of cases) {
    for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
      for (const wasm of [false, true]) {
        const x = qkv(`group-${c.sq}-${c.heads}-${build.id}`, c);
        const o = fa2Options({
          profile: profile(c.gpu),
          multiProcessorCount: c.gpu === "a100" ? 108 : 132,
          build,
          heads: c.heads,
          kvHeads: c.kvHeads,
          causal: c.causal,
          returnLse: true,
          returnFp32: true,
          ...(c.cu === undefined ? {} : { cuSeqlensQ: c.cu, cuSeqlensK: c.cu }),
        });
        const { plan, mufu } = planFa2(x, o);
        const tileSoftmax = wasm ? ENGINE.fa2TileSoftmax(build, TESLA) : undefined;
        const runner = () => fa2Runner(plan.build, { mufu, kWalk: ENGINE.kWalkAuto, tileSoftmax });
        const one = fa2Sinks(plan);
        const r1 = runner();
        for (let h = 0; h < plan.heads; h++) {
          fa2Head(plan, { runner: r1, inputs: x, h, sinks: one });
        }
        const grouped = fa2Sinks(plan);
        const r2 = runner();
        for (let kvh = 0; kvh < plan.kvHeads; kvh++) {
          fa2KvGroup(plan, { runner: r2, inputs: x, kvh, sinks: grouped });
        }
        const label = `${JSON.stringify(c)} ${build.id} wasm ${wasm} splits ${plan.splits}`;
        // (First differing index, not deepEqual: its diff of large arrays takes minutes.)
        assert.equal(firstDiff(grouped.out, one.out), -1, `${label}: out`);
        assert.equal(firstDiff(grouped.outF32!, one.outF32!), -1, `${label}: outF32`);
        assert.equal(firstDiff(grouped.lse!, one.lse!), -1, `${label}: lse`);
        assert.ok(one.out.some((v) => v !== 0), label);
        splitSeen ||= plan.splits > 1;
      }
    }
  }
  assert.ok(splitSeen, "a split-KV launch among the cases");
});

Deno.test("fa2KvGroup() equals fa2Head() at head dims 64, 96, 256: prefill, varlen, split-KV prefill, decode", () => {
  const cases = [
    { sq: 140, sk: 140, heads: 4, kvHeads: 2, causal: true, gpu: "a100" },
    { sq: 70, sk: 70, heads: 4, kvHeads: 1, causal: false, gpu: "l4" },
    { sq: 1, sk: 900, heads: 8, kvHeads: 2, causal: true, gpu: "h100-sxm" }, // decode: split-KV
    { sq: 3, sk: 300, heads: 2, kvHeads: 2, causal: true, gpu: "h100-sxm" }, // split prefill
    { sq: 100, sk: 100, heads: 4, kvHeads: 2, causal: true, gpu: "a100", cu: [0, 40, 100] },
  ];
  const sms: Record<string, number> = { a100: 108, l4: 58, "h100-sxm": 132 };
  let splitSeen = 0;
  for (const d of [64, 96, 256]) {
    for (const c of cases) {
      for (const build of [FA2_DAO_FASTMATH, FA2_PYTORCH_BUNDLED]) {
        const wasm = build === FA2_DAO_FASTMATH; // both softmax paths, one per build
        const x = qkv(`group${d}-${c.sq}-${c.heads}-${build.id}`, { ...c, d });
        const o = fa2Options({
          headDim: d,
          profile: profile(c.gpu),
          multiProcessorCount: sms[c.gpu]!,
          build,
          heads: c.heads,
          kvHeads: c.kvHeads,
          causal: c.causal,
          returnLse: true,
          returnFp32: true,
          ...(c.cu === undefined ? {} : { cuSeqlensQ: c.cu, cuSeqlensK: c.cu }),
        });
        const { plan, mufu } = planFa2(x, o);
        const tileSoftmax = wasm ? ENGINE.fa2TileSoftmax(build, TESLA) : undefined;
        const runner = () => fa2Runner(plan.build, { mufu, kWalk: ENGINE.kWalkAuto, tileSoftmax });
        const one = fa2Sinks(plan);
        const r1 = runner();
        for (let h = 0; h < plan.heads; h++) {
          fa2Head(plan, { runner: r1, inputs: x, h, sinks: one });
        }
        const grouped = fa2Sinks(plan);
        const r2 = runner();
        for (let kvh = 0; kvh < plan.kvHeads; kvh++) {
          fa2KvGroup(plan, { runner: r2, inputs: x, kvh, sinks: grouped });
        }
        const label = `hdim ${d} ${JSON.stringify(c)} ${build.id} splits ${plan.splits}`;
        assert.equal(firstDiff(grouped.out, one.out), -1, `${label}: out`);
        assert.equal(firstDiff(grouped.outF32!, one.outF32!), -1, `${label}: outF32`);
        assert.equal(firstDiff(grouped.lse!, one.lse!), -1, `${label}: lse`);
        assert.ok(one.out.some((v) => v !== 0), label);
        if (plan.splits > 1) splitSeen++;
      }
    }
  }
  assert.ok(splitSeen >= 6, `split-KV launches among the cases: ${splitSeen}`);
});
