/**
 * Each all-reduce against an independent reference written from spec `parallel_and_vllm.md` §A2
 * and the kernels it cites, with a different structure: the references simulate every rank and
 * every message step by step (vLLM's stage-1 / stage-2 loops, PyTorch's slices, NCCL's runRing
 * step list and tree phases), use the format-generic `floatAdd`/`convert` of src/numerics for
 * the arithmetic, and check that all ranks end with the same bits.
 */
import assert from "node:assert/strict";
import {
  allReduce,
  type AllReducePlan,
  type NcclCbd,
  type NcclRingPlan,
  type NcclTreePlan,
} from "../../../src/kernels/allreduce/mod.ts";
import { BF16, convert, floatAdd, FP32 } from "../../../src/numerics/mod.ts";
import { allPlans, chain, heapTree, orderSensitivePartials, rng, splitCbd } from "./_plans.ts";

const f32add = (a: number, b: number) => floatAdd(FP32, [a, b]);
const bf16add = (a: number, b: number) => floatAdd(BF16, [a, b]);
const up = (b: number) => convert(BF16, FP32, b);
const down = (f: number) => convert(FP32, BF16, f);

/** vLLM `packed_reduce` on one 8-element pack: FP32 accumulation over `ptrs` in order. */
function packedReduce(ptrs: readonly Uint16Array[], pack: number): number[] {
  const tmp: number[] = [];
  for (let j = 0; j < 8; j++) tmp.push(up(ptrs[0]![pack * 8 + j]!));
  for (let i = 1; i < ptrs.length; i++) {
    for (let j = 0; j < 8; j++) tmp[j] = f32add(tmp[j]!, up(ptrs[i]![pack * 8 + j]!));
  }
  return tmp.map(down);
}

/** `cross_device_reduce_1stage` run by every rank. */
function custom1Stage(x: readonly Uint16Array[]): Uint16Array[] {
  return x.map(() => {
    const result = new Uint16Array(x[0]!.length);
    for (let idx = 0; idx < result.length / 8; idx++) result.set(packedReduce(x, idx), idx * 8);
    return result;
  });
}

/** `cross_device_reduce_2stage`: reduce-scatter into per-rank temporaries, then all-gather. */
function custom2Stage(x: readonly Uint16Array[]): Uint16Array[] {
  const n = x.length;
  const size = x[0]!.length / 8;
  const part = Math.floor(size / n);
  const largestPart = part + (size % n);
  const tmp = x.map(() => new Uint16Array(largestPart * 8));
  for (let rank = 0; rank < n; rank++) {
    const ptrs = x.map((_, i) => x[(rank + i) % n]!);
    const start = rank * part;
    const end = rank === n - 1 ? size : start + part;
    for (let idx = start; idx < end; idx++) {
      tmp[rank]!.set(packedReduce(ptrs, idx), (idx - start) * 8);
    }
  }
  return x.map((_, rank) => {
    const result = new Uint16Array(size * 8);
    for (let idx = 0; idx < largestPart; idx++) {
      for (let i = 0; i < n; i++) {
        const from = (rank + i) % n;
        if (from === n - 1 || idx < part) {
          result.set(tmp[from]!.subarray(idx * 8, idx * 8 + 8), (from * part + idx) * 8);
        }
      }
    }
    return result;
  });
}

/** `two_shot_all_reduce_kernel_inplace` with 16-byte vectors, every rank's slice in turn. */
function twoShot(x: readonly Uint16Array[]): Uint16Array[] {
  const n = x.length;
  const numel = x[0]!.length;
  const perThread = 8;
  const perRank = Math.ceil(numel / (perThread * n)) * perThread;
  const bufs = x.map((b) => b.slice());
  const specialised = n === 2 || n === 4 || n === 8;
  for (let rank = 0; rank < n; rank++) {
    const start = perRank * rank;
    for (let i = 0; i < perRank; i++) {
      if (start + i >= numel) continue;
      const vecs = x.map((b) => b[start + i]!); // vecs[remote_rank]
      let acc = specialised ? vecs[0]! : 0x0000; // `Vec acc{}` is +0
      for (let r = specialised ? 1 : 0; r < n; r++) acc = bf16add(acc, vecs[r]!);
      for (let step = 0; step < n; step++) bufs[(rank + step) % n]![start + i] = acc;
    }
  }
  return bufs;
}

/** `ncclCollCbdPart` with channelLo = 0 (element size 2). */
function cbdPart(cbd: NcclCbd, channelId: number, nChannels: number, grainBytes: number) {
  const eltPerGrain = grainBytes / 2;
  const channelLo = 0;
  const channelHi = nChannels - 1;
  const nMidChannels = channelHi - channelLo - 1;
  if (channelId === channelLo) {
    return {
      gridOffset: 0,
      channelCount: cbd.countLo,
      chunkCount: cbd.chunkGrainsLo * eltPerGrain,
    };
  }
  if (channelId === channelHi) {
    return {
      gridOffset: cbd.countLo + nMidChannels * cbd.countMid,
      channelCount: cbd.countHi,
      chunkCount: cbd.chunkGrainsHi * eltPerGrain,
    };
  }
  const mid = channelId - channelLo - 1;
  return {
    gridOffset: cbd.countLo + mid * cbd.countMid,
    channelCount: cbd.countMid,
    chunkCount: cbd.chunkGrainsMid * eltPerGrain,
  };
}

const GRAIN: Record<string, number> = { simple: 512, ll: 16, ll128: 1920 };

type Op = { kind: "send" | "rrs" | "rrcs" | "rcs" | "recv"; offset: number; nelem: number };

/** The primitive calls of `runRing` on the rank at ring position `ringIx`, in order. */
function runRingOps(ringIx: number, nranks: number, part: ReturnType<typeof cbdPart>): Op[] {
  const ops: Op[] = [];
  let chunkCount = part.chunkCount;
  const loopCount = nranks * chunkCount;
  const modRanks = (r: number) => r - (r >= nranks ? nranks : 0);
  for (let elemOffset = 0; elemOffset < part.channelCount; elemOffset += loopCount) {
    const remCount = part.channelCount - elemOffset;
    if (remCount < loopCount) chunkCount = Math.ceil(Math.ceil(remCount / nranks) / 8) * 8;
    const at = (chunk: number, kind: Op["kind"]) => {
      const chunkOffset = chunk * chunkCount;
      const nelem = Math.min(chunkCount, remCount - chunkOffset);
      ops.push({
        kind,
        offset: part.gridOffset + elemOffset + chunkOffset,
        nelem: Math.max(nelem, 0),
      });
    };
    at(modRanks(ringIx + nranks - 1), "send");
    for (let j = 2; j < nranks; ++j) at(modRanks(ringIx + nranks - j), "rrs");
    at(ringIx, "rrcs");
    for (let j = 1; j < nranks - 1; ++j) at(modRanks(ringIx + nranks - j), "rcs");
    at(modRanks(ringIx + 1), "recv");
  }
  return ops;
}

/** Every rank runs its `runRing` op list in lockstep; messages travel to the next rank. */
function ring(x: readonly Uint16Array[], plan: NcclRingPlan): Uint16Array[] {
  const n = x.length;
  const out = x.map((b) => new Uint16Array(b.length).fill(0xdead));
  plan.rings.forEach((order, c) => {
    const part = cbdPart(plan.cbd, c, plan.rings.length, GRAIN[plan.protocol]!);
    const ops = x.map((_, rank) => runRingOps(order.indexOf(rank), n, part));
    let inbox: (number[] | null)[] = x.map(() => null);
    for (let t = 0; t < ops[0]!.length; t++) {
      const sent: (number[] | null)[] = x.map(() => null);
      for (let rank = 0; rank < n; rank++) {
        const op = ops[rank]![t]!;
        const recv = inbox[rank];
        const mine = Array.from(x[rank]!.subarray(op.offset, op.offset + op.nelem));
        let data: number[];
        if (op.kind === "send") data = mine;
        else if (op.kind === "rrs" || op.kind === "rrcs") {
          data = mine.map((v, j) => bf16add(v, recv![j]!));
        } else data = recv!;
        const stores = op.kind === "rrcs" || op.kind === "rcs" || op.kind === "recv";
        if (stores && data.length > 0) out[rank]!.set(data, op.offset);
        const next = order[(order.indexOf(rank) + 1) % n]!;
        if (op.kind !== "recv") sent[next] = data;
      }
      inbox = sent;
    }
  });
  return out;
}

/** Reduce up each channel's tree chunk by chunk (local first, then children in order), then broadcast. */
function tree(x: readonly Uint16Array[], plan: NcclTreePlan): Uint16Array[] {
  const out = x.map((b) => new Uint16Array(b.length).fill(0xdead));
  plan.trees.forEach((t, c) => {
    const part = cbdPart(plan.cbd, c, plan.trees.length, GRAIN[plan.protocol]!);
    const children = new Set(t.down.flat());
    const root = t.down.findIndex((_, r) => !children.has(r));
    const up = (rank: number, offset: number, nelem: number): number[] => {
      const recvs = t.down[rank]!.map((child) => up(child, offset, nelem));
      return Array.from(x[rank]!.subarray(offset, offset + nelem), (v, j) => {
        let acc = v;
        for (const r of recvs) acc = bf16add(acc, r[j]!);
        return acc;
      });
    };
    const bcast = (rank: number, data: number[], offset: number): void => {
      out[rank]!.set(data, offset);
      for (const child of t.down[rank]!) bcast(child, data, offset);
    };
    const chunk = Math.max(part.chunkCount, 1);
    for (let e = 0; e < part.channelCount; e += chunk) {
      const offset = part.gridOffset + e;
      const nelem = Math.min(chunk, part.channelCount - e);
      bcast(root, up(root, offset, nelem), offset);
    }
  });
  return out;
}

function reference(x: readonly Uint16Array[], plan: AllReducePlan): Uint16Array[] {
  switch (plan.kind) {
    case "vllm-custom-1stage":
      return custom1Stage(x);
    case "vllm-custom-2stage":
      return custom2Stage(x);
    case "torch-symm-mem-two-shot":
      return twoShot(x);
    case "nccl-ring":
      return ring(x, plan);
    case "nccl-tree":
      return tree(x, plan);
  }
}

function extraPlans(ws: number, count: number): { name: string; plan: AllReducePlan }[] {
  const next = rng(ws * 7919 + count);
  const perm = () => {
    const rest = Array.from({ length: ws - 1 }, (_, i) => i + 1);
    for (let i = rest.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [rest[i], rest[j]] = [rest[j]!, rest[i]!];
    }
    return [0, ...rest];
  };
  return [
    {
      name: "nccl-ring 4 channels random rings",
      plan: {
        kind: "nccl-ring",
        worldSize: ws,
        protocol: "ll",
        cbd: splitCbd(count, 4, [3, 1, 2]),
        rings: [perm(), perm(), perm(), perm()],
      },
    },
    {
      name: "nccl-ring 2 channels ll128",
      plan: {
        kind: "nccl-ring",
        worldSize: ws,
        protocol: "ll128",
        cbd: splitCbd(count, 2, [1, 0, 1]),
        rings: [perm(), perm()],
      },
    },
    {
      name: "nccl-tree random chain and heap",
      plan: {
        kind: "nccl-tree",
        worldSize: ws,
        protocol: "ll",
        cbd: splitCbd(count, 3, [1, 1, 1]),
        trees: [chain(perm()), heapTree(ws), chain(perm().reverse())],
      },
    },
  ];
}

const CASES: readonly [ws: number, counts: readonly number[]][] = [
  [2, [8, 1000, 4104]],
  [3, [13, 1001, 2053]],
  [4, [8, 40, 1000, 4104, 8200]],
  [5, [7, 999]],
  [6, [48, 1000, 4104]],
  [8, [8, 72, 1000, 4104, 8200]],
];

Deno.test("`allReduce()` equals a step-by-step simulation of every rank for every implementation, world size and ragged count", () => {
  let seed = 1;
  for (const [ws, counts] of CASES) {
    for (const count of counts) {
      const x = orderSensitivePartials(ws, count, seed++);
      for (const { name, plan } of [...allPlans(ws, count), ...extraPlans(ws, count)]) {
        const ranks = reference(x, plan);
        const got = allReduce(x, plan);
        ranks.forEach((r, rank) => {
          const bad = r.findIndex((v, i) => v !== got[i]);
          if (bad >= 0) {
            assert.fail(
              `${name} ws ${ws} count ${count}: rank ${rank} element ${bad} is ` +
                `${r[bad]!.toString(16)}, allReduce gives ${got[bad]!.toString(16)}`,
            );
          }
        });
      }
    }
  }
});
