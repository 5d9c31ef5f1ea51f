/**
 * Plans and inputs shared by the all-reduce tests: one plan per modelled implementation for a
 * world size, with NCCL descriptors small enough that elements spread over several channels,
 * loops and tail chunks.
 */
import {
  type AllReducePlan,
  type NcclCbd,
  ncclSingleChannelCbd,
  type NcclTree,
} from "../../../src/kernels/allreduce/mod.ts";

/** A deterministic PRNG (mulberry32), so every failure reproduces. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A cbd over `nChannels` channels splitting `count` unevenly, with small chunks. */
export function splitCbd(count: number, nChannels: number, grains: readonly number[]): NcclCbd {
  if (nChannels === 1) {
    return {
      ...ncclSingleChannelCbd(count, { chunkBytes: 16, protocol: "ll" }),
      chunkGrainsLo: grains[0]!,
    };
  }
  const nMid = nChannels - 2;
  const countMid = Math.floor(count / (nChannels + 1));
  const countLo = Math.floor((count - nMid * countMid) / 3);
  const countHi = count - countLo - nMid * countMid;
  return {
    countLo,
    countMid: nMid > 0 ? countMid : 0,
    countHi,
    chunkGrainsLo: grains[0]!,
    chunkGrainsMid: nMid > 0 ? grains[1]! : 0,
    chunkGrainsHi: grains[2]!,
  };
}

/** A chain tree (single-node NCCL trees are chains): `order[0]` is the leaf, the last the root. */
export function chain(order: readonly number[]): NcclTree {
  const down: number[][] = order.map(() => []);
  for (let i = 1; i < order.length; i++) down[order[i]!]!.push(order[i - 1]!);
  return { down };
}

/** A binary tree over ranks 0..n-1 in heap order (root 0, children 2r+1, 2r+2). */
export function heapTree(n: number): NcclTree {
  return { down: Array.from({ length: n }, (_, r) => [2 * r + 1, 2 * r + 2].filter((c) => c < n)) };
}

/** One plan per modelled implementation (several NCCL variants) for `count` elements. */
export function allPlans(ws: number, count: number): { name: string; plan: AllReducePlan }[] {
  const out: { name: string; plan: AllReducePlan }[] = [];
  if ([2, 4, 6, 8].includes(ws) && count % 8 === 0) {
    out.push({ name: "vllm-custom-1stage", plan: { kind: "vllm-custom-1stage", worldSize: ws } });
    out.push({ name: "vllm-custom-2stage", plan: { kind: "vllm-custom-2stage", worldSize: ws } });
  }
  out.push({
    name: "torch-symm-mem-two-shot",
    plan: { kind: "torch-symm-mem-two-shot", worldSize: ws },
  });
  const identity = Array.from({ length: ws }, (_, i) => i);
  const shuffled = [0, ...identity.slice(1).reverse()];
  out.push({
    name: "nccl-ring 1 channel simple",
    plan: {
      kind: "nccl-ring",
      worldSize: ws,
      protocol: "simple",
      cbd: ncclSingleChannelCbd(count, { chunkBytes: 2 * 1024 * 1024, protocol: "simple" }),
      rings: [identity],
    },
  });
  out.push({
    name: "nccl-ring 3 channels ll",
    plan: {
      kind: "nccl-ring",
      worldSize: ws,
      protocol: "ll",
      cbd: splitCbd(count, 3, [1, 2, 3]),
      rings: [identity, shuffled, identity],
    },
  });
  out.push({
    name: "nccl-tree chains",
    plan: {
      kind: "nccl-tree",
      worldSize: ws,
      protocol: "simple",
      cbd: splitCbd(count, 2, [1, 0, 1]),
      trees: [chain(identity), chain([...identity].reverse())],
    },
  });
  out.push({
    name: "nccl-tree binary",
    plan: {
      kind: "nccl-tree",
      worldSize: ws,
      protocol: "simple",
      cbd: ncclSingleChannelCbd(count, { chunkBytes: 512 * 1024, protocol: "simple" }),
      trees: [heapTree(ws)],
    },
  });
  return out;
}

/**
 * BF16 partials that make the order matter: element 0 is -0 on every rank (the sign of an
 * all-(-0) sum); some elements are 2^24, -2^24 and ones (FP32 ties); about a third carry a large
 * value and its negation on two ranks with small terms elsewhere (absorption and cancellation);
 * the rest mix magnitudes and signs, with some specials.
 */
export function orderSensitivePartials(ws: number, count: number, seed: number): Uint16Array[] {
  const next = rng(seed);
  const pick = (lo: number, span: number) => lo + Math.floor(next() * span);
  const value = (exp: number) => (next() < 0.5 ? 0x8000 : 0) | (exp << 7) | pick(0, 128);
  const specials = [0x0000, 0x8000, 0x0001, 0x807f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0];
  const x = Array.from({ length: ws }, () => new Uint16Array(count));
  for (let e = 0; e < count; e++) {
    const mode = next();
    if (e === 0) {
      for (const r of x) r[e] = 0x8000;
    } else if (mode < 0.15) {
      // 2^24 and -2^24 on two ranks, 1 elsewhere: in FP32 a 1 added next to 2^24 is a tie lost to
      // even, two 1s added first survive, so the result depends on where the fold starts.
      for (const r of x) r[e] = 0x3f80;
      const a = pick(0, ws);
      x[a]![e] = 0x4b80;
      x[(a + pick(1, ws - 1)) % ws]![e] = 0xcb80;
    } else if (mode < 0.45) {
      const big = pick(127 + 10, 20);
      const a = pick(0, ws);
      const b = (a + pick(1, ws - 1)) % ws;
      for (const r of x) r[e] = value(big - pick(5, 18));
      x[a]![e] = value(big);
      x[b]![e] = x[a]![e]! ^ 0x8000;
    } else {
      for (const r of x) {
        r[e] = next() < 0.004 ? specials[pick(0, specials.length)]! : value(pick(115, 25));
      }
    }
  }
  return x;
}
