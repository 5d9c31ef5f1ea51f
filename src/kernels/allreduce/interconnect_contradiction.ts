/**
 * Which interconnects a group of GPUs of one part can have, from the part's profile (`links`: the
 * forms it ships in, from its data sheet), so that a record or a prover stating links its GPUs
 * cannot have is refused, and a verifier assumes no NVLink where the part may lack it:
 * - no NVLink (L40S, L4, A2, ...): `pcie` or `pcie-p2p` only;
 * - an NVLink bridge joining two cards (A30, A40, H100 PCIe, H100 NVL): `nvlink` for two ranks
 *   too, never `nvswitch`;
 * - DGX-1's hybrid cube-mesh (V100 SXM2): `nvlink` for at most four ranks, never `nvswitch`;
 * - SXM modules on an NVSwitch (or directly linked 4-GPU) board: any.
 * `pcie` and `pcie-p2p` are never refused: GPUs can be used without their NVLink.
 *
 * @module
 */
import type { GpuLinks, NvlinkForm } from "../../hardware/mod.ts";
import { type Interconnect, INTERCONNECTS, isInterconnect } from "./interconnect.ts";

/** The part a group's GPUs are, as the link check reads it (a `GpuProfile` is one). */
export interface LinkedGpu {
  /** Profile id, e.g. `l40s`. */
  readonly id: string;
  /** Marketing name, e.g. `NVIDIA L40S`. */
  readonly name: string;
  /** How the part links to its peers (undefined: not stated, every form possible). */
  readonly links?: GpuLinks | undefined;
}

/**
 * The interconnects a group of `worldSize` GPUs of a part can have (every one where the profile
 * states no links).
 *
 * @param gpu the part
 * @param worldSize the group's size (ranks)
 * @returns the interconnects, in {@link INTERCONNECTS} order
 * @example
 * ```ts
 * import { interconnectsOf } from "./interconnect_contradiction.ts";
 * const a40 = { id: "a40", name: "NVIDIA A40", links: { nvlink: ["bridge-pair"] as const, sources: [] } };
 * if (interconnectsOf(a40, 2).join() !== "nvlink,pcie-p2p,pcie") throw new Error();
 * if (interconnectsOf(a40, 4).join() !== "pcie-p2p,pcie") throw new Error();
 * ```
 */
export function interconnectsOf(gpu: LinkedGpu, worldSize: number): readonly Interconnect[] {
  const forms = gpu.links?.nvlink;
  if (forms === undefined) return INTERCONNECTS;
  return INTERCONNECTS.filter((i) => forms.some((f) => _why(f, i, worldSize) === null));
}

/**
 * Why a group of GPUs of a part cannot be linked as stated: one line naming the part and the
 * link fact of its data sheet; null where it can, where none is stated, or where the name is not
 * an interconnect (`unknownInterconnect` reports those).
 *
 * @param gpu the part
 * @param o the stated interconnect and the group's size (ranks)
 * @returns the reason, or null
 * @example
 * ```ts
 * import { interconnectContradiction } from "./interconnect_contradiction.ts";
 * const l40s = { id: "l40s", name: "NVIDIA L40S", links: { nvlink: ["none"] as const, sources: ["NVIDIA L40S datasheet: NVLink support: no"] } };
 * if (interconnectContradiction(l40s, { interconnect: "nvswitch", worldSize: 4 }) === null) throw new Error();
 * if (interconnectContradiction(l40s, { interconnect: "pcie-p2p", worldSize: 4 }) !== null) throw new Error();
 * ```
 */
export function interconnectContradiction(
  gpu: LinkedGpu,
  o: { readonly interconnect: string | undefined; readonly worldSize: number },
): string | null {
  const i = o.interconnect;
  const links = gpu.links;
  if (i === undefined || !isInterconnect(i) || links === undefined) return null;
  const why = links.nvlink.map((f) => _why(f, i, o.worldSize));
  if (why.some((w) => w === null)) return null;
  const fact = why.length === 1 ? why[0] : `in every form: ${why.join("; ")}`;
  return `interconnect '${i}' on ${o.worldSize} '${gpu.id}' GPUs, but ${gpu.name} ${fact} ` +
    `(${links.sources.join("; ")})`;
}

/**
 * What a part's data sheet says of its links, as a clause for a reason: e.g. `NVIDIA L40S has no
 * NVLink`.
 *
 * @param gpu the part
 * @returns the clause
 * @example
 * ```ts
 * import { linksClause } from "./interconnect_contradiction.ts";
 * if (!linksClause({ id: "x", name: "X" }).includes("states no links")) throw new Error();
 * ```
 */
export function linksClause(gpu: LinkedGpu): string {
  const forms = gpu.links?.nvlink;
  if (forms === undefined) return `${gpu.name}'s profile states no links`;
  if (forms.length === 1) return `${gpu.name} ${_FORM_CLAUSE[forms[0]!]}`;
  return `${gpu.name} comes ${forms.map((f) => _FORM_NOUN[f]).join(" or ")}`;
}

/** Each form, as what a part of one form does. */
const _FORM_CLAUSE: Readonly<Record<NvlinkForm, string>> = Object.freeze({
  "none": "has no NVLink (PCIe only)",
  "bridge-pair": "links at most two cards, by an NVLink bridge",
  "hybrid-cube-mesh": "NVLink-connects every pair of at most four GPUs (DGX-1's hybrid cube-mesh)",
  "nvswitch": "sits on boards that NVLink-connect every GPU (NVSwitch)",
});

/** Each form, as one of several a part comes in. */
const _FORM_NOUN: Readonly<Record<NvlinkForm, string>> = Object.freeze({
  "none": "as PCIe cards without NVLink",
  "bridge-pair": "as PCIe cards NVLink-bridged in pairs",
  "hybrid-cube-mesh": "as SXM2 modules in DGX-1's hybrid cube-mesh",
  "nvswitch": "as SXM modules on boards that NVLink-connect every GPU",
});

/** Why a part of this form cannot have the interconnect for the group, or null when it can. */
function _why(form: NvlinkForm, i: Interconnect, worldSize: number): string | null {
  if (i === "pcie" || i === "pcie-p2p" || form === "nvswitch") return null;
  if (form === "none") return "has no NVLink: its cards reach each other over PCIe only";
  if (i === "nvswitch") {
    return form === "bridge-pair"
      ? "has no NVSwitch: an NVLink bridge joins at most two cards"
      : "has no NVSwitch: DGX-1's hybrid cube-mesh links the modules directly";
  }
  // `nvlink`: every pair of the group NVLink-connected.
  if (form === "bridge-pair") {
    return worldSize <= 2 ? null : `joins at most two cards by an NVLink bridge, so ${worldSize} ` +
      "are not all NVLink-connected";
  }
  return worldSize <= 4 ? null : `NVLink-connects every pair of at most four GPUs (DGX-1's ` +
    `hybrid cube-mesh), so ${worldSize} are not all NVLink-connected`;
}
