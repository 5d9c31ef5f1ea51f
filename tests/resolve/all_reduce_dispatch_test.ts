/**
 * `allReducePathFinding`: on a stack that states vLLM's all-reduce environment, a named
 * all-reduce must be the path vLLM's dispatch takes for every message of the record (its passes'
 * launch rows times the hidden size, after CUDA-graph padding); an unnamed one (two ranks) and a
 * stack without a setup are not checked. Most cases run on an SXM part on an NVSwitch board,
 * where the stack's NVLink setup holds; the last tests take the bundled profiles' links.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../src/assets/mod.ts";
import {
  type AllReducePathFinding,
  allReducePathFinding,
  loadAsset,
  loadGpuProfile,
  ncclAllReduceUse,
  STACK_PROFILES,
  tensorParallelOf,
  unknownInterconnect,
} from "../../src/resolve/mod.ts";
import type { ClaimedAllReduce } from "../../src/kernels/mod.ts";

const store = await openAssetStore();
const stack = async (id: string) => (await loadAsset(store, { kind: STACK_PROFILES, id })).value;
const eager = await stack("vllm-0.11-eager-fa2");
const piecewise = await stack("vllm-0.11-custom-ops-piecewise-fa2");
const RING4: ClaimedAllReduce = {
  kind: "nccl-ring",
  protocol: "simple",
  chunkBytes: 1 << 21,
  rings: [[0, 1, 2, 3]],
};

/** An A100 SXM4 module on an NVSwitch board (the bundled `a100` profile also stands for PCIe). */
const SXM = Object.freeze({
  id: "a100-sxm4",
  name: "NVIDIA A100 SXM4",
  computeCapability: "8.0",
  links: { nvlink: ["nvswitch"] as const, sources: ["test part"] },
});

function split(tp: number, allReduce: ClaimedAllReduce) {
  const r = tensorParallelOf(eager, { tp, ep: 1, allReduce });
  if (!r.ok) throw new Error(r.reason);
  return r.parallel;
}

/** A contradiction's reason, an open path's reason after `open: `, or null. */
function why(f: AllReducePathFinding | null): string | null {
  if (f === null) return null;
  return f.kind === "contradiction" ? f.reason : `open: ${f.reason}`;
}

Deno.test("allReducePathFinding(): small messages take the one-stage custom all-reduce, large ones two stages, beyond 8 MiB NCCL", () => {
  const check = (allReduce: ClaimedAllReduce, passRows: number[], s = eager) =>
    why(allReducePathFinding(s, {
      gpu: SXM,
      parallel: split(4, allReduce),
      hidden: 4096,
      passRows,
      named: true,
    }));
  // 4 ranks: one stage below 512 KiB (64 rows of 4096 BF16), two stages up to 8 MiB, then NCCL.
  assert.equal(check({ kind: "vllm-custom-1stage" }, [1, 63]), null);
  assert.match(
    check({ kind: "vllm-custom-1stage" }, [64])!,
    /runs vllm-custom-2stage .* 524288 bytes/,
  );
  assert.equal(check({ kind: "vllm-custom-2stage" }, [64, 1000]), null);
  assert.match(check(RING4, [12])!, /names all-reduce 'nccl-ring'.*runs vllm-custom-1stage/);
  assert.equal(check(RING4, [1024]), null); // 8 MiB: the custom all-reduce's limit
  // A served record whose passes need two paths cannot name one: it FAILs at the first.
  assert.match(check({ kind: "vllm-custom-1stage" }, [1, 2000])!, /runs nccl/);
  // Piecewise graphs pad 60 rows to 64: the padded message decides.
  assert.match(check({ kind: "vllm-custom-1stage" }, [60], piecewise)!, /\(64 rows\)/);
});

Deno.test("allReducePathFinding(): unnamed all-reduces and stacks without a setup are not checked", async () => {
  const parallel = split(4, RING4);
  const o = { gpu: SXM, parallel, hidden: 4096, passRows: [12] };
  assert.equal(allReducePathFinding(eager, { ...o, named: false }), null);
  const hf = await stack("hf-qwen3-flash-attn-torch2.8");
  assert.equal(allReducePathFinding(hf, { ...o, named: true }), null);
  assert.equal(allReducePathFinding(eager, { ...o, parallel: undefined, named: true }), null);
});

Deno.test("allReducePathFinding(): a stated interconnect replaces the stack's NVLink assumption; an unknown one leaves the path unchecked", () => {
  const check = (allReduce: ClaimedAllReduce, tp: number, interconnect?: string) =>
    why(allReducePathFinding(eager, {
      gpu: SXM,
      parallel: split(tp, allReduce),
      hidden: 4096,
      passRows: [12],
      named: true,
      interconnect,
    }));
  const custom: ClaimedAllReduce = { kind: "vllm-custom-1stage" };
  // Four ranks: the custom all-reduce needs every pair NVLink-connected.
  assert.equal(check(custom, 4), null);
  assert.equal(check(custom, 4, "nvlink"), null);
  assert.equal(check(custom, 4, "nvswitch"), null);
  assert.match(
    check(custom, 4, "pcie-p2p")!,
    /runs nccl .* on the record's interconnect 'pcie-p2p'/,
  );
  assert.equal(check(RING4, 4, "pcie-p2p"), null);
  assert.match(check(RING4, 4)!, /as stack 'vllm-0\.11-eager-fa2' states its GPUs linked/);
  // Two ranks: P2P over PCIe is enough; without it NCCL runs.
  const ring2: ClaimedAllReduce = { ...RING4, rings: [[0, 1]] };
  assert.equal(check(custom, 2, "pcie-p2p"), null);
  assert.match(check(custom, 2, "pcie")!, /runs nccl/);
  assert.equal(check(ring2, 2, "pcie"), null);
  assert.equal(check(RING4, 4, "infiniband"), null);
  assert.equal(check(custom, 4, "infiniband"), null);
  assert.equal(unknownInterconnect("infiniband")?.includes("not one"), true);
  assert.equal(unknownInterconnect("pcie"), null);
  assert.equal(unknownInterconnect(undefined), null);
});

Deno.test("vllm-dispatch: each message takes the dispatch's path; NCCL needs the record's settings; the check FAILs a pass sent to NCCL without them", () => {
  const links = { gpu: SXM };
  const resolve = (allReduce: ClaimedAllReduce, interconnect?: string) => {
    const r = tensorParallelOf(eager, {
      tp: 4,
      ep: 1,
      allReduce,
      links: { ...links, interconnect },
    });
    if (!r.ok) throw new Error(r.reason);
    return r.parallel!;
  };
  const per = resolve({ kind: "vllm-dispatch" }).messageAllReduce!;
  // 4 ranks on NVLink: one stage below 512 KiB, two below 8 MiB.
  assert.equal(per(1 * 4096).kind, "vllm-custom-1stage");
  assert.equal(per(64 * 4096).kind, "vllm-custom-2stage");
  assert.throws(() => per(1024 * 4096), /NCCL settings/);
  const withRing = resolve({ kind: "vllm-dispatch", nccl: RING4 }).messageAllReduce!;
  assert.deepEqual(withRing(1024 * 4096), RING4);
  // No peer-to-peer access: NCCL for every size.
  assert.deepEqual(
    resolve({ kind: "vllm-dispatch", nccl: RING4 }, "pcie").messageAllReduce!(8),
    RING4,
  );
  const check = (allReduce: ClaimedAllReduce, passRows: number[]) =>
    why(allReducePathFinding(eager, {
      ...links,
      parallel: resolve(allReduce),
      hidden: 4096,
      passRows,
      named: true,
    }));
  assert.equal(check({ kind: "vllm-dispatch" }, [1, 64, 1000]), null);
  assert.match(check({ kind: "vllm-dispatch" }, [1, 2000])!, /without NCCL settings.*to NCCL/);
  assert.equal(check({ kind: "vllm-dispatch", nccl: RING4 }, [1, 2000]), null);
  // Without the device, or on a stack that runs no vLLM dispatch, it cannot be resolved.
  const noDevice = tensorParallelOf(eager, { tp: 4, ep: 1, allReduce: { kind: "vllm-dispatch" } });
  assert.equal(noDevice.ok, false);
  const unknownLinks = tensorParallelOf(eager, {
    tp: 4,
    ep: 1,
    allReduce: { kind: "vllm-dispatch" },
    links: { ...links, interconnect: "infiniband" },
  });
  // The links decide every path: unknown ones leave nothing to replay, and may not stand in for
  // a FAIL.
  assert.equal(!unknownLinks.ok && unknownLinks.kind, "contradiction");
});

Deno.test("vllm-dispatch is refused on a stack whose layout runs no vLLM dispatch", async () => {
  const hf = await stack("hf-qwen3-flash-attn-torch2.8");
  const r = tensorParallelOf(hf, {
    tp: 4,
    ep: 1,
    allReduce: { kind: "vllm-dispatch" },
    links: { gpu: SXM },
  });
  assert.equal(!r.ok && r.kind, "contradiction");
});

Deno.test("ncclAllReduceUse(): a named NCCL ring or tree, or the first message vLLM's dispatch sends to NCCL; none for the custom all-reduce or dispatched messages it keeps", () => {
  const use = (allReduce: ClaimedAllReduce, passRows: number[]) => {
    const r = tensorParallelOf(eager, {
      tp: 4,
      ep: 1,
      allReduce,
      links: { gpu: SXM },
    });
    if (!r.ok) throw new Error(r.reason);
    return ncclAllReduceUse(eager, {
      gpu: SXM,
      parallel: r.parallel,
      hidden: 4096,
      passRows,
    });
  };
  assert.equal(use(RING4, [1024]), "the all-reduce 'nccl-ring' on 4 ranks");
  assert.equal(use({ kind: "vllm-custom-1stage" }, [12]), null);
  const dispatch = { kind: "vllm-dispatch", nccl: RING4 } as ClaimedAllReduce;
  // 4 ranks, hidden 4096: the custom all-reduce up to 8 MiB (1024 rows), NCCL above.
  assert.equal(use(dispatch, [1, 64, 1000]), null);
  assert.match(
    use(dispatch, [1, 2000])!,
    /sends a message of 16384000 bytes \(2000 rows\).* to NCCL$/,
  );
  assert.equal(
    ncclAllReduceUse(eager, {
      gpu: SXM,
      parallel: undefined,
      hidden: 1,
      passRows: [1],
    }),
    null,
  );
});

Deno.test("allReducePathFinding(): where the record states no links, the part's profile decides: PCIe only on an L40S, any form on an A100 (the path left open), the stack's setup on an H100 SXM", async () => {
  const gpu = async (id: string) => (await loadGpuProfile(store, id)).profile;
  const [l40s, a100, h100] = [await gpu("l40s"), await gpu("a100"), await gpu("h100-sxm")];
  const check = (g: typeof l40s, allReduce: ClaimedAllReduce, tp: number, interconnect?: string) =>
    why(allReducePathFinding(eager, {
      gpu: g,
      parallel: { size: tp, allReduce },
      hidden: 4096,
      passRows: [12],
      named: true,
      interconnect,
    }));
  const custom: ClaimedAllReduce = { kind: "vllm-custom-1stage" };
  const ring2: ClaimedAllReduce = { ...RING4, rings: [[0, 1]] };
  // L40S: four PCIe-only GPUs never start the custom all-reduce, whatever P2P does.
  assert.match(check(l40s, custom, 4)!, /^record names .* runs nccl for .* on any links 'l40s'/);
  assert.equal(check(l40s, RING4, 4), null);
  // Two: P2P over PCIe decides, which the record must state.
  assert.match(
    check(l40s, custom, 2)!,
    /^open: .*\(vllm-custom-1stage on pcie-p2p; nccl on pcie; NVIDIA L40S has no NVLink/,
  );
  assert.equal(check(l40s, custom, 2, "pcie-p2p"), null);
  assert.match(check(l40s, ring2, 2)!, /^open: /);
  assert.equal(check(l40s, ring2, 2, "pcie"), null);
  // A100: SXM4 or PCIe; nothing is assumed.
  assert.match(
    check(a100, custom, 4)!,
    /^open: .*vllm-custom-1stage on nvswitch, nvlink; nccl on pcie-p2p, pcie/,
  );
  assert.match(check(a100, RING4, 4)!, /^open: /);
  assert.equal(check(a100, custom, 4, "nvswitch"), null);
  // H100 SXM: the stack's NVLink setup, as before.
  assert.equal(check(h100, custom, 4), null);
  assert.match(check(h100, RING4, 4)!, /as stack 'vllm-0\.11-eager-fa2' states its GPUs linked/);
  // A contradiction in one message comes before an open path in another.
  const mixed = why(allReducePathFinding(eager, {
    gpu: a100,
    parallel: split(4, custom),
    hidden: 4096,
    passRows: [12, 64],
    named: true,
  }));
  assert.match(
    mixed!,
    /^record names all-reduce 'vllm-custom-1stage', but .* runs vllm-custom-2stage on nvswitch, nvlink or nccl on pcie-p2p, pcie/,
  );
  // vllm-dispatch: an open path at four ranks has no replay; at two every path gives the bits.
  const dispatch: ClaimedAllReduce = { kind: "vllm-dispatch", nccl: RING4 };
  assert.match(
    check(a100, dispatch, 4)!,
    /^record states all-reduce 'vllm-dispatch' and no interconnect: .*no replay follows/,
  );
  assert.equal(check(a100, { kind: "vllm-dispatch" }, 2), null);
  const r = tensorParallelOf(eager, {
    tp: 2,
    ep: 1,
    allReduce: { kind: "vllm-dispatch" },
    links: { gpu: l40s },
  });
  assert.ok(r.ok);
  assert.equal(r.parallel!.messageAllReduce!(8).kind, "vllm-custom-1stage");
  const four = tensorParallelOf(eager, {
    tp: 4,
    ep: 1,
    allReduce: dispatch,
    links: { gpu: a100 },
  });
  assert.ok(four.ok);
  assert.throws(() => four.parallel!.messageAllReduce!(8), /state the interconnect/);
});
