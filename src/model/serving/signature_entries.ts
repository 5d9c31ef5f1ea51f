/**
 * A decode signature as labelled text values: two batch sizes have equal signatures iff every
 * value is equal, and a change between classes reads `label: old -> new`.
 *
 * @module
 */
import type { DecodeNorm, DecodeSignature } from "./decode_signature.ts";

/** One component of a signature. */
export interface SignatureEntry {
  /** What it is, e.g. `down_proj`, `rms_norm tree`, `FA2 splits`. */
  readonly label: string;
  /** Its fixed shape: `[2560 x 9728]` (GEMM N x K), `[2560]` (reduced length), `[4096 keys]`. */
  readonly shape: string;
  /** Its value as text (kernel summary, tree, factor pattern, count). */
  readonly value: string;
}

/**
 * Lists a signature's components in a fixed order: each GEMM's kernel, each norm's tree and mean
 * factor, FA2's splits with blocks per split.
 *
 * @param signature a decode signature
 * @returns the entries (same labels, same order for every batch size of one model)
 * @example
 * ```ts
 * import { signatureEntries } from "./signature_entries.ts";
 * const e = signatureEntries({
 *   gemms: [{ name: "q_proj", n: 8, k: 4, recipe: null, kernel: "not covered", reason: "x" }],
 *   norms: [],
 *   attention: { seqlenK: 9, nBlocks: 1, splits: 1, blocksPerSplit: 1 },
 * });
 * if (e[0]!.label !== "q_proj" || e[0]!.shape !== "[8 x 4]") throw new Error();
 * if (e[1]!.value !== "1 x 1 blocks") throw new Error(); // FA2 splits x blocks per split
 * ```
 */
export function signatureEntries(signature: DecodeSignature): readonly SignatureEntry[] {
  const out: SignatureEntry[] = [];
  for (const g of signature.gemms) {
    out.push({ label: g.name, shape: `[${g.n} x ${g.k}]`, value: g.kernel });
  }
  for (const n of signature.norms) {
    const shape = `[${n.length}]`;
    out.push({ label: `${n.name} tree`, shape, value: normTree(n) });
    if (n.meanFactor !== null) {
      const value = `0x${n.meanFactor.toString(16).padStart(8, "0")}`;
      out.push({ label: `${n.name} mean factor`, shape, value });
    }
  }
  // blocksPerSplit follows from splits at one context: one entry, so one change line.
  const a = signature.attention;
  const value = `${a.splits} x ${a.blocksPerSplit} blocks`;
  out.push({ label: "FA2 splits", shape: `[${a.seqlenK} keys]`, value });
  return Object.freeze(out.map((e) => Object.freeze(e)));
}

/**
 * A norm's per-row tree as text: lanes x warps on one row, values per thread, vectorised loads.
 *
 * @param norm the norm
 * @returns e.g. `512x1, 5/thread, vec`
 * @example
 * ```ts
 * import { normTree } from "./signature_entries.ts";
 * const n = { name: "rms_norm", rowsPerSequence: 1, length: 2560, vectorize: true,
 *   blockWidth: 32, rowWarps: 1, valuesPerThread: 80, meanFactor: null } as const;
 * if (normTree(n) !== "32x1, 80/thread, vec") throw new Error();
 * ```
 */
export function normTree(norm: DecodeNorm): string {
  const vec = norm.vectorize ? ", vec" : "";
  return `${norm.blockWidth}x${norm.rowWarps}, ${norm.valuesPerThread}/thread${vec}`;
}
