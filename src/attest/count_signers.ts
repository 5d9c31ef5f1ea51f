/**
 * The signatures rule of `check`: which keys of the trust root that verified a verdict's
 * signatures count as its signers. A key counts when it is an inspector key valid (listed, in its
 * window, not revoked) at every instant one of its signature entries is judged at
 * (`requiredInstants`: the stated and the verification time, or the time independent evidence
 * shows). `checkAttestation` counts an envelope's signers with it, and `judgeSigningKeys` the
 * keys about to sign one.
 *
 * @module
 */
import { keyValidAt } from "./key_valid_at.ts";
import type { requiredInstants } from "./signing_time.ts";
import type { TrustRoot } from "./trust_root.ts";

/** The signers {@link countSigners} counts, and why the others are not. */
export interface SignerCount {
  /** Key ids counted, distinct, in the order their first counted entry comes. */
  readonly counted: readonly string[];
  /** Per counted key: its id's first 16 digits and the instants it was judged at. */
  readonly judged: readonly string[];
  /**
   * Per signature entry: why its key does not count for it (not valid at an instant, or the
   * instants refused), or null (counted, or verified by no key of the trust root).
   */
  readonly entryRefusal: readonly (string | null)[];
  /** Each key that verified an entry but counts for none, with its first entry's refusal. */
  readonly refused: ReadonlyMap<string, string>;
}

/**
 * Counts the signers of an envelope's signature entries, as `check` does.
 *
 * @param verifiedBy per signature entry, the key id of the trust root's inspector key that
 *   verified it, or null
 * @param o the trust root and, per entry, the instants its key must be valid at
 * @returns the counted keys, and why the others are not counted
 * @example
 * ```ts
 * import { countSigners } from "./count_signers.ts";
 * const root = { mediaType: "m", keys: [] };
 * const instants = () => ({ instants: [{ label: "stated", time: 0 }] });
 * const c = countSigners(["ab".repeat(32)], { trustRoot: root, instants });
 * if (c.counted.length !== 0 || !/unknown key/.test(c.entryRefusal[0] ?? "")) throw new Error();
 * ```
 */
export function countSigners(
  verifiedBy: readonly (string | null)[],
  o: {
    readonly trustRoot: TrustRoot;
    readonly instants: (entry: number) => ReturnType<typeof requiredInstants>;
  },
): SignerCount {
  const counted: string[] = [];
  const judged: string[] = [];
  const entryRefusal = verifiedBy.map((by, entry) => {
    if (by === null) return null;
    const r = o.instants(entry);
    if ("refused" in r) return r.refused;
    for (const at of r.instants) {
      const kv = keyValidAt(o.trustRoot, { keyid: by, time: new Date(at.time), role: "inspector" });
      if (!kv.valid) {
        return `key ${by.slice(0, 16)}… is ${kv.reason} at the ${at.label} time ${
          new Date(at.time).toISOString()
        }`;
      }
    }
    if (!counted.includes(by)) {
      counted.push(by);
      const times = r.instants.map((i) => `${i.label} ${new Date(i.time).toISOString()}`);
      judged.push(`${by.slice(0, 16)}… at ${times.join(", ")}`);
    }
    return null;
  });
  const refused = new Map<string, string>();
  verifiedBy.forEach((by, entry) => {
    const why = entryRefusal[entry];
    if (by !== null && typeof why === "string" && !counted.includes(by) && !refused.has(by)) {
      refused.set(by, why);
    }
  });
  return { counted, judged, entryRefusal, refused };
}
