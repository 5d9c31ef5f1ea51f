/**
 * The streaming-multiprocessor count (`multiProcessorCount`) of each GPU profile whose full chip
 * has one count, and the check of a claimed count against it. FlashAttention's split-KV
 * heuristic reads the count, so a record's count steers which attention path is recomputed: a
 * count the named GPU cannot have would let a prover pick the path.
 *
 * @module
 */

/**
 * `multiProcessorCount` by GPU profile id (spec `stack_pytorch_hf.md` §4.1: A100 108, H100 SXM /
 * H200 / H100 NVL 132, H100 PCIe 114, L40S 142, L4 58); other profiles have none here.
 */
export const KNOWN_SM_COUNTS: Readonly<Record<string, number>> = Object.freeze({
  "a100": 108,
  "h100-sxm": 132,
  "h200": 132,
  "h100-nvl": 132,
  "h100-pcie": 114,
  "l40s": 142,
  "l4": 58,
});

/**
 * The SM count of a profile's chip, or undefined for a profile id not in
 * {@link KNOWN_SM_COUNTS} (an own entry only: `constructor` is no profile).
 *
 * @param profileId the GPU profile id
 * @returns the SM count, or undefined
 * @example
 * ```ts
 * import { knownSmCount } from "./sm_counts.ts";
 * if (knownSmCount("a100") !== 108 || knownSmCount("constructor") !== undefined) throw new Error();
 * ```
 */
export function knownSmCount(profileId: string): number | undefined {
  return Object.hasOwn(KNOWN_SM_COUNTS, profileId) ? KNOWN_SM_COUNTS[profileId] : undefined;
}

/**
 * Why a claimed SM count cannot be taken for a GPU profile: above the full chip's (no such
 * device: a contradiction), below it (a MIG slice or an SM-limited context, whose count is not
 * known here), or a profile with no known count.
 *
 * @param profileId the GPU profile id
 * @param sms the claimed `multiProcessorCount`
 * @returns null when it is the chip's count, else the kind and the reason
 * @example
 * ```ts
 * import { smCountMismatch } from "./sm_counts.ts";
 * if (smCountMismatch("a100", 108) !== null) throw new Error();
 * if (smCountMismatch("a100", 4096)?.kind !== "contradiction") throw new Error();
 * ```
 */
export function smCountMismatch(
  profileId: string,
  sms: number,
): { readonly kind: "contradiction" | "unmodelled"; readonly reason: string } | null {
  const known = knownSmCount(profileId);
  if (known === undefined) {
    return {
      kind: "unmodelled",
      reason:
        `GPU profile '${profileId}' has no known SM count: the claimed ${sms} cannot be checked`,
    };
  }
  if (sms === known) return null;
  return sms > known
    ? {
      kind: "contradiction",
      reason: `multiProcessorCount ${sms} on a '${profileId}', whose chip has ${known} SMs`,
    }
    : {
      kind: "unmodelled",
      reason: `multiProcessorCount ${sms} below the '${profileId}' chip's ${known} SMs (a MIG ` +
        "slice or an SM-limited context): such devices are not modelled",
    };
}
