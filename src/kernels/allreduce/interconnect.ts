/**
 * How the GPUs of a tensor-parallel group are linked, as vLLM's all-reduce dispatch sees it
 * (spec `parallel_and_vllm.md` §A2.0-§A2.2, and its list of what a prover should log: "Topology:
 * fully_connected (NVLink); P2P result; whether multicast/NVLS is available"). A record may state
 * it (`parallelism.interconnect`); a stack's `allReduceSetup` states the one it assumes.
 *
 * - `nvswitch`: every GPU reaches every other over NVLink through an NVSwitch, which also gives
 *   symmetric memory a multicast pointer (HGX/DGX boards);
 * - `nvlink`: every pair of the group NVLink-connected, no multicast (four-GPU HGX boards, a
 *   bridged pair);
 * - `pcie-p2p`: some pair is not NVLink-connected, and peer-to-peer access over PCIe passed
 *   vLLM's test (`_can_p2p`);
 * - `pcie`: no peer-to-peer access (vLLM's custom all-reduce does not start).
 *
 * Evidence: derived from source only (vLLM c3124680 `custom_all_reduce.py`, `symm_mem.py`).
 *
 * @module
 */

/** The interconnects a record may state. */
export const INTERCONNECTS = ["nvswitch", "nvlink", "pcie-p2p", "pcie"] as const;
Object.freeze(INTERCONNECTS);

/** One of {@link INTERCONNECTS}. */
export type Interconnect = typeof INTERCONNECTS[number];

/** What the dispatch reads of an interconnect. */
export interface InterconnectFacts {
  /** vLLM's `is_fully_connected`: every pair of the group NVLink-connected. */
  readonly fullyConnected: boolean;
  /** vLLM's `_can_p2p`: peer-to-peer access between the ranks works. */
  readonly p2p: boolean;
  /** Symmetric memory gets a multicast pointer (NVSwitch). */
  readonly multicast: boolean;
}

const _FACTS: Readonly<Record<Interconnect, InterconnectFacts>> = Object.freeze({
  "nvswitch": Object.freeze({ fullyConnected: true, p2p: true, multicast: true }),
  "nvlink": Object.freeze({ fullyConnected: true, p2p: true, multicast: false }),
  "pcie-p2p": Object.freeze({ fullyConnected: false, p2p: true, multicast: false }),
  "pcie": Object.freeze({ fullyConnected: false, p2p: false, multicast: false }),
});

/**
 * Whether a value is one of {@link INTERCONNECTS}.
 *
 * @param v any value
 * @returns true for a known interconnect name
 * @example
 * ```ts
 * import { isInterconnect } from "./interconnect.ts";
 * if (!isInterconnect("pcie") || isInterconnect("PCIe")) throw new Error();
 * ```
 */
export function isInterconnect(v: unknown): v is Interconnect {
  return typeof v === "string" && (INTERCONNECTS as readonly string[]).includes(v);
}

/**
 * What vLLM's dispatch reads of an interconnect.
 *
 * @param i the interconnect
 * @returns its facts (frozen)
 * @example
 * ```ts
 * import { interconnectFacts } from "./interconnect.ts";
 * if (interconnectFacts("pcie-p2p").fullyConnected) throw new Error();
 * ```
 */
export function interconnectFacts(i: Interconnect): InterconnectFacts {
  return _FACTS[i];
}
