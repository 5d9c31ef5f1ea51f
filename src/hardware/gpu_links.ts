/**
 * How a GPU part links to its peers: a profile's optional `links` field, from the part's data
 * sheet. It decides which interconnects a record on the part may state and what a verifier may
 * assume where a record states none (vLLM's all-reduce dispatch reads whether every pair of the
 * group is NVLink-connected):
 * ```
 * "links": { "nvlink": ["none"], "sources": ["NVIDIA L40S datasheet: NVLink support: no"] }
 * ```
 * `nvlink` lists the forms the part ships in; more than one where one profile stands for several
 * (A100 as SXM4 module or PCIe card): then nothing is assumed, and a record must state its
 * interconnect. A profile without `links` is read the same way (every form possible).
 *
 * @module
 */
import { fieldsOf, onlyKnown, str, strings } from "../json_fields.ts";

/**
 * How a part's GPUs can be NVLink-connected:
 * - `none`: no NVLink; the cards reach each other over PCIe only;
 * - `bridge-pair`: an NVLink bridge joins two cards (a larger group is not all NVLink-connected);
 * - `hybrid-cube-mesh`: DGX-1's eight SXM2 modules, NVLink-connected pairwise within each group
 *   of four only, with no NVSwitch;
 * - `nvswitch`: SXM modules on a board that NVLink-connects every GPU, through NVSwitch (HGX/DGX
 *   8-GPU boards, NVL racks) or directly (HGX 4-GPU boards, GH200 NVL2).
 */
export const NVLINK_FORMS = ["none", "bridge-pair", "hybrid-cube-mesh", "nvswitch"] as const;
Object.freeze(NVLINK_FORMS);

/** One of {@link NVLINK_FORMS}. */
export type NvlinkForm = typeof NVLINK_FORMS[number];

/** A profile's `links`: the forms its part ships in, with data-sheet sources. */
export interface GpuLinks {
  /** The forms (one; several where the profile stands for more than one form of the part). */
  readonly nvlink: readonly NvlinkForm[];
  /** Data sheets and white papers, each named with the link fact it states. */
  readonly sources: readonly string[];
  /** Why the form is left open, where several are listed. */
  readonly note?: string;
}

/**
 * Validates a profile's `links` and freezes it.
 *
 * @param json the parsed `links` value
 * @param path where it sits, for messages (e.g. `profile.links`)
 * @returns the frozen links
 * @throws {TypeError|RangeError} naming the bad field (an unknown or repeated form, no form, no
 *   source, an unknown field)
 * @example
 * ```ts
 * import { parseGpuLinks } from "./gpu_links.ts";
 * const l = parseGpuLinks({ nvlink: ["none"], sources: ["data sheet"] }, "links");
 * if (l.nvlink[0] !== "none") throw new Error();
 * ```
 */
export function parseGpuLinks(json: unknown, path: string): GpuLinks {
  const f = fieldsOf(json, path);
  onlyKnown(f, ["nvlink", "sources", "note"]);
  const forms = strings(f, "nvlink");
  if (forms.length === 0) throw new RangeError(`Cannot read '${path}.nvlink': no form listed`);
  forms.forEach((form, i) => {
    if (!(NVLINK_FORMS as readonly string[]).includes(form)) {
      throw new RangeError(
        `Cannot read '${path}.nvlink[${i}]': expected one of ${NVLINK_FORMS.join(", ")}`,
      );
    }
    if (forms.indexOf(form) !== i) {
      throw new RangeError(`Cannot read '${path}.nvlink[${i}]': '${form}' is listed twice`);
    }
  });
  const sources = strings(f, "sources");
  if (sources.length === 0) throw new RangeError(`Cannot read '${path}.sources': no source`);
  return Object.freeze({
    nvlink: Object.freeze([...forms] as NvlinkForm[]),
    sources: Object.freeze([...sources]),
    ...(f.obj.note === undefined ? {} : { note: str(f, "note") }),
  });
}
