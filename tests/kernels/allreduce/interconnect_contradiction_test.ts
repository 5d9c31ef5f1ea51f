/**
 * `interconnectsOf` / `interconnectContradiction` against the bundled GPU profiles' `links`
 * (NVIDIA data sheets): PCIe-only parts never have NVLink, bridged pairs NVLink two cards and have
 * no NVSwitch, SXM parts on NVSwitch boards have any, and the profiles standing for several forms
 * (A100, V100) rule nothing out.
 */
import assert from "node:assert/strict";
import { openAssetStore } from "../../../src/assets/mod.ts";
import { parseGpuLinks } from "../../../src/hardware/mod.ts";
import {
  interconnectContradiction,
  interconnectsOf,
  linksClause,
} from "../../../src/kernels/mod.ts";
import { GPU_PROFILES, listAssetIds, loadGpuProfile } from "../../../src/resolve/mod.ts";

const store = await openAssetStore();
const profiles = new Map(
  await Promise.all(
    listAssetIds(store, GPU_PROFILES).map(async (id) =>
      [id, (await loadGpuProfile(store, id)).profile] as const
    ),
  ),
);

Deno.test("every bundled GPU profile states its links with a data-sheet source", () => {
  const forms: Record<string, string> = {};
  for (const [id, p] of profiles) {
    assert.ok(p.links !== undefined, id);
    assert.ok(
      p.links.sources.every((s) => /NVIDIA .*(datasheet|product brief|white paper)/.test(s)),
      id,
    );
    assert.equal(p.links.nvlink.length > 1, p.links.note !== undefined, `${id}: a note says why`);
    forms[id] = p.links.nvlink.join("+");
  }
  assert.deepEqual(forms, {
    "a100": "nvswitch+bridge-pair",
    "a2": "none",
    "a30": "bridge-pair",
    "a40": "bridge-pair",
    "b200": "nvswitch",
    "gh200": "nvswitch",
    "h100-nvl": "bridge-pair",
    "h100-pcie": "bridge-pair",
    "h100-sxm": "nvswitch",
    "h200": "nvswitch",
    "l4": "none",
    "l40": "none",
    "l40s": "none",
    "rtx-1000-ada": "none",
    "rtx-pro-6000-blackwell": "none",
    "v100": "none+hybrid-cube-mesh+nvswitch",
  });
});

Deno.test("interconnectsOf(): what a group of each part can have, by its size", () => {
  const of = (id: string, ws: number) => interconnectsOf(profiles.get(id)!, ws).join();
  for (const id of ["l40s", "l40", "l4", "a2", "rtx-1000-ada", "rtx-pro-6000-blackwell"]) {
    assert.equal(of(id, 2), "pcie-p2p,pcie", id);
    assert.equal(of(id, 8), "pcie-p2p,pcie", id);
  }
  for (const id of ["a30", "a40", "h100-pcie", "h100-nvl"]) {
    assert.equal(of(id, 2), "nvlink,pcie-p2p,pcie", id);
    assert.equal(of(id, 4), "pcie-p2p,pcie", id);
  }
  for (const id of ["h100-sxm", "h200", "b200", "gh200", "a100", "v100"]) {
    assert.equal(of(id, 8), "nvswitch,nvlink,pcie-p2p,pcie", id);
  }
  // A profile that states no links rules nothing out.
  assert.equal(interconnectsOf({ id: "x", name: "X" }, 4).length, 4);
  // DGX-1's cube-mesh alone: every pair NVLink-connected in groups of four only.
  const mesh = {
    id: "m",
    name: "M",
    links: parseGpuLinks({ nvlink: ["hybrid-cube-mesh"], sources: ["s"] }, "l"),
  };
  assert.equal(interconnectsOf(mesh, 4).join(), "nvlink,pcie-p2p,pcie");
  assert.equal(interconnectsOf(mesh, 8).join(), "pcie-p2p,pcie");
});

Deno.test("interconnectContradiction(): one line naming the part and its data sheet's link fact", () => {
  const why = (id: string, interconnect: string | undefined, worldSize: number) =>
    interconnectContradiction(profiles.get(id)!, { interconnect, worldSize });
  assert.match(
    why("l40s", "nvswitch", 4)!,
    /^interconnect 'nvswitch' on 4 'l40s' GPUs, but NVIDIA L40S has no NVLink: .* \(NVIDIA L40S GPU datasheet: NVLink support: no; interconnect PCIe Gen4 x16 64 GB\/s\)$/,
  );
  assert.match(why("rtx-pro-6000-blackwell", "nvlink", 2)!, /has no NVLink/);
  assert.match(why("a40", "nvlink", 4)!, /joins at most two cards by an NVLink bridge, so 4 are/);
  assert.match(why("h100-pcie", "nvswitch", 2)!, /has no NVSwitch/);
  for (
    const [id, i, ws] of [
      ["a40", "nvlink", 2],
      ["l40s", "pcie-p2p", 8],
      ["h100-sxm", "nvswitch", 8],
      ["a100", "nvswitch", 8],
      ["a100", "pcie", 4],
      ["v100", "nvlink", 8],
    ] as const
  ) {
    assert.equal(why(id, i, ws), null, `${id} ${i} ${ws}`);
  }
  // Nothing stated, or a name the dispatch does not know (reported elsewhere): no contradiction.
  assert.equal(why("l40s", undefined, 4), null);
  assert.equal(why("l40s", "infiniband", 4), null);
  assert.equal(linksClause(profiles.get("l40s")!), "NVIDIA L40S has no NVLink (PCIe only)");
  assert.match(
    linksClause(profiles.get("a100")!),
    /^NVIDIA A100 comes as SXM modules .* or as PCIe cards/,
  );
});
